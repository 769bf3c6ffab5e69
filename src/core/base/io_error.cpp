#include <zcuda/base/io_error.hpp>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>

namespace zcuda {

Error io_error(std::string_view action, const std::filesystem::path& path, std::error_code ec) {
  Error error{ErrorKind::io, fmt::format("Could not {} {}: {}", action, path, ec.message()), {}, {}};
  if (ec == std::errc::no_space_on_device || ec == std::errc::file_too_large) {
    error.hint = "The disk is full. Free some space (or choose another folder with --home) and run the command again; nothing was left half-written.";
  } else if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted) {
    error.hint = "Check that you may write there, or choose another folder with --home.";
  } else if (ec == std::errc::read_only_file_system) {
    error.hint = "The file system is read-only; choose another folder with --home.";
  }
  return error;
}

Error open_for_reading_error(const std::filesystem::path& path, std::error_code ec) {
  if (ec == std::errc::no_such_file_or_directory) return Error{ErrorKind::not_found, fmt::format("{} does not exist", path), {}, {}};
  return io_error("read", path, ec);
}

}  // namespace zcuda
