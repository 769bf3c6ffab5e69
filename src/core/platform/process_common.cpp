#include <zcuda/platform/process.hpp>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#ifndef _WIN32
#include <cstring>
#endif

#include <zcuda/base/ascii.hpp>

namespace zcuda::platform {

std::optional<std::string> variable_key(const Environment& env, std::string_view name, Os os) {
  if (auto it = env.find(std::string(name)); it != env.end()) return it->first;
  if (os != Os::windows) return std::nullopt;
  for (const auto& [key, value] : env) {
    if (ascii_iequals(key, name)) return key;
  }
  return std::nullopt;
}

std::string quote_windows_argument(std::string_view arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string_view::npos) return std::string(arg);
  std::string out = "\"";
  std::size_t backslashes = 0;
  for (char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    if (c == '"') {
      // Backslashes before a quote are doubled, and the quote itself escaped.
      out.append(backslashes * 2 + 1, '\\');
    } else {
      out.append(backslashes, '\\');
    }
    backslashes = 0;
    out += c;
  }
  // Backslashes before the closing quote are doubled so they do not escape it.
  out.append(backslashes * 2, '\\');
  out += '"';
  return out;
}

std::string windows_command_line(std::string_view program, const std::vector<std::string>& args) {
  // The program name is parsed by different rules (no backslash escapes): quote it only when needed.
  std::string line =
      program.find_first_of(" \t") == std::string_view::npos && !program.empty() ? std::string(program) : "\"" + std::string(program) + "\"";
  for (const auto& a : args) {
    line += ' ';
    line += quote_windows_argument(a);
  }
  return line;
}

void append_tail(std::string& tail, std::string_view data, std::size_t limit) {
  if (limit == 0) return;
  if (data.size() >= limit) {
    tail.assign(data.substr(data.size() - limit));
    return;
  }
  tail.append(data);
  if (tail.size() > limit) tail.erase(0, tail.size() - limit);
}

std::string_view exit_status_meaning(std::uint32_t status) {
  switch (status) {
    case 0xC0000005u:
      return "access violation";
    case 0xC000001Du:
      return "illegal instruction";
    case 0xC0000094u:
      return "integer division by zero";
    case 0xC00000FDu:
      return "stack overflow";
    case 0xC0000135u:
      return "a DLL the program needs was not found";
    case 0xC0000139u:
      return "a DLL lacks a function the program needs (entry point not found)";
    case 0xC0000142u:
      return "a DLL's initialization routine failed";
    case 0xC0000409u:
      return "stack buffer overrun / fail-fast";
    case 0xC000013Au:
      return "interrupted by Ctrl-C";
    default:
      return "unhandled exception";
  }
}

std::string describe_exit(const ProcessResult& result) {
  if (result.timed_out) return fmt::format("timed out after {:.1f} s and was killed", result.seconds);
  if (result.cancelled) return fmt::format("stopped by Ctrl-C after {:.1f} s", result.seconds);
  if (result.signal) {
#ifndef _WIN32
    const char* abbrev = sigabbrev_np(*result.signal);
    if (abbrev != nullptr) return fmt::format("killed by signal {} (SIG{})", *result.signal, abbrev);
#endif
    return fmt::format("killed by signal {}", *result.signal);
  }
  if (result.exception_status) {
    return fmt::format("crashed with exception 0x{:08X} ({})", *result.exception_status, exit_status_meaning(*result.exception_status));
  }
  return fmt::format("exit code {}", result.exit_code);
}

}  // namespace zcuda::platform
