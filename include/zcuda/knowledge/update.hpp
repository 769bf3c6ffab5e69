#pragma once
// `zcuda update`: fetch a knowledge bundle from a feed (URL) or a folder, verify all of it, and
// install it atomically under <home>/knowledge/<version>/ with a `current` pointer
// (docs/knowledge.md).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/manifest/bundle.hpp>

namespace zcuda::knowledge {

// The one place the default feed lives. Empty: the project publishes no feed yet
// (docs/knowledge.md), so `zcuda update` needs --feed, ZCUDA_KNOWLEDGE_FEED or --from.
inline constexpr std::string_view kDefaultFeed = "";
inline constexpr std::string_view kFeedVariable = "ZCUDA_KNOWLEDGE_FEED";

// --feed, else ZCUDA_KNOWLEDGE_FEED, else kDefaultFeed; nullopt when all are empty.
std::optional<std::string> resolve_feed(const std::optional<std::string>& flag);

struct UpdateOptions {
  std::string source;                   // a folder, or the http(s) URL of the folder that holds index.json
  std::filesystem::path folder;         // <home>/knowledge
  bool check_only = false;              // say what is new, change nothing
  std::chrono::seconds time_limit{60};  // for each response
  std::optional<std::filesystem::path> ca_bundle;
  Time at{};  // the time freshness is judged at
};

struct Change {
  std::string kind;    // "pin", "failure", "profile", "symptom", "family", "file"
  std::string action;  // "added", "changed", "removed"
  std::string id;
};

struct UpdateResult {
  std::uint64_t from_version = 0;
  std::uint64_t to_version = 0;
  bool up_to_date = false;  // the feed holds the bundle in use
  bool installed = false;
  std::filesystem::path location;  // where it was installed
  std::vector<Change> changes;
};

// Verifies everything before anything is written. Errors: the refusals of bundle.hpp (each its own
// exit code; refusal_of says which), incomplete, network, unsupported, invalid_input; io and
// locked when installing fails.
Result<UpdateResult> update(const UpdateOptions& options);

// What differs between two sets of knowledge files (by entry id where the file has entries).
std::vector<Change> diff_files(const std::function<std::optional<std::string>(std::string_view)>& before,
                               const std::function<std::optional<std::string>(std::string_view)>& after, const std::vector<std::string>& names);

nlohmann::json to_json(const UpdateResult& result);

}  // namespace zcuda::knowledge
