#pragma once
// ZLUDA's 32-bit CUDA (the runtime's "32" folder, for 32-bit programs): the 32-bit nvcuda.dll does its
// work in zluda64_server.exe, a 64-bit process it starts. It starts the one in the folder above
// its own (<its folder>\..), and only when that cannot be started %ZLUDA64_PATH%\zluda64_server.exe;
// the two must come from the same build (the same git commit), or the DLL gives up
// (vosen/ZLUDA zluda32/src/ipc.rs: Server::start, read_git_version).
#include <filesystem>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::launch {

inline constexpr const char* kServer32Name = "zluda64_server.exe";

// The server a 32-bit nvcuda.dll in `dll_folder` starts: the one beside the folder when it is
// there, else the one in `zluda64_path`.
std::filesystem::path server_for_dll_folder(const std::filesystem::path& dll_folder, const std::filesystem::path& zluda64_path);

// Checks that every folder in `dll_folders` finds a server (with ZLUDA64_PATH set to
// `runtime64`, the folder above the 32 folder) and that each server comes from the build of
// `dll`: the server holds one of the commits the DLL names. A DLL that names no commit cannot be
// compared and passes.
Status check_server32(const std::filesystem::path& dll, const std::vector<std::filesystem::path>& dll_folders,
                      const std::filesystem::path& runtime64);

}  // namespace zcuda::launch
