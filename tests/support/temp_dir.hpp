#pragma once
#include <filesystem>
#include <string_view>

namespace zcuda::test {

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Writes `content` to `path`, creating parent folders.
void write_file(const std::filesystem::path& path, std::string_view content);
std::string read_file(const std::filesystem::path& path);
// A path given as UTF-8 text (what zcuda prints and writes in JSON), on every platform.
inline std::string read_file(const std::string& utf8_path) {
  return read_file(std::filesystem::path(std::u8string(utf8_path.begin(), utf8_path.end())));
}
inline std::string read_file(const char* utf8_path) { return read_file(std::string(utf8_path)); }

}  // namespace zcuda::test
