#include <zcuda/manifest/embedded.hpp>

namespace zcuda::embedded {

namespace {

std::optional<std::string_view> find_in(const std::vector<File>& table, std::string_view name) {
  for (const auto& file : table) {
    if (file.name == name) return file.content;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> find(std::string_view name) { return find_in(files(), name); }

std::optional<std::string_view> find_parsed(std::string_view name) { return find_in(parsed_files(), name); }

}  // namespace zcuda::embedded
