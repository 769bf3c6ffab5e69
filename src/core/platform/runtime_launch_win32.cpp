#include <zcuda/platform/runtime_launch.hpp>

#include <windows.h>

#include <random>
#include <system_error>

#include <zcuda/platform/file_ops.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

Result<std::filesystem::path> current_executable() {
  std::wstring buffer(32768, L'\0');
  const DWORD n = GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
  if (n == 0 || n >= buffer.size()) {
    return fail(ErrorKind::internal, "Could not find the running executable (GetModuleFileNameW error " + std::to_string(GetLastError()) + ")");
  }
  buffer.resize(n);
  return std::filesystem::path(buffer);
}

namespace {

// Environment and argument strings are UTF-8 on every platform.
std::string utf8(const std::filesystem::path& path) {
  const auto text = path.u8string();
  return std::string(reinterpret_cast<const char*>(text.data()), text.size());
}

bool iequals(const std::wstring& a, const std::wstring& b) {
  return CompareStringOrdinal(a.c_str(), static_cast<int>(a.size()), b.c_str(), static_cast<int>(b.size()), TRUE) == CSTR_EQUAL;
}

}  // namespace

Result<RuntimeLaunch> RuntimeLaunch::prepare(const std::filesystem::path& program, const std::optional<std::filesystem::path>& runtime_dir) {
  RuntimeLaunch launch;
  launch.program_ = program;
  launch.environment_ = current_environment();
  if (!runtime_dir) return launch;

  // ZLUDA's own launcher injects its DLLs whatever the search order: the documented way.
  const auto zluda_exe = *runtime_dir / L"zluda.exe";
  std::error_code ec;
  if (std::filesystem::is_regular_file(zluda_exe, ec)) {
    launch.program_ = zluda_exe;
    launch.prefix_args_ = {"--", utf8(program)};
    launch.target_ = program;
    launch.method_ = LaunchMethod::zluda_exe;
    return launch;
  }

  // Otherwise the application-folder rule: a copy of the program beside the runtime's DLLs.
  std::random_device random;
  const auto temp = std::filesystem::temp_directory_path(ec) / (L"zcuda-probe-" + std::to_wstring(random()));
  if (ec || !std::filesystem::create_directories(temp, ec)) {
    return std::unexpected(io_error("create a temporary folder", temp, ec));
  }
  launch.temp_dir_ = temp;  // removed by the destructor, also on the error paths below
  for (const auto& entry : std::filesystem::directory_iterator(*runtime_dir, ec)) {
    if (!entry.is_regular_file() || !iequals(entry.path().extension().wstring(), L".dll")) continue;
    // A hard link costs nothing and keeps the DLL's identity; across volumes it is a copy.
    if (auto placed = link_or_copy(entry.path(), temp / entry.path().filename()); !placed) return std::unexpected(placed.error());
  }
  if (ec) return std::unexpected(io_error("list", *runtime_dir, ec));
  const auto copy = temp / program.filename();
  std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) return std::unexpected(io_error("copy", program, ec));
  launch.program_ = copy;
  // Libraries the runtime loads later by bare name (HIP, rocBLAS) are found through PATH.
  auto& path = launch.environment_[variable_key(launch.environment_, "PATH", Os::windows).value_or("PATH")];
  path = utf8(*runtime_dir) + (path.empty() ? "" : ";" + path);
  launch.method_ = LaunchMethod::copy_beside_dlls;
  return launch;
}

}  // namespace zcuda::platform
