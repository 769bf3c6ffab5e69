#pragma once
#include <filesystem>
#include <string>

#include <zcuda/base/error.hpp>

namespace zcuda::logbook {

enum class Verbosity { quiet, normal, verbose, debug };

// Console messages go to stderr at a level set by -q/-v; the log file under home receives the
// full debug record of every command whatever the console shows. Returns the log file path,
// or an error when it could not be opened (the command then goes on with the console only).
Result<std::filesystem::path> init_logging(const std::filesystem::path& log_folder, Verbosity verbosity);

// Console-only logging, used before home is known or when it cannot be written.
void init_console_logging(Verbosity verbosity);

}  // namespace zcuda::logbook
