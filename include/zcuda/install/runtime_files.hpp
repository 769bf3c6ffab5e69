#pragma once
// Where an installed ZLUDA version keeps its libraries. Launch, verify, the family record and
// --list all ask this one question, so they agree on which folder is the runtime.
#include <filesystem>
#include <optional>

namespace zcuda::install {

// The folder holds ZLUDA's driver (nvcuda.dll, or libcuda.so.1 as upstream's Linux archive links it).
bool holds_driver(const std::filesystem::path& dir);

// The version folder itself, the zluda/ folder the release archives hold, or the one top folder
// an archive from --url brought; nullopt when none of them holds the driver.
std::optional<std::filesystem::path> runtime_files_dir(const std::filesystem::path& version_dir);

}  // namespace zcuda::install
