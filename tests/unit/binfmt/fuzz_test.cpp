// A mutation fuzzer driven by GoogleTest: thousands of mutated and truncated copies of real
// binaries (system ELF files, the MinGW-built PE files) go through the parsers. Run under the
// asan preset it finds out-of-bounds reads, overflows and endless loops (each input must parse
// within the test's time limit). libFuzzer's own driver is not used because clang 14 (Debian
// 12's) cannot compile GCC 12's std::expected; fuzz_target.cpp keeps libFuzzer's signature for
// a toolchain that can. ZCUDA_FUZZ_ITERATIONS overrides the number of mutations per seed.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "binfmt/section_builder.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace zcuda::binfmt {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> load(const fs::path& path, std::size_t max = 4u << 20) {
  std::string text = test::read_file(path);
  if (text.size() > max) text.resize(max);
  return {text.begin(), text.end()};
}

std::vector<fs::path> seeds() {
  std::vector<fs::path> out = {"/bin/ls", ZCUDA_TEST_ELF_APP, ZCUDA_TEST_ELF_LIB};
  if (fs::exists("/lib/x86_64-linux-gnu/libstdc++.so.6")) out.push_back("/lib/x86_64-linux-gnu/libstdc++.so.6");
  for (const char* arch : {"x86_64", "i686"}) {
    for (const char* name : {"app.exe", "app_delay.exe", "nvcuda.dll", "kernels.dll"}) {
      fs::path p = fs::path(ZCUDA_TEST_PE_DIR) / arch / name;
      if (fs::exists(p)) out.push_back(p);
    }
  }
  return out;
}

int iterations() {
  if (const char* env = std::getenv("ZCUDA_FUZZ_ITERATIONS")) return std::atoi(env);
  return 5000;
}

// Mutations aimed at what parsers trip on: header fields, offsets and counts (so bytes near
// the start and 32/64-bit values set to boundary numbers), plus random bytes and truncation.
void mutate(std::vector<std::uint8_t>& f, std::mt19937_64& rng) {
  if (f.empty()) return;
  auto pick = [&](std::size_t limit) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(limit, 1)); };
  const int count = 1 + static_cast<int>(rng() % 8);
  for (int i = 0; i < count; ++i) {
    // Most of the interesting structure is in the first few KiB.
    const std::size_t at = (rng() % 4 != 0) ? pick(std::min<std::size_t>(f.size(), 4096)) : pick(f.size());
    switch (rng() % 6) {
      case 0:
        f[at] = static_cast<std::uint8_t>(rng());
        break;
      case 1:
        f[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        break;
      case 2: {
        static constexpr std::uint64_t kBoundaries[] = {
            0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull, 0xffffffffffffffffull};
        const std::uint64_t v = kBoundaries[rng() % std::size(kBoundaries)];
        const std::size_t width = (rng() % 2) ? 4 : 8;
        if (at + width <= f.size()) std::memcpy(f.data() + at, &v, width);
        break;
      }
      case 3: {
        const std::uint32_t v = static_cast<std::uint32_t>(rng() % f.size());  // a plausible offset
        if (at + 4 <= f.size()) std::memcpy(f.data() + at, &v, 4);
        break;
      }
      case 4:
        f.resize(pick(f.size()) + 1);
        break;
      default: {
        const std::size_t from = pick(f.size()), len = pick(64);
        if (from + len <= f.size() && at + len <= f.size()) std::memmove(f.data() + at, f.data() + from, len);
      }
    }
    if (f.empty()) return;
  }
}

TEST(BinfmtFuzz, MutatedRealBinariesNeverCrash) {
  std::mt19937_64 rng(0x5eed2c0dau);
  const int n = iterations();
  std::size_t runs = 0;
  for (const auto& seed : seeds()) {
    const auto original = load(seed);
    ASSERT_FALSE(original.empty()) << seed;
    LLVMFuzzerTestOneInput(original.data(), original.size());
    // Large seeds cost a copy per mutation: fewer of them keeps the suite within its time limit
    // under ASan on a busy machine.
    const int count = original.size() > (512u << 10) ? n / 5 : n;
    for (int i = 0; i < count; ++i) {
      auto copy = original;
      mutate(copy, rng);
      LLVMFuzzerTestOneInput(copy.data(), copy.size());
      ++runs;
    }
  }
  RecordProperty("runs", static_cast<int>(runs));
  EXPECT_GE(runs, static_cast<std::size_t>(n) * 3);  // at least the small seeds ran in full
}

// Fat binaries in an ELF section, in a PE section and alone, mutated: the image walk must stop
// on every count, size and offset a hostile file can hold.
TEST(BinfmtFuzz, MutatedFatBinariesNeverCrash) {
  std::mt19937_64 rng(0xfa7b1u);
  const std::string fatbin = test::fatbin_with({{2, 86, false, "cubin"}, {1, 75, true, ".target sm_75"}, {1, 86, false, ".target sm_86"}});
  const int n = iterations();
  for (const std::string& seed : {fatbin + std::string(8, '\0') + fatbin, test::elf_with_sections({".text", ".nv_fatbin"}, fatbin),
                                  test::pe_with_sections({".text", ".nv_fatb"}, fatbin)}) {
    const std::vector<std::uint8_t> original(seed.begin(), seed.end());
    for (int i = 0; i < n; ++i) {
      auto copy = original;
      mutate(copy, rng);
      LLVMFuzzerTestOneInput(copy.data(), copy.size());
    }
  }
  SUCCEED();
}

TEST(BinfmtFuzz, RandomAndTinyInputsNeverCrash) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> f(rng() % 256);
    for (auto& b : f) b = static_cast<std::uint8_t>(rng());
    // Give half of them a valid magic so the parsers go past the first check.
    if (f.size() >= 4 && (i % 2) == 0) {
      if (i % 4 == 0)
        std::memcpy(f.data(),
                    "\x7f"
                    "ELF",
                    4);
      else
        std::memcpy(f.data(), "MZ", 2);
    }
    LLVMFuzzerTestOneInput(f.data(), f.size());
  }
  SUCCEED();
}

}  // namespace
}  // namespace zcuda::binfmt
