#pragma once
#include <filesystem>

#include <zcuda/base/error.hpp>

namespace zcuda::launch {

// zcuda-probe: the file beside the running zcuda (a test build's hook may name another). verify
// runs its checks in it; launch learns from its argument echo how a zluda.exe joins arguments.
Result<std::filesystem::path> find_probe();

}  // namespace zcuda::launch
