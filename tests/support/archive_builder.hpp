#pragma once
// Builds real zip and tar.gz archives with libarchive's writer, including hostile ones that no
// well-behaved tool would produce, for the extraction and install tests.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace zcuda::test {

struct Spec {
  enum class Type { file, directory, symlink, hardlink, char_device, fifo };
  std::string name;
  Type type = Type::file;
  std::string content;  // files
  std::string target;   // symlink and hardlink targets, written as given
  unsigned mode = 0644;
};

inline Spec file(std::string name, std::string content, unsigned mode = 0644) {
  return {std::move(name), Spec::Type::file, std::move(content), {}, mode};
}
inline Spec dir(std::string name) { return {std::move(name), Spec::Type::directory, {}, {}, 0755}; }
inline Spec symlink(std::string name, std::string target) { return {std::move(name), Spec::Type::symlink, {}, std::move(target), 0777}; }
inline Spec hardlink(std::string name, std::string target) { return {std::move(name), Spec::Type::hardlink, {}, std::move(target), 0644}; }

enum class ArchiveType { zip, tar_gz };

// Writes `entries` in order; throws std::runtime_error when libarchive refuses to write one.
void write_archive(const std::filesystem::path& file, ArchiveType type, const std::vector<Spec>& entries);

// The regular files of a zip archive: name -> content (for checking what zcuda wrote).
std::map<std::string, std::string> read_zip(const std::filesystem::path& file);

}  // namespace zcuda::test
