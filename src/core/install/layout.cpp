#include "layout.hpp"

#include <atomic>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process_id.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::install::layout {

namespace fs = std::filesystem;

fs::path component_dir(const home::Home& home, const std::string& component) { return home.installs() / path_from_utf8(component); }

fs::path version_dir(const home::Home& home, const std::string& component, const std::string& version) {
  return component_dir(home, component) / path_from_utf8(version);
}

fs::path receipt_path(const home::Home& home, const std::string& component, const std::string& version) {
  return component_dir(home, component) / path_from_utf8(version + ".receipt.json");
}

fs::path pointer_path(const home::Home& home, const std::string& component) { return component_dir(home, component) / "current"; }

fs::path lock_path(const home::Home& home) { return home.root / "install.lock"; }

fs::path cache_dir(const home::Home& home) { return home.cache; }

fs::path temp_sibling(const home::Home& home, const std::string& component, const std::string& version, const char* kind) {
  static std::atomic<int> counter{0};
  return component_dir(home, component) / path_from_utf8(fmt::format(".{}-{}-{}-{}", kind, version, platform::current_process_id(), counter++));
}

void remove_leftovers(const home::Home& home) {
  std::error_code ec;
  for (const auto& component : fs::directory_iterator(home.installs(), ec)) {
    if (!component.is_directory(ec)) continue;
    std::error_code inner;
    for (const auto& entry : fs::directory_iterator(component.path(), inner)) {
      const std::string name = path_to_utf8(entry.path().filename());
      // ".tmp-*" / ".old-*" folders from extraction, replacement and removal; "*.tmp-*" files
      // from platform::write_file_atomic (receipts, pointers).
      const bool leftover =
          name.starts_with(".tmp-") || name.starts_with(".old-") || name.starts_with(".del-") || name.find(".tmp-") != std::string::npos;
      if (!leftover) continue;
      std::error_code rm;
      fs::remove_all(entry.path(), rm);
      if (rm)
        spdlog::warn("could not remove the leftover {}: {}", path_to_utf8(entry.path()), rm.message());
      else
        spdlog::info("removed {}, left by an interrupted run", path_to_utf8(entry.path()));
    }
  }
}

std::optional<std::string> read_pointer(const home::Home& home, const std::string& component) {
  auto text = platform::read_file(pointer_path(home, component), 4096);
  if (!text) return std::nullopt;
  std::string version = *text;
  while (!version.empty() && (version.back() == '\n' || version.back() == '\r' || version.back() == ' ')) version.pop_back();
  if (version.empty()) return std::nullopt;
  return version;
}

Status write_pointer(const home::Home& home, const std::string& component, const std::string& version) {
  if (read_pointer(home, component) == version) return {};
  return platform::write_file_atomic(pointer_path(home, component), version + "\n");
}

}  // namespace zcuda::install::layout
