#pragma once
// What `zcuda stage` would do to a program's folder: which runtime files go where, what each
// imported CUDA name will resolve to, and what will not work.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/stage/catalogue.hpp>

namespace zcuda::stage {

// One file of a name map: the runtime's `from` placed as `to`; when `keep_original_as` is set, the
// file of name `to` that is there now (an NVIDIA original) is first kept under that name too.
struct NameMapping {
  std::string from;
  std::string to;
  std::optional<std::string> keep_original_as;
};

struct PlanOptions {
  std::filesystem::path app;          // a program, or a folder of programs
  std::filesystem::path runtime_dir;  // the ZLUDA folder
  bool all = false;                   // place everything the runtime serves next to the program
  platform::Os os = platform::current_os();
  Backends backends;  // from probe_backends_locally() or detect
  // A name map (an application profile's): exactly these files go into `app` (a folder), under
  // these names, instead of what the walk of the program's imports would place.
  std::vector<NameMapping> names;
  // The runtime's ZLUDA family, when the caller knows it already (a launch plan's); otherwise the
  // stage reads it from the runtime's files before placing anything.
  std::optional<family::Identity> runtime_family;
};

// One file the stage places.
struct Placement {
  std::filesystem::path relative;  // target, relative to the app root
  std::filesystem::path source;    // the runtime file
  std::string name;
  std::string family;      // Family::id
  std::string reason;      // why here: "driver library, next to the program", "imported by x.dll", ...
  bool replaces = false;   // a file of that name is there now (it will be backed up)
  bool identical = false;  // it already holds the runtime's bytes: nothing to do
  // The file there now already holds one of the runtime's files (an application's installer
  // placed ZLUDA here): reported as such, never taken for an original.
  bool holds_runtime_file = false;
};

// How one CUDA library name that the program's binaries import will be served.
enum class Service {
  served,          // the runtime provides it and its backend is here
  stub,            // the runtime provides it but answers "not supported"
  no_backend,      // the runtime provides it but this machine lacks the backend (cuDNN without MIOpen)
  not_in_runtime,  // ZLUDA serves the family, but this runtime lacks this version's file
  nvidia,          // ZLUDA does not replace it: NVIDIA's file must be present
};
std::string_view to_string(Service service);

struct ImportedName {
  std::string name;
  std::string library;  // "cuBLAS", "CUDA runtime (cudart)", ...
  Service service = Service::served;
  std::string note;                              // what the user should know
  std::vector<std::filesystem::path> importers;  // relative paths of binaries that import it
  bool present_in_app = false;                   // a file of that name exists in the app tree
};

struct Plan {
  std::filesystem::path root;                    // the app folder (absolute)
  std::optional<std::filesystem::path> program;  // when APP was a program
  std::filesystem::path runtime_dir;
  platform::Os os = platform::Os::linux;
  Backends backends;
  std::vector<Placement> placements;
  std::vector<ImportedName> names;
  std::vector<std::string> unreadable;  // binaries that could not be parsed, with why
  std::size_t binaries_scanned = 0;
  bool journal_present = false;  // the folder is staged (or a stage was interrupted)

  std::size_t changes() const;  // placements that are not already identical
};

// Folder of the stage state inside an app root, and the journal in it.
std::filesystem::path stage_dir(const std::filesystem::path& root);
std::filesystem::path journal_path(const std::filesystem::path& root);

// The app root for APP: the folder itself, or the program's folder.
Result<std::filesystem::path> app_root(const std::filesystem::path& app);

Result<Plan> make_plan(const PlanOptions& options);

// Whether `zcuda run` should stage before launching: the program imports a CUDA library, or
// its folder holds one (served or NVIDIA's). Cheap: reads one binary and lists one folder, so
// running an ordinary program costs no tree walk and never stages into a system folder.
// `listings`: where a launch keeps the folders it listed (nothing: list now).
bool uses_cuda_libraries(const std::filesystem::path& program, platform::Os os, platform::FolderListings* listings = nullptr);

nlohmann::json to_json(const Plan& plan);

}  // namespace zcuda::stage
