#pragma once
// `zcuda install --adopt DIR`: registers a ZLUDA folder an application's installer made
// (ComfyUI-Zluda's zluda\, SD.Next's .zluda) under a name, without copying or touching it. The
// receipt (installs/zluda/<name>.receipt.json, marked adopted) holds every file's size and
// SHA-256 and the family; the name then works wherever an installed version's does
// (docs/install.md, "Adopting an application's ZLUDA").
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/home/home.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::install {

struct Adoption {
  std::string name;
  std::filesystem::path dir;  // absolute
  family::Identity identity;
  Receipt receipt;
};

// Hashes every file of `dir`, identifies its family and writes the receipt. Refuses a folder
// without a ZLUDA library (invalid_input) and a name already used by an install or adoption
// (usage). An empty name: derived from the family and release, else from the folder's name.
Result<Adoption> adopt(const std::filesystem::path& dir, const std::string& name, const home::Home& home, platform::Os os);

// The name zcuda gives an adoption of `dir` when none is given.
std::string default_adoption_name(const std::filesystem::path& dir, const family::Identity& identity);

// The names an adopted or user-vouched runtime may take: letters, digits, '.', '-', '_', '+', not
// starting with '.', none of current, native, zluda, auto (usage error otherwise).
Status check_runtime_name(const std::string& name);
// `text` with every other character replaced by '-' and leading dots and dashes dropped.
std::string sanitized_runtime_name(std::string text);

struct AdoptedRuntime {
  std::string name;
  std::filesystem::path dir;
  std::vector<std::string> changed;  // files whose size or type differs from the receipt (stat only)
  std::filesystem::path receipt;     // the adoption's receipt file, which describes `dir`
};

// The adopted runtime called `name`: nullopt when no adoption has that name, not_found when its
// folder is gone. Changed files are reported, not refused: the caller warns.
Result<std::optional<AdoptedRuntime>> find_adopted(const home::Home& home, const std::string& name);

// The one warning every command prints for changed files of an adopted runtime.
std::string changed_warning(const AdoptedRuntime& runtime);

}  // namespace zcuda::install
