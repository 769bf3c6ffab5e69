// Encoding the user's arguments for ZLUDA's launcher (launcher_encoding.hpp).
#include <zcuda/launch/launcher_encoding.hpp>

#include <fmt/format.h>

#include <zcuda/base/enum_words.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::launch {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The program name is read without backslash escapes: quoted when it holds white space.
std::string quote_program(std::string_view program) {
  if (!program.empty() && program.find_first_of(" \t") == std::string_view::npos) return std::string(program);
  return "\"" + std::string(program) + "\"";
}

}  // namespace

std::string_view to_string(LauncherJoin join) {
  switch (join) {
    case LauncherJoin::quoting:
      return "quoting";
    case LauncherJoin::spaces:
      return "spaces";
    case LauncherJoin::no_separator:
      return "no_separator";
  }
  return "quoting";
}

std::optional<LauncherJoin> launcher_join_from_string(std::string_view text) {
  return enum_from_word(text, {LauncherJoin::quoting, LauncherJoin::spaces, LauncherJoin::no_separator});
}

std::vector<std::string> split_windows_command_line(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  if (line.empty()) return out;
  // argv[0]: no escapes; a quoted name ends at the next quote.
  std::string first;
  if (line[0] == '"') {
    const auto end = line.find('"', 1);
    first = std::string(line.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
    i = end == std::string_view::npos ? line.size() : end + 1;
  }
  while (i < line.size() && !is_blank(line[i])) first += line[i++];
  out.push_back(std::move(first));
  while (true) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    std::string arg;
    bool quoted = false;
    while (i < line.size() && (quoted || !is_blank(line[i]))) {
      if (line[i] == '\\') {
        std::size_t n = 0;
        while (i < line.size() && line[i] == '\\') ++n, ++i;
        if (i < line.size() && line[i] == '"') {
          // 2n backslashes and a quote: n backslashes, then the quote delimits; 2n+1: a literal quote.
          arg.append(n / 2, '\\');
          if (n % 2 == 1) {
            arg += '"';
            ++i;
          }
        } else {
          arg.append(n, '\\');
        }
        continue;
      }
      if (line[i] == '"') {
        if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
          arg += '"';  // "" inside quotes: a literal quote (the 2008 runtime's rule)
          i += 2;
          continue;
        }
        quoted = !quoted;
        ++i;
        continue;
      }
      arg += line[i++];
    }
    out.push_back(std::move(arg));
  }
  return out;
}

std::string join_as_launcher(LauncherJoin join, std::string_view program, const std::vector<std::string>& args) {
  switch (join) {
    case LauncherJoin::quoting:
      return platform::windows_command_line(program, args);
    case LauncherJoin::spaces: {
      std::string line(program);
      for (const auto& a : args) line += " " + a;
      return line;
    }
    case LauncherJoin::no_separator: {
      std::string line(program);
      if (!args.empty()) line += " ";
      for (const auto& a : args) line += a;
      return line;
    }
  }
  return {};
}

Result<std::vector<std::string>> launcher_arguments(LauncherJoin join, std::string_view program, const std::vector<std::string>& args) {
  std::vector<std::string> out;
  if (join == LauncherJoin::quoting) {
    out.emplace_back(program);
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
  // The launcher puts its arguments on the line as they are, so they are handed over already
  // quoted for the target (and quoted once more, by the process layer, for zluda.exe itself).
  if (program.find('"') != std::string_view::npos) {
    return fail(ErrorKind::unsupported, fmt::format("zluda.exe cannot start a program whose path holds a quote: {}", program),
                "Run it without ZLUDA's launcher: zcuda run --direct ...");
  }
  if (join == LauncherJoin::no_separator && args.size() > 1) {
    return fail(ErrorKind::unsupported,
                fmt::format("This zluda.exe joins a program's arguments with nothing between them, so it cannot pass {} arguments", args.size()),
                "Use --direct (zcuda stages ZLUDA's DLLs beside the program instead), or install a newer ZLUDA.");
  }
  out.push_back(quote_program(program));
  for (const auto& a : args) out.push_back(platform::quote_windows_argument(a));
  return out;
}

const std::vector<std::string>& echo_sample_arguments() {
  // A space, an empty argument, quotes, a trailing backslash and non-ASCII letters.
  static const std::vector<std::string> sample = {"a b", "", "\"q\"", "back\\",
                                                  "\xC3\xBCnic\xC3\xB6"
                                                  "de"};
  return sample;
}

std::optional<LauncherJoin> classify_echo(std::string_view program, const std::vector<std::string>& sent, const std::vector<std::string>& received) {
  // An unquoted program path with spaces is found by CreateProcess trying each space; Windows
  // leaves the line as it was (the pieces of the path become arguments), Wine quotes the path it
  // found. Either is the same join.
  for (auto join : {LauncherJoin::quoting, LauncherJoin::spaces, LauncherJoin::no_separator}) {
    for (const std::string& as_started : {std::string(program), quote_program(program)}) {
      auto split = split_windows_command_line(join_as_launcher(join, as_started, sent));
      if (!split.empty()) split.erase(split.begin());
      if (split == received) return join;
    }
  }
  return std::nullopt;
}

}  // namespace zcuda::launch
