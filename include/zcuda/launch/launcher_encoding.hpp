#pragma once
// How ZLUDA's zluda.exe rebuilds its target's command line, and the arguments zcuda hands it so
// that the target receives exactly the user's arguments (docs/windows.md, "Through zluda.exe").
//
// zluda.exe starts the target with a command line it builds from its own arguments after "--".
// Builds differ: some quote each argument, recent ones (v6-preview.69, v7-preview.9/.10) join
// them with plain spaces, and an older one joined the arguments with no separator at all. The
// target then splits that line by the CommandLineToArgvW rules. Pure functions: testable on
// every platform.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::launch {

enum class LauncherJoin {
  quoting,       // each argument quoted for the target: passed as given
  spaces,        // program and arguments joined with single spaces, unquoted
  no_separator,  // a space after the program, then the arguments with nothing between them
};

std::string_view to_string(LauncherJoin join);
std::optional<LauncherJoin> launcher_join_from_string(std::string_view text);

// Splits a command line as CommandLineToArgvW does (the first element by the program-name rule:
// up to the next quote when it starts with one, else up to white space).
std::vector<std::string> split_windows_command_line(std::string_view line);

// The command line a launcher with this join builds for `program` and `args` (its own argv after
// "--").
std::string join_as_launcher(LauncherJoin join, std::string_view program, const std::vector<std::string>& args);

// zluda.exe's arguments after "--" (the program, then its arguments) so that the target started
// through a launcher with this join receives `program` as argv[0] and exactly `args`. Refuses
// (before anything is launched) when this launcher cannot carry them; the hint names --direct.
Result<std::vector<std::string>> launcher_arguments(LauncherJoin join, std::string_view program, const std::vector<std::string>& args);

// The arguments learn_launcher sends to the echo target: each join delivers them differently.
const std::vector<std::string>& echo_sample_arguments();

// Which join explains what an echo target received (its argv after argv[0]) when the launcher
// was given `program` and `sent` as they are; none when no known join does.
std::optional<LauncherJoin> classify_echo(std::string_view program, const std::vector<std::string>& sent, const std::vector<std::string>& received);

}  // namespace zcuda::launch
