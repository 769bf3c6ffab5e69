#pragma once
// One error type for the whole core: what happened, what the user can do, and the exit code
// `main` turns it into. Errors are values; no exception crosses a module boundary.
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace zcuda {

// Each kind of failure has its own exit code (docs/cli.md lists them).
enum class ErrorKind {
  usage,          // 2: the command line is wrong
  not_found,      // 3: a file, folder, program or library the user named does not exist
  invalid_input,  // 4: a manifest, JSON or other input is malformed
  network,        // 5: a download failed after every retry and mirror
  integrity,      // 6: bytes differ from what was pinned (digest or size), or a hostile archive
  incomplete,     // 7: a transfer ended before all bytes arrived
  io,             // 8: reading or writing files failed (full disk, permissions)
  locked,         // 9: another zcuda holds the lock
  environment,    // 10: the machine lacks something zcuda needs (GPU, driver, HIP SDK)
  conflict,       // 11: zcuda refuses to touch a file the user changed
  interrupted,    // 12: stopped by Ctrl-C or a signal
  unsupported,    // 13: the request cannot be done on this platform or with this input
  mixed_family,   // 14: a launch would load two ZLUDA families (upstream, lshqqytiger) into one process
  internal,       // 70: a bug in zcuda
};

int exit_code(ErrorKind kind);
std::string_view to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;             // what happened, one sentence
  std::string hint;                // what to do about it; may be empty
  std::vector<std::string> notes;  // supporting details (paths, codes, digests)

  Error& with_note(std::string note) & {
    notes.push_back(std::move(note));
    return *this;
  }
  Error&& with_note(std::string note) && {
    notes.push_back(std::move(note));
    return std::move(*this);
  }
};

template <class T>
using Result = std::expected<T, Error>;
using Status = std::expected<void, Error>;

inline std::unexpected<Error> fail(ErrorKind kind, std::string message, std::string hint = {}) {
  return std::unexpected(Error{kind, std::move(message), std::move(hint), {}});
}

}  // namespace zcuda
