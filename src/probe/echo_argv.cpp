#include "echo_argv.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "json_writer.hpp"

namespace zcuda::probe {

bool echo_argv_requested() {
  const char* value = std::getenv("ZCUDA_PROBE_ECHO_ARGV");
  return value != nullptr && std::string(value) == "1";
}

int echo_argv(int argc, char** argv) {
  json::Array args;
  for (const auto& a : os::arguments(argc, argv)) args.str(a);
  json::Object out;
  out.raw("echo_argv", args.text());
  std::printf("%s\n", out.text().c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace zcuda::probe
