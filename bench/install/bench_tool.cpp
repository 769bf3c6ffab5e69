// Times zcuda's own hashing and extraction alone, for bench/install/run.sh:
//   zcuda-bench-tool hash FILE               SHA-256 of FILE (what verifies the cache)
//   zcuda-bench-tool extract FILE DEST ROOT [WORKERS]  scan + extract ROOT of a zip into DEST (hashing
//                                            each file); WORKERS as ExtractOptions::workers (0: chosen)
#include <chrono>
#include <cstdio>
#include <string>

#include <zcuda/base/sha256.hpp>
#include <zcuda/archive/archive.hpp>
#include <zcuda/fetch/fetch.hpp>

int main(int argc, char** argv) {
  using namespace zcuda;
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto start = std::chrono::steady_clock::now();
  if (mode == "hash" && argc == 3) {
    auto digest = sha256_file(argv[2]);
    if (!digest) return std::fprintf(stderr, "%s\n", digest.error().message.c_str()), 1;
    std::printf("%s\n", digest->c_str());
  } else if (mode == "extract" && (argc == 5 || argc == 6)) {
    archive::ExtractOptions options;
    options.root = argv[4];
    if (argc == 6) options.workers = std::stoul(argv[5]);
    auto done = archive::extract(argv[2], archive::Format::zip, argv[3], options);
    if (!done) return std::fprintf(stderr, "%s\n", done.error().message.c_str()), 1;
    std::printf("%zu entries\n", done->entries.size());
  } else {
    std::fprintf(stderr, "usage: %s hash FILE | extract FILE DEST ROOT [WORKERS]\n", argv[0]);
    return 2;
  }
  std::fprintf(stderr, "seconds %.3f\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}
