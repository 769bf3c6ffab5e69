// The git commits a binary names in its bytes (the build identity ZLUDA's 32-bit nvcuda.dll and
// zluda64_server.exe compare), and a plain search of a file's bytes. Both stream the file: a
// server can be tens of megabytes.
#include <algorithm>
#include <array>
#include <fstream>
#include <functional>

#include <zcuda/base/io_error.hpp>
#include <zcuda/binfmt/binfmt.hpp>

namespace zcuda::binfmt {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kCommitLength = 40;

// Calls `take` with each chunk of the file, in order; stops early when it answers false.
Status each_chunk(const fs::path& file, const std::function<bool(std::string_view)>& take) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(open_for_reading_error(file, std::error_code(errno, std::generic_category())));
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    if (!take(std::string_view(buffer.data(), got))) return {};
  }
  if (in.bad()) return std::unexpected(io_error("read", file, std::error_code(EIO, std::generic_category())));
  return {};
}

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

Result<std::vector<std::string>> embedded_commit_ids(const fs::path& file) {
  std::vector<std::string> ids;
  std::string run;  // the current run of hex digits, kept while it could still be a commit
  std::size_t run_length = 0;
  auto end_run = [&] {
    if (run_length == kCommitLength && std::find(ids.begin(), ids.end(), run) == ids.end()) ids.push_back(run);
    run.clear();
    run_length = 0;
  };
  auto read = each_chunk(file, [&](std::string_view chunk) {
    for (char c : chunk) {
      if (!is_lower_hex(c)) {
        end_run();
        continue;
      }
      if (++run_length <= kCommitLength) run += c;
    }
    return true;
  });
  if (!read) return std::unexpected(read.error());
  end_run();
  return ids;
}

Result<std::vector<std::string>> known_commit_ids(const fs::path& file, const std::set<std::string>& wanted) {
  std::vector<std::string> found;
  std::string window;  // the last (up to 40) digits of the current run of hex digits
  auto read = each_chunk(file, [&](std::string_view chunk) {
    for (char c : chunk) {
      if (!is_lower_hex(c)) {
        window.clear();
        continue;
      }
      if (window.size() == kCommitLength) window.erase(0, 1);
      window += c;
      if (window.size() == kCommitLength && wanted.contains(window) && std::find(found.begin(), found.end(), window) == found.end()) {
        found.push_back(window);
      }
    }
    return true;
  });
  if (!read) return std::unexpected(read.error());
  return found;
}

Result<bool> file_contains(const fs::path& file, std::string_view text) {
  if (text.empty()) return true;
  bool found = false;
  std::string carry;  // the last text.size()-1 bytes of the previous chunk: a match may straddle two
  auto read = each_chunk(file, [&](std::string_view chunk) {
    std::string window = carry;
    window.append(chunk);
    found = window.find(text) != std::string::npos;
    carry = window.substr(window.size() - std::min(window.size(), text.size() - 1));
    return !found;
  });
  if (!read) return std::unexpected(read.error());
  return found;
}

}  // namespace zcuda::binfmt
