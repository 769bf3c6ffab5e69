// The matcher alone, built with the caller's optimisation flags (bench/explain/run.sh --core):
// reads the knowledge base and a log from files, prints the ids it matches and the seconds the
// match took (without zcuda's start-up, detection or output).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <zcuda/explain/explain.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s known-failures.json LOG\n", argv[0]);
    return 2;
  }
  auto slurp = [](const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  auto kb = zcuda::explain::parse_knowledge_base(slurp(argv[1]));
  if (!kb) {
    std::fprintf(stderr, "%s\n", kb.error().message.c_str());
    return 1;
  }
  const std::string log = slurp(argv[2]);
  const auto t0 = std::chrono::steady_clock::now();
  const auto matches = zcuda::explain::match_text(*kb, log);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
  for (const auto& m : matches) std::printf("%s\n", m.entry->id.c_str());
  std::printf("match_text: %.3f s\n", took.count());
  return 0;
}
