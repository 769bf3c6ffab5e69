#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/platform/file_lock.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/test_hooks.hpp>

#include "layout.hpp"

namespace zcuda::install {

namespace fs = std::filesystem;

namespace {

// Takes the version out of sight with one rename, then deletes it at leisure; the pointer goes
// first so nothing is sent to a folder that is about to vanish.
Status remove_version(const home::Home& home, const Receipt& r, const Options& options) {
  std::error_code ec;
  if (r.adopted_dir) {
    // An adopted folder belongs to its application: forgetting it deletes the receipt only.
    fs::remove(layout::receipt_path(home, r.component, r.version), ec);
    if (ec) return std::unexpected(io_error("remove", layout::receipt_path(home, r.component, r.version), ec));
    return {};
  }
  if (layout::read_pointer(home, r.component) == r.version) {
    fs::remove(layout::pointer_path(home, r.component), ec);
    if (ec) return std::unexpected(io_error("remove", layout::pointer_path(home, r.component), ec));
  }
  const fs::path dir = layout::version_dir(home, r.component, r.version);
  if (fs::exists(fs::symlink_status(dir, ec))) {
    const fs::path doomed = layout::temp_sibling(home, r.component, r.version, "del");
    if (auto moved = platform::rename_with_retry(dir, doomed); !moved) return moved;
    platform::test_hooks::pause_at("remove-renamed", options.cancel);
    fs::remove_all(doomed, ec);
    if (ec) spdlog::warn("could not delete {}: {} (the next install removes it)", path_to_utf8(doomed), ec.message());
  }
  fs::remove(layout::receipt_path(home, r.component, r.version), ec);
  if (ec) return std::unexpected(io_error("remove", layout::receipt_path(home, r.component, r.version), ec));
  return {};
}

}  // namespace

Result<Report> remove(const std::string& name, const home::Home& home, const Options& options) {
  platform::FileLock lock;
  if (!options.dry_run) {
    platform::LockWait how;
    how.wait = options.wait_for_lock;
    how.cancel = options.cancel;
    how.on_wait = [&](std::optional<long> holder) {
      if (options.on_notice) {
        options.on_notice(holder ? fmt::format("waiting for another zcuda install (pid {}) to finish", *holder)
                                 : std::string("waiting for another zcuda install to finish"));
      }
    };
    std::error_code ec;
    fs::create_directories(home.root, ec);
    auto taken = platform::lock_file(layout::lock_path(home), how);
    if (!taken) return std::unexpected(taken.error());
    lock = std::move(*taken);
    layout::remove_leftovers(home);
  }
  auto receipts = all_receipts(home);
  Report report;
  for (const auto& r : receipts) {
    // Adopted and user-vouched runtimes go by the name they were given too.
    const bool by_name = (r.adopted_dir || is_user_vouched(r)) && r.version == name;
    if (r.id != name && r.component != name && !by_name) continue;
    Outcome out;
    out.id = r.id;
    out.component = r.component;
    out.version = r.version;
    out.destination = r.adopted_dir ? path_from_utf8(*r.adopted_dir) : layout::version_dir(home, r.component, r.version);
    if (r.adopted_dir) out.reason = "forgotten; the adopted folder and its files stay";
    out.sha256 = r.sha256;
    out.files = r.files.size();
    out.bytes = total_bytes(r);
    if (options.dry_run) {
      out.state = State::planned;
      out.reason = "would remove";
    } else if (auto removed = remove_version(home, r, options); !removed) {
      out.state = State::failed;
      out.error = removed.error();
      if (!report.first_error) report.first_error = removed.error();
    } else {
      out.state = State::removed;
    }
    report.outcomes.push_back(std::move(out));
  }
  if (report.outcomes.empty()) {
    std::string installed;
    for (const auto& r : receipts) installed += (installed.empty() ? "" : ", ") + r.id;
    return fail(ErrorKind::not_found, fmt::format("Nothing installed matches \"{}\"", name),
                installed.empty() ? "Nothing is installed under this zcuda home." : fmt::format("Installed: {}.", installed));
  }
  return report;
}

}  // namespace zcuda::install
