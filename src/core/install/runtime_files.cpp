#include <zcuda/install/runtime_files.hpp>

#include <system_error>
#include <vector>

namespace zcuda::install {

namespace fs = std::filesystem;

bool holds_driver(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "nvcuda.dll", ec) || fs::exists(dir / "libcuda.so.1", ec);
}

std::optional<fs::path> runtime_files_dir(const fs::path& version_dir) {
  if (holds_driver(version_dir)) return version_dir;
  if (holds_driver(version_dir / "zluda")) return version_dir / "zluda";
  std::error_code ec;
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(version_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) folders.push_back(it->path());
  }
  if (folders.size() == 1 && holds_driver(folders.front())) return folders.front();
  return std::nullopt;
}

}  // namespace zcuda::install
