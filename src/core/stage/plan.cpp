// Planning a stage: walk the app tree, read each binary's imports, and decide where each
// runtime library goes (docs/staging.md, "Where files go").
#include <zcuda/base/ascii.hpp>
#include <zcuda/stage/plan.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/base/path_text.hpp>

#include <zcuda/base/sha256.hpp>
#include "runtime_digests.hpp"

namespace zcuda::stage {

namespace fs = std::filesystem;
using platform::Os;

namespace {

// Bounds on the walk: a LibTorch application has a few thousand files; more than this is
// probably the wrong folder (a home directory, a drive root).
constexpr std::size_t kMaxEntries = 200000;
constexpr int kMaxDepth = 32;

std::string fold(std::string_view name, Os os) { return os == Os::windows ? ascii_lower(name) : std::string(name); }

bool is_candidate_binary(const fs::directory_entry& entry, Os os) {
  const std::string name = path_to_utf8(entry.path().filename());
  if (os == Os::windows) {
    std::string ext = fold(path_to_utf8(entry.path().extension()), Os::windows);
    return ext == ".exe" || ext == ".dll" || ext == ".pyd";
  }
  if (name.find(".so") != std::string::npos) return true;
  std::error_code ec;
  auto perms = entry.status(ec).permissions();
  return !ec && (perms & fs::perms::owner_exec) != fs::perms::none;
}

// The names the CUDA runtime loads by name at run time, placed next to the program.
bool is_driver_name(std::string_view name, Os os) {
  const std::string n = fold(name, os);
  if (os == Os::windows) return n == "nvcuda.dll" || n == "nvml.dll" || n == "nvapi64.dll" || n == "nvapi.dll";
  return n == "libcuda.so.1" || n == "libnvidia-ml.so.1";
}

struct Binary {
  fs::path relative;
  binfmt::Imports imports;
};

}  // namespace

std::string_view to_string(Service service) {
  switch (service) {
    case Service::served:
      return "served";
    case Service::stub:
      return "stub";
    case Service::no_backend:
      return "no_backend";
    case Service::not_in_runtime:
      return "not_in_runtime";
    case Service::nvidia:
      return "nvidia";
  }
  return "served";
}

std::size_t Plan::changes() const {
  return static_cast<std::size_t>(std::count_if(placements.begin(), placements.end(), [](const Placement& p) { return !p.identical; }));
}

fs::path stage_dir(const fs::path& root) { return root / ".zcuda-stage"; }
fs::path journal_path(const fs::path& root) { return stage_dir(root) / "journal.json"; }

Result<fs::path> app_root(const fs::path& app) {
  std::error_code ec;
  auto status = fs::status(app, ec);
  if (ec || !fs::exists(status)) {
    return fail(ErrorKind::not_found, fmt::format("{} does not exist", app), "Give the path of a program or of its folder.");
  }
  fs::path absolute = fs::weakly_canonical(fs::absolute(app), ec);
  if (ec) return std::unexpected(io_error("resolve", app, ec));
  if (fs::is_directory(status)) return absolute;
  return absolute.parent_path();
}

bool uses_cuda_libraries(const fs::path& program, Os os, platform::FolderListings* listings) {
  auto is_cuda = [os](std::string_view name) { return served_family(name, os) || nvidia_only_library(name, os); };
  if (auto imports = binfmt::read_imports(program); imports && *imports) {
    for (const auto* list : {&(*imports)->needed, &(*imports)->delay_needed}) {
      if (std::any_of(list->begin(), list->end(), is_cuda)) return true;
    }
  }
  platform::FolderListings own;
  if (const auto& entries = (listings != nullptr ? *listings : own).list(program.parent_path())) {
    return std::any_of(entries->begin(), entries->end(), [&](const platform::FolderEntry& e) { return is_cuda(e.name); });
  }
  return false;
}

// make_plan's steps: the plan's frame (folders, and that they do not overlap), the walk of the
// app's tree, the placements (which runtime file goes where, and why), what each imported name
// will resolve to, and the comparison with what is there now.
namespace {

// The app's tree as the walk saw it.
struct Tree {
  std::map<fs::path, std::set<std::string>> files_in;  // folder (relative) -> folded names
  std::map<std::string, std::string> existing_name;    // folded "folder/name" -> real name
  std::vector<Binary> binaries;
};

Result<Plan> plan_frame(const PlanOptions& options) {
  auto root = app_root(options.app);
  if (!root) return std::unexpected(root.error());
  Plan plan;
  plan.root = *root;
  plan.os = options.os;
  plan.backends = options.backends;
  std::error_code ec;
  plan.runtime_dir = fs::weakly_canonical(fs::absolute(options.runtime_dir), ec);
  if (!fs::is_directory(options.app, ec)) plan.program = fs::weakly_canonical(fs::absolute(options.app), ec);
  auto inside = [](const fs::path& a, const fs::path& b) {  // a is b or lies under b
    auto rel = a.lexically_relative(b);
    return !rel.empty() && *rel.begin() != "..";
  };
  if (inside(plan.runtime_dir, plan.root) || inside(plan.root, plan.runtime_dir)) {
    return fail(ErrorKind::usage, fmt::format("The runtime folder {} and the app folder {} overlap", plan.runtime_dir, plan.root),
                "Stage into the program's own folder, not into (or around) the runtime.");
  }
  plan.journal_present = fs::exists(journal_path(plan.root), ec);
  return plan;
}

// Walks the tree: existing file names per folder, and the imports of every binary.
Result<Tree> walk_tree(Plan& plan) {
  const Os os = plan.os;
  Tree tree;
  tree.files_in[fs::path()];
  std::size_t entries = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(plan.root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return std::unexpected(io_error("list", plan.root, ec));
  for (fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return std::unexpected(io_error("list", plan.root, ec));
    if (++entries > kMaxEntries) {
      return fail(ErrorKind::usage, fmt::format("{} holds more than {} files", plan.root, kMaxEntries),
                  "Give the folder of the program itself, not a drive or home folder.");
    }
    const fs::directory_entry& entry = *it;
    const fs::path relative = entry.path().lexically_relative(plan.root);
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) {
      if (relative == stage_dir(fs::path()).filename() || it.depth() >= kMaxDepth) it.disable_recursion_pending();
      continue;
    }
    const std::string name = path_to_utf8(entry.path().filename());
    tree.files_in[relative.parent_path()].insert(fold(name, os));
    tree.existing_name[fold(generic_path_to_utf8(relative.parent_path() / path_from_utf8(name)), os)] = name;
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec) || !is_candidate_binary(entry, os)) continue;
    auto imports = binfmt::read_imports(entry.path());
    if (!imports) {
      plan.unreadable.push_back(imports.error().message);
      continue;
    }
    if (!*imports) continue;
    ++plan.binaries_scanned;
    tree.binaries.push_back(Binary{relative, std::move(**imports)});
  }
  return tree;
}

// Placements, keyed by folded relative target so each target is planned once (the first reason
// given for it stands).
class Placer {
 public:
  Placer(const Plan& plan, const Tree& tree, bool all) : plan_(plan), tree_(tree), all_(all) {}

  void place(const fs::path& folder, const RuntimeFile& file, std::string reason) {
    if (!has_backend(file.family, plan_.backends) && !all_) return;
    // Keep the name the folder already uses (Windows names match case-insensitively).
    const std::string key = fold(generic_path_to_utf8(folder / path_from_utf8(file.name)), plan_.os);
    std::string name = file.name;
    if (auto found = tree_.existing_name.find(key); found != tree_.existing_name.end()) name = found->second;
    auto [slot, inserted] = placements_.try_emplace(key);
    if (!inserted) return;
    slot->second.relative = folder / path_from_utf8(name);
    slot->second.source = file.path;
    slot->second.name = name;
    slot->second.family = std::string(file.family.id);
    slot->second.reason = std::move(reason);
  }

  // The folders that received the CUDA driver library.
  std::vector<fs::path> driver_folders() const {
    std::vector<fs::path> folders;
    for (const auto& [key, p] : placements_) {
      if (p.family == "cuda") folders.push_back(p.relative.parent_path());
    }
    return folders;
  }

  std::map<std::string, Placement>& placements() { return placements_; }

 private:
  const Plan& plan_;
  const Tree& tree_;
  bool all_;
  std::map<std::string, Placement> placements_;
};

using RuntimeByName = std::map<std::string, const RuntimeFile*>;

// Which runtime file goes where, and the CUDA names the binaries import (folded name -> entry).
std::map<std::string, ImportedName> place_runtime(const std::vector<RuntimeFile>& runtime, const RuntimeByName& runtime_by_name, const Tree& tree,
                                                  bool all, Os os, Placer& placer) {
  for (const auto& f : runtime) {
    if (f.family.driver_level && is_driver_name(f.name, os)) placer.place(fs::path(), f, "driver library, loaded by name: next to the program");
  }
  std::map<std::string, ImportedName> names;
  for (const auto& b : tree.binaries) {
    std::vector<std::string> all_imports = b.imports.needed;
    all_imports.insert(all_imports.end(), b.imports.delay_needed.begin(), b.imports.delay_needed.end());
    for (const auto& imported : all_imports) {
      const std::string key = fold(imported, os);
      auto family = served_family(imported, os);
      auto nvidia = family ? std::nullopt : nvidia_only_library(imported, os);
      if (!family && !nvidia) continue;
      auto& entry = names[key];
      if (entry.name.empty()) {
        entry.name = imported;
        entry.library = std::string(family ? family->display : *nvidia);
      }
      entry.importers.push_back(b.relative);
      if (auto rt = runtime_by_name.find(key); rt != runtime_by_name.end()) {
        placer.place(b.relative.parent_path(), *rt->second, fmt::format("imported by {}", generic_path_to_utf8(b.relative)));
      }
    }
  }
  // A file of a served name already in a folder is replaced there: the loader would find it.
  for (const auto& [folder, folded_names] : tree.files_in) {
    for (const auto& n : folded_names) {
      if (auto rt = runtime_by_name.find(n); rt != runtime_by_name.end()) placer.place(folder, *rt->second, "a file of that name is here");
    }
  }
  if (all) {
    for (const auto& f : runtime) placer.place(fs::path(), f, "--all");
  }
  // ZLUDA's nvcuda.dll loads its CUDA-runtime companion from its own folder.
  for (const auto& f : runtime) {
    if (!is_driver_companion(f.name, os)) continue;
    for (const auto& folder : placer.driver_folders()) placer.place(folder, f, "companion of nvcuda.dll");
  }
  return names;
}

// What each imported name will resolve to, into plan.names.
void resolve_names(std::map<std::string, ImportedName>& names, const RuntimeByName& runtime_by_name, const Tree& tree, Plan& plan) {
  for (auto& [key, entry] : names) {
    for (const auto& [folder, folded_names] : tree.files_in) {
      if (folded_names.contains(key)) entry.present_in_app = true;
    }
    if (auto family = served_family(entry.name, plan.os)) {
      auto rt = runtime_by_name.find(key);
      if (rt == runtime_by_name.end()) {
        entry.service = Service::not_in_runtime;
        entry.note = fmt::format("this runtime has no {}; {} calls will not reach the GPU", entry.name, family->display);
      } else if (!has_backend(*family, plan.backends)) {
        entry.service = Service::no_backend;
        entry.note = fmt::format("{} needs {}, which this machine lacks ({}); not staged, so the program fails when it uses {}", family->display,
                                 family->backend, plan.backends.miopen_evidence, family->display);
      } else if (!family->stub_note.empty()) {
        entry.service = Service::stub;
        entry.note = std::string(family->stub_note);
      } else {
        entry.service = Service::served;
        entry.note = fmt::format("served by ZLUDA through {}", family->backend);
      }
    } else {
      entry.service = Service::nvidia;
      entry.note = entry.present_in_app ? fmt::format("ZLUDA does not replace {}: NVIDIA's file stays in use", entry.library)
                                        : fmt::format(
                                              "ZLUDA does not replace {}, and NVIDIA's {} is not in the app folder: the program "
                                              "needs it next to it or on PATH",
                                              entry.library, entry.name);
    }
    plan.names.push_back(std::move(entry));
  }
}

// A name map's placements (PlanOptions::names), in the map's order: the original kept under its
// second name first, so that the replacement's backup and the kept copy hold the same bytes.
// A source the runtime lacks becomes a name the plan says it cannot serve.
std::vector<std::pair<std::string, Placement>> place_mapped(const std::vector<NameMapping>& names, const Tree& tree, Plan& plan) {
  const Os os = plan.os;
  std::vector<std::pair<std::string, Placement>> out;
  auto find_in_root = [&](const std::string& name) -> std::optional<std::string> {
    auto found = tree.existing_name.find(fold(name, os));
    if (found == tree.existing_name.end()) return std::nullopt;
    return found->second;
  };
  for (const auto& mapping : names) {
    std::optional<fs::path> source;
    std::error_code ec;
    for (fs::directory_iterator it(plan.runtime_dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (same_name(path_to_utf8(it->path().filename()), mapping.from, os)) source = fs::canonical(it->path(), ec);
    }
    const auto served = served_family(mapping.to, os);
    if (!source) {
      ImportedName missing{mapping.to,
                           std::string(served ? served->display : "CUDA library"),
                           Service::not_in_runtime,
                           fmt::format("this runtime has no {} to place as {}", mapping.from, mapping.to),
                           {},
                           find_in_root(mapping.to).has_value()};
      plan.names.push_back(std::move(missing));
      continue;
    }
    const auto existing = find_in_root(mapping.to);
    if (mapping.keep_original_as && existing && !find_in_root(*mapping.keep_original_as)) {
      Placement keep;
      keep.relative = path_from_utf8(*mapping.keep_original_as);
      keep.source = plan.root / path_from_utf8(*existing);
      keep.name = *mapping.keep_original_as;
      keep.reason = fmt::format("the original {} kept under this name, as the application's installer does", *existing);
      out.emplace_back(fold(*mapping.keep_original_as, os), std::move(keep));
    }
    Placement p;
    p.name = existing.value_or(mapping.to);
    p.relative = path_from_utf8(p.name);
    p.source = *source;
    p.family = served ? std::string(served->id) : std::string();
    p.reason = fmt::format("{} placed as {} (the application's names)", mapping.from, mapping.to);
    out.emplace_back(fold(mapping.to, os), std::move(p));
  }
  return out;
}

// Whether `target` holds the bytes of one of the runtime's files (compared by size first).
Result<bool> holds_a_runtime_file(const fs::path& target, const std::vector<fs::path>& runtime, detail::RuntimeDigests& digests) {
  std::error_code ec;
  const auto size = fs::file_size(target, ec);
  if (ec) return false;
  std::optional<std::string> digest;
  for (const auto& file : runtime) {
    if (fs::file_size(file, ec) != size || ec) continue;
    if (!digest) {
      auto hashed = sha256_file(target);
      if (!hashed) return std::unexpected(hashed.error());
      digest = *hashed;
    }
    auto source_digest = digests.digest(file);
    if (!source_digest) return std::unexpected(source_digest.error());
    if (*source_digest == *digest) return true;
  }
  return false;
}

// Compares each placement with what is there now, into plan.placements.
template <typename Placements>
Status compare_with_targets(Placements& placements, const std::vector<RuntimeFile>& runtime_files, Plan& plan) {
  // The runtime's files: those it serves by name, and those a name map places.
  std::vector<fs::path> runtime;
  for (const auto& f : runtime_files) runtime.push_back(f.path);
  for (const auto& [key, p] : placements) {
    if (p.source.parent_path() == plan.runtime_dir && std::find(runtime.begin(), runtime.end(), p.source) == runtime.end())
      runtime.push_back(p.source);
  }
  detail::RuntimeDigests source_digests(plan.runtime_dir);
  std::error_code ec;
  for (auto& [key, p] : placements) {
    const fs::path target = plan.root / p.relative;
    auto status = fs::symlink_status(target, ec);
    p.replaces = !ec && fs::exists(status);
    if (p.replaces && fs::is_directory(status)) {
      return fail(ErrorKind::conflict, fmt::format("{} is a folder, where {} should go", target, p.name));
    }
    if (p.replaces && fs::is_regular_file(status)) {
      if (fs::equivalent(target, p.source, ec)) {
        p.identical = true;
      } else if (fs::file_size(target, ec) == fs::file_size(p.source, ec)) {
        // Sizes first: hashing a large file that cannot match is wasted time.
        auto source_digest = source_digests.digest(p.source);
        if (!source_digest) return std::unexpected(source_digest.error());
        auto digest = sha256_file(target);
        if (!digest) return std::unexpected(digest.error());
        p.identical = *digest == *source_digest;
      }
      // Outside a stage of zcuda's, a runtime file here was put by someone else: the app's installer.
      if (!plan.journal_present) {
        auto held = p.identical ? Result<bool>(true) : holds_a_runtime_file(target, runtime, source_digests);
        if (!held) return std::unexpected(held.error());
        p.holds_runtime_file = *held;
      }
    }
    plan.placements.push_back(std::move(p));
  }
  return {};
}

// Windows: the runtime folder whose DLLs fit the program's machine. A 32-bit (x86) program
// takes the runtime's 32 folder (ZLUDA's release keeps its 32-bit nvcuda.dll and nvapi.dll
// there); a 64-bit program cannot use a 32 folder given as the runtime. 64-bit DLLs in a 32-bit
// program fail with "initialization routine failed". A folder of programs, or files that do not
// parse, keep the runtime as given.
Result<fs::path> runtime_for_program(const PlanOptions& options) {
  std::error_code ec;
  if (options.os != Os::windows || !fs::is_regular_file(options.app, ec)) return options.runtime_dir;
  auto program = binfmt::read_imports(options.app);
  if (!program || !*program || (*program)->format != binfmt::Format::pe) return options.runtime_dir;
  auto driver = binfmt::read_imports(options.runtime_dir / "nvcuda.dll");
  const bool runtime_is_32bit = driver && *driver && binfmt::is_x86_32_pe(**driver);
  const bool program_is_32bit = binfmt::is_x86_32_pe(**program);
  if (program_is_32bit == runtime_is_32bit) return options.runtime_dir;
  if (!program_is_32bit) {
    return fail(ErrorKind::usage, fmt::format("{} is a 64-bit program, and {} holds ZLUDA's 32-bit DLLs", options.app, options.runtime_dir),
                fmt::format("Give the folder above it ({}), which holds the 64-bit ones.", options.runtime_dir.parent_path()));
  }
  const fs::path folder32 = options.runtime_dir / "32";
  if (!fs::is_regular_file(folder32 / "nvcuda.dll", ec)) {
    return fail(
        ErrorKind::unsupported,
        fmt::format("{} is a 32-bit program, and this ZLUDA ({}) has no 32-bit libraries (no 32\\nvcuda.dll)", options.app, options.runtime_dir),
        "ZLUDA's 64-bit DLLs cannot load into a 32-bit program (Windows would say \"initialization routine failed\"). Use a ZLUDA "
        "build that ships a 32 folder (some of vosen/ZLUDA's v7 previews carry one), or the program's 64-bit version.");
  }
  return folder32;
}

}  // namespace

Result<Plan> make_plan(const PlanOptions& given) {
  auto runtime_dir = runtime_for_program(given);
  if (!runtime_dir) return std::unexpected(runtime_dir.error());
  PlanOptions options = given;
  options.runtime_dir = *runtime_dir;
  auto plan = plan_frame(options);
  if (!plan) return std::unexpected(plan.error());
  auto runtime = scan_runtime(options.runtime_dir, options.os);
  if (!runtime) return std::unexpected(runtime.error());
  auto tree = walk_tree(*plan);
  if (!tree) return std::unexpected(tree.error());

  if (!options.names.empty()) {
    auto mapped = place_mapped(options.names, *tree, *plan);
    if (auto compared = compare_with_targets(mapped, *runtime, *plan); !compared) return std::unexpected(compared.error());
    return plan;
  }
  RuntimeByName runtime_by_name;
  for (const auto& f : *runtime) runtime_by_name[fold(f.name, options.os)] = &f;
  Placer placer(*plan, *tree, options.all);
  auto names = place_runtime(*runtime, runtime_by_name, *tree, options.all, options.os, placer);
  resolve_names(names, runtime_by_name, *tree, *plan);
  if (auto compared = compare_with_targets(placer.placements(), *runtime, *plan); !compared) return std::unexpected(compared.error());
  return plan;
}

}  // namespace zcuda::stage

namespace zcuda::stage {

nlohmann::json to_json(const Plan& plan) {
  using nlohmann::json;
  json placements = json::array();
  for (const auto& p : plan.placements) {
    placements.push_back({{"path", generic_path_to_utf8(p.relative)},
                          {"name", p.name},
                          {"family", p.family},
                          {"source", path_to_utf8(p.source)},
                          {"reason", p.reason},
                          {"holds_runtime_file", p.holds_runtime_file},
                          {"action", p.identical ? "unchanged" : (p.replaces ? "replace" : "add")}});
  }
  json names = json::array();
  for (const auto& n : plan.names) {
    json importers = json::array();
    for (const auto& i : n.importers) importers.push_back(generic_path_to_utf8(i));
    names.push_back({{"name", n.name},
                     {"library", n.library},
                     {"service", to_string(n.service)},
                     {"note", n.note},
                     {"present_in_app", n.present_in_app},
                     {"importers", importers}});
  }
  return {{"root", path_to_utf8(plan.root)},
          {"program", plan.program ? json(path_to_utf8(*plan.program)) : json(nullptr)},
          {"runtime", path_to_utf8(plan.runtime_dir)},
          {"os", platform::os_id(plan.os)},
          {"backends", {{"miopen", plan.backends.miopen}, {"miopen_evidence", plan.backends.miopen_evidence}}},
          {"binaries_scanned", plan.binaries_scanned},
          {"unreadable", plan.unreadable},
          {"changes", plan.changes()},
          {"staged_before", plan.journal_present},
          {"placements", placements},
          {"names", names}};
}

}  // namespace zcuda::stage
