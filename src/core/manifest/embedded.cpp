#include <zcuda/manifest/embedded.hpp>

namespace zcuda::embedded {

std::optional<std::string_view> find(std::string_view name) {
  for (const auto& file : files()) {
    if (file.name == name) return file.content;
  }
  return std::nullopt;
}

}  // namespace zcuda::embedded
