#pragma once
// A zip's central directory, read by zcuda itself: libarchive's seekable zip reader takes each
// entry's name from its local header, so it cannot say whether the two disagree.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::archive::detail {

struct CentralEntry {
  std::string name;        // as stored
  std::uint64_t size = 0;  // uncompressed
  std::uint32_t crc = 0;
  bool directory = false;
  bool symlink = false;  // made on Unix with a link mode
};

// Every central directory record (zip64 included). Each is checked against the local header it
// points at: the same name, CRC-32 and sizes (from the data descriptor when the local header
// defers them). `problem` names the first record that disagrees, for the caller's refusal.
struct CentralDirectory {
  std::vector<CentralEntry> entries;
  std::string problem_entry;  // empty when every local header agrees
  std::string problem;
};
Result<CentralDirectory> read_central_directory(const std::filesystem::path& file);

}  // namespace zcuda::archive::detail
