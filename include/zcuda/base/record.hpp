#pragma once
// Records one module writes and another reads (run records, verify results, install receipts,
// bench records) each have one JSON form: nlohmann's to_json/from_json pair, declared beside the
// record's type in the writer's module and used by writer and readers alike, so a field cannot
// be spelt one way on disk and another way where it is read.
//
// from_json throws nlohmann::json::exception on a malformed record (that is nlohmann's contract);
// readers go through parse_record, which turns it into an Error at once.
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>

namespace zcuda {

template <class Record>
Result<Record> parse_record(const nlohmann::json& json, std::string_view what) {
  try {
    return json.get<Record>();
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorKind::invalid_input, fmt::format("This is not a valid {}: {}", what, e.what()));
  }
}

template <class Record>
Result<Record> parse_record_text(std::string_view text, std::string_view what) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) return fail(ErrorKind::invalid_input, fmt::format("This is not a valid {}: not JSON", what));
  return parse_record<Record>(json, what);
}

}  // namespace zcuda
