// The fatbin check (llama.cpp, docs/apps.md): does the application's CUDA library carry PTX that
// ZLUDA will compile for the compute capability it reports?
#include <zcuda/apps/check.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/binfmt/binfmt.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The library the check reads: the first of the profile's marker files that exists under the
// application's folder, else the file the user gave.
std::optional<fs::path> library_of(const Match& match, const fs::path& app) {
  std::error_code ec;
  for (const auto& marker : match.profile.recognise) {
    for (const auto& rel : marker.exists) {
      const fs::path candidate = match.root / path_from_utf8(rel);
      if (fs::is_regular_file(candidate, ec)) return candidate;
    }
  }
  if (fs::is_regular_file(app, ec)) return app;
  return std::nullopt;
}

struct Target {
  binfmt::ImageKind kind;
  std::uint32_t arch;
  binfmt::Compression compression;
  auto key() const { return std::tuple(kind, arch, compression); }
};

// The distinct targets, by kind and architecture (a library holds one fat binary per source file).
json targets_json(const std::vector<binfmt::FatbinImage>& images) {
  std::map<std::tuple<binfmt::ImageKind, std::uint32_t, binfmt::Compression>, std::size_t> counts;
  for (const auto& i : images) ++counts[{i.kind, i.arch, i.compression}];
  json out = json::array();
  for (const auto& [key, count] : counts) {
    const auto& [kind, arch, compression] = key;
    binfmt::FatbinImage image;
    image.kind = kind;
    image.arch = arch;
    out.push_back(
        {{"target", image.target()}, {"kind", to_string(kind)}, {"arch", arch}, {"compression", to_string(compression)}, {"images", count}});
  }
  return out;
}

std::string targets_text(const json& targets) {
  std::string out;
  for (const auto& t : targets) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} ({}{})", t["target"].get<std::string>(), t["kind"].get<std::string>() == "ptx" ? "PTX" : t["kind"].get<std::string>(),
                       t["compression"] == "none" ? "" : ", " + t["compression"].get<std::string>());
  }
  return out.empty() ? "none" : out;
}

std::string hint_for(const std::vector<std::uint32_t>& ptx_archs, const ReportedCc& cc, const std::optional<family::Facts>& facts) {
  std::string hint;
  const bool reads_cc = !cc.variables.empty();
  if (!ptx_archs.empty() && reads_cc) {
    const std::uint32_t lowest = *std::min_element(ptx_archs.begin(), ptx_archs.end());
    hint += fmt::format("Set {}={}.{} so ZLUDA reports a capability the PTX fits, or rebuild", cc.variables.front(), lowest / 10, lowest % 10);
  } else {
    hint += "Rebuild";
  }
  hint += fmt::format(
      " llama.cpp with a lower -DCMAKE_CUDA_ARCHITECTURES that keeps PTX (a plain number such as \"{}\" embeds PTX and a cubin; "
      "\"NN-real\" embeds no PTX)",
      cc.value() >= 75 ? 75 : cc.value());
  if (!reads_cc && facts) hint += fmt::format("; this {} runtime reads no variable that changes its {}", to_string(facts->family), cc.text());
  hint +=
      ". -DGGML_CUDA_FORCE_CUBLAS=true sends matrix products to cuBLAS (ZLUDA's rocBLAS) instead of ggml's own kernels (upstream's "
      "docs/src/llama_cpp.md).";
  return hint;
}

}  // namespace

std::string ReportedCc::text() const { return fmt::format("{}.{}", major, minor); }

ReportedCc reported_cc(family::Family family, const std::optional<std::string>& release, const platform::Environment& environment, platform::Os os) {
  ReportedCc cc{8, 5, "upstream's default", std::nullopt, {}};
  const auto facts = family::facts(family == family::Family::unknown ? family::Family::upstream : family);
  if (facts) {
    if (auto parsed = family::parse_cc(family::default_cc(*facts, release))) std::tie(cc.major, cc.minor) = *parsed;
    cc.from = release ? fmt::format("{}'s default in release {}", to_string(facts->family), *release)
                      : fmt::format("{}'s default", to_string(facts->family));
  }
  auto value_of = [&](std::string_view name) -> std::optional<std::string> {
    auto key = platform::variable_key(environment, name, os);
    if (!key) return std::nullopt;
    return environment.at(*key);
  };
  // Upstream takes the first of its variables that is set at all (an empty ZLUDA_CC too) and falls
  // back to the default when it does not parse; releases before v6-preview.63 read none
  // (zluda_common/src/constants.rs).
  const std::vector<std::string> read = facts ? family::cc_variables_read(*facts, release) : std::vector<std::string>{};
  cc.variables = read;
  if (auto setting = family::cc_setting_read(read, value_of)) {
    if (setting->parsed) {
      std::tie(cc.major, cc.minor) = *setting->parsed;
      cc.from = fmt::format("{}={}", setting->variable, setting->value);
    } else {
      cc.ignored = fmt::format("{}=\"{}\" is not a compute capability; ZLUDA falls back to its default{}", setting->variable, setting->value,
                               setting->variable == "ZLUDA_CC" && value_of("ZLUDA_SM") ? " and does not read ZLUDA_SM" : "");
    }
    return cc;
  }
  if (facts && read.empty()) {
    for (const char* name : {"ZLUDA_CC", "ZLUDA_SM"}) {
      if (!value_of(name)) continue;
      cc.ignored = facts->cc_variables.empty()
                       ? fmt::format("{} is set, but a {} runtime does not read it", name, to_string(facts->family))
                       : fmt::format("{} is set, but {} release {} does not read it (ZLUDA_CC and ZLUDA_SM are read since {})", name,
                                     to_string(facts->family), release.value_or("?"), facts->cc_variables_since);
    }
  }
  return cc;
}

void run_fatbin_check(const Match& match, const fs::path& app, const ReportedCc& cc, family::Family family, CheckRecord& record) {
  record.check = Check::fatbin;
  json& f = record.facts;
  f = json::object();
  f["compute_capability"] = cc.text();
  f["compute_capability_from"] = cc.from;
  if (cc.ignored) f["compute_capability_note"] = *cc.ignored;
  f["family"] = to_string(family);
  const auto library = library_of(match, app);
  if (!library) {
    record.status = CheckStatus::error;
    record.reason = fmt::format("no library of profile {} was found in {}", match.profile.name, path_to_utf8(match.root));
    return;
  }
  f["library"] = path_to_utf8(*library);
  auto images = binfmt::file_fatbin_images(*library);
  if (!images) {
    record.status = CheckStatus::error;
    record.reason = images.error().message;
    return;
  }
  f["images"] = images->size();
  f["targets"] = targets_json(*images);
  std::vector<std::uint32_t> ptx;
  for (const auto& i : *images) {
    if (i.kind == binfmt::ImageKind::ptx) ptx.push_back(i.arch);
  }
  // What ZLUDA compiles: in each fat binary, its PTX images taken in reverse order, the first that
  // parses, whatever the compute capability (zluda/src/impl/module.rs get_best_ptx_and_compile:
  // ".rev() // TODO: actually sort by SM"). zcuda does not parse PTX, so it names the last PTX
  // image of each fat binary, the one upstream tries first.
  std::map<std::size_t, std::uint32_t> last_ptx;
  for (const auto& i : *images) {
    if (i.kind == binfmt::ImageKind::ptx) last_ptx[i.fatbin] = i.arch;
  }
  std::vector<std::uint32_t> used;
  for (const auto& [index, arch] : last_ptx) {
    if (std::find(used.begin(), used.end(), arch) == used.end()) used.push_back(arch);
  }
  std::sort(used.begin(), used.end());
  std::string used_text;
  for (auto a : used) used_text += fmt::format("{}compute_{}", used_text.empty() ? "" : ", ", a);
  f["ptx_used"] = used.empty() ? json(nullptr) : json(used_text);
  // ggml-cuda's own rule at start-up: one of its architectures at or below the device's.
  const bool fits = std::any_of(ptx.begin(), ptx.end(), [&](std::uint32_t a) { return static_cast<int>(a) <= cc.value(); });
  const std::string where = fmt::format("{} ({})", cc.text(), cc.from);
  if (images->empty()) {
    record.status = CheckStatus::fail;
    record.reason = fmt::format("{} carries no CUDA device code (no fat binary)", path_to_utf8(library->filename()));
  } else if (fits) {
    record.status = CheckStatus::pass;
    const bool above = std::any_of(used.begin(), used.end(), [&](std::uint32_t a) { return static_cast<int>(a) > cc.value(); });
    record.reason = fmt::format(
        "PTX at or below the compute capability ZLUDA reports, {}, is there, so ggml-cuda starts; ZLUDA compiles {} (in each fat binary "
        "the last PTX that parses, not the one that fits the capability){}",
        where, used_text, above ? "; that PTX targets a higher architecture than ZLUDA reports, which ZLUDA compiles all the same" : "");
    return;
  } else {
    record.status = CheckStatus::fail;
    record.reason = fmt::format(
        "no PTX at or below the compute capability ZLUDA reports, {}; {} holds {}. ZLUDA compiles PTX only (cubins are NVIDIA machine "
        "code), and ggml-cuda stops with \"ggml was not compiled with any CUDA arch <= {}\" when none of its architectures fits",
        where, path_to_utf8(library->filename()), targets_text(f["targets"]), cc.value() * 10);
  }
  f["hint"] = hint_for(ptx, cc, family::facts(family == family::Family::unknown ? family::Family::upstream : family));
}

}  // namespace zcuda::apps
