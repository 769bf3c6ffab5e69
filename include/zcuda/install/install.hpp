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
  // The install becomes the component's `current`. Not for a user-vouched --url runtime: it is
  // used by name (--runtime NAME) until the user chooses it (docs/cli.md).
  bool becomes_current = true;
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
  // The most bytes an artifact without a pinned size (a --url runtime) may download.
  std::uint64_t unpinned_max_bytes = 2ull << 30;
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

// `install --url URL --sha256 HEX [--name NAME]`: one artifact the user vouches for (no published
// digest, e.g. an lshqqytiger ZLUDA zip), installed by run() like a pinned one: fetched, checked
// against HEX, extracted safely, put in place with one rename, as installs/zluda/<name>. The
// archive type comes from the URL's file name; the name defaults to that file name's stem.
// Usage errors: HEX not 64 hex digits, a URL naming no .zip/.tar.gz, a name in use.
struct Vouched {
  std::string url;
  std::string sha256;
  std::string name;
};
Result<Plan> plan_vouched(const Vouched& vouched, const home::Home& home);

// Adds the family (family::identify_runtime of the installed folder) to a zluda version's
// receipt; a folder the family module cannot read is recorded as unknown, with why.
Status record_family(const home::Home& home, const std::string& version, platform::Os os);

// True for the receipt of a --url install.
struct Receipt;
bool is_user_vouched(const Receipt& receipt);

// `install --list`: what is under home (installed, adopted, user-vouched) and what the manifest
// pins for the channel and OS that is not installed.
enum class Provenance { installed, adopted, user_vouched, not_installed };
std::string_view to_string(Provenance how);  // "installed", "adopted", "user-vouched", "not-installed"
struct Listed {
  std::string id;
  std::string component;
  std::string version;
  std::filesystem::path dir;  // the adopted folder, else where it is (or would be) installed
  std::string family;         // zluda only: upstream, lshqqytiger, unknown; empty otherwise
  bool current = false;       // the component's `current` pointer names it
  Provenance how = Provenance::installed;
};
std::vector<Listed> list(const home::Home& home, const manifest::Manifest& manifest, manifest::Channel channel, platform::Os os);
nlohmann::json to_json(const Listed& item);

nlohmann::json to_json(const Outcome& outcome);

}  // namespace zcuda::install
