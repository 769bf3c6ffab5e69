#pragma once
// `zcuda install`: choose artifacts from a manifest, fetch and verify them, extract them safely
// and put each in place with one rename. Layout and guarantees: docs/install.md.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/fetch/fetch.hpp>
#include <zcuda/manifest/manifest.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::install {

struct Selection {
  platform::Os os = platform::current_os();
  manifest::Channel channel = manifest::Channel::stable;
  bool with_libtorch = false;     // include the optional LibTorch artifact
  std::vector<std::string> only;  // artifact ids or component names; empty: all that apply
};

struct PlanItem {
  manifest::Artifact artifact;
  bool selected = false;
  std::string skip_reason;            // why not, when not selected
  std::filesystem::path destination;  // <home>/installs/<component>/<version>
};

struct Plan {
  std::vector<PlanItem> items;  // in manifest order
  platform::Os os = platform::Os::linux;
  manifest::Channel channel = manifest::Channel::stable;
  std::string manifest_origin;
};

// Chooses what to install. Fails with ErrorKind::unsupported when the manifest pins nothing for
// the OS (the hint says how to provide a manifest), ErrorKind::usage for an unknown --only name.
Result<Plan> make_plan(const manifest::Manifest& manifest, const Selection& selection, const home::Home& home);

enum class State { planned, installed, already_installed, repaired, skipped, failed, removed };
std::string_view to_string(State state);

struct Outcome {
  std::string id;
  std::string component;
  std::string version;
  State state = State::planned;
  std::string reason;          // skipped: why; already installed: what was checked
  std::optional<Error> error;  // failed only
  std::filesystem::path destination;
  std::string url;
  std::optional<std::uint64_t> size;
  std::string sha256;
  std::string license;
  std::uint64_t files = 0;                  // entries installed (or found installed)
  std::uint64_t bytes = 0;                  // their total size
  std::vector<std::string> repaired_files;  // repaired: the files that were missing or differed
  bool from_cache = false;
  std::uint64_t bytes_transferred = 0;
  std::string source;          // the URL or offline file the bytes came from
  double fetch_seconds = 0;    // download and verification (or cache re-verification)
  double extract_seconds = 0;  // extraction, hashing of installed files, checks
  double total_seconds = 0;
};

struct Options {
  bool dry_run = false;       // plan and report; write nothing, take no lock
  bool repair = false;        // re-hash every installed file; fix what differs
  bool wait_for_lock = true;  // false: ErrorKind::locked when another install runs
  fetch::Options fetch;       // offline folder, CA bundle, progress, cancel
  const std::atomic<bool>* cancel = nullptr;
  // Threads extracting a zip at once (archive::ExtractOptions::workers); 0: chosen from the cores
  // and the archive's size (archive::suggested_workers).
  std::size_t extraction_workers = 0;
  // Messages for a person while work goes on: waiting for the lock, each artifact's license.
  std::function<void(const std::string&)> on_notice;
};

struct Report {
  std::vector<Outcome> outcomes;
  std::optional<Error> first_error;  // of the first failed artifact; decides the exit code
};

// Installs the selected items of `plan` (or, with dry_run, reports what would happen). Failing
// artifacts are reported in their outcome and the others still run; an interruption stops all.
Result<Report> run(const Plan& plan, const home::Home& home, const Options& options);

// Uninstalls by artifact id (that version) or component name (every installed version), guided
// by the receipts. ErrorKind::not_found when nothing installed matches.
Result<Report> remove(const std::string& id_or_component, const home::Home& home, const Options& options);

nlohmann::json to_json(const Outcome& outcome);

}  // namespace zcuda::install
