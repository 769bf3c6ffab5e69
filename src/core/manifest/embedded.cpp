#include <zcuda/manifest/embedded.hpp>

namespace zcuda::embedded {

std::optional<std::string_view> find(std::string_view name) {
  for (const auto& f : files()) {
    if (f.name == name) return f.content;
  }
  return std::nullopt;
}

}  // namespace zcuda::embedded
