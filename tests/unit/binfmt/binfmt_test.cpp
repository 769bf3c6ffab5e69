#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include <zcuda/binfmt/binfmt.hpp>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::binfmt {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> bytes_of(const fs::path& path) {
  std::string text = test::read_file(path);
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

bool contains(const std::vector<std::string>& list, std::string_view name) { return std::find(list.begin(), list.end(), name) != list.end(); }

fs::path pe_file(const char* arch, const char* name) { return fs::path(ZCUDA_TEST_PE_DIR) / arch / name; }

#define REQUIRE_PE(arch)                                  \
  if (!fs::exists(pe_file(arch, "app.exe")))              \
  GTEST_SKIP() << arch                                    \
      "-w64-mingw32-gcc was not found at configure time " \
      "(scripts/install-deps.sh installs gcc-mingw-w64-x86-64 and -i686)"

TEST(ElfImports, SystemProgramNeedsLibc) {
  auto imports = read_imports("/bin/ls");
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_EQ((*imports)->format, Format::elf);
  EXPECT_TRUE((*imports)->is_64bit);
  EXPECT_TRUE(contains((*imports)->needed, "libc.so.6"));
}

TEST(ElfImports, TestProgramNeedsLibcudaThroughOriginRunpath) {
  auto imports = read_imports(ZCUDA_TEST_ELF_APP);
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_TRUE(contains((*imports)->needed, "libcuda.so.1"));
  EXPECT_EQ((*imports)->runpath, std::vector<std::string>{"$ORIGIN"});
  EXPECT_TRUE((*imports)->rpath.empty());
}

TEST(ElfImports, SystemSharedLibraryIsParsed) {
  const fs::path lib = "/lib/x86_64-linux-gnu/libstdc++.so.6";
  if (!fs::exists(lib)) GTEST_SKIP() << lib << " is not on this system";
  auto imports = read_imports(lib);
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_TRUE(contains((*imports)->needed, "libc.so.6"));
  EXPECT_TRUE(contains((*imports)->needed, "libm.so.6"));
}

TEST(ElfImports, TestLibraryWithoutDependenciesIsParsed) {
  auto imports = read_imports(ZCUDA_TEST_ELF_LIB);
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_TRUE((*imports)->is_64bit);
}

TEST(ElfImports, ThirtyTwoBitBigEndianHandMade) {
  // A minimal ELF32 big-endian file: header, one PT_LOAD covering the file, one PT_DYNAMIC with
  // DT_NEEDED, DT_RPATH, DT_STRTAB, DT_STRSZ, DT_NULL, and a string table.
  std::vector<std::byte> f(0x200);
  auto put8 = [&](std::size_t at, unsigned v) { f[at] = static_cast<std::byte>(v); };
  auto put16 = [&](std::size_t at, unsigned v) {
    put8(at, (v >> 8) & 0xff);
    put8(at + 1, v & 0xff);
  };
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    put16(at, v >> 16);
    put16(at + 2, v & 0xffff);
  };
  put8(0, 0x7f);
  put8(1, 'E');
  put8(2, 'L');
  put8(3, 'F');
  put8(4, 1);
  put8(5, 2);
  put8(6, 1);
  put16(16, 3);
  put16(18, 8);
  put32(28, 52);
  put16(42, 32);
  put16(44, 2);
  put32(52 + 0, 1);
  put32(52 + 4, 0);
  put32(52 + 8, 0x1000);
  put32(52 + 16, 0x200);  // PT_LOAD
  put32(84 + 0, 2);
  put32(84 + 4, 0x100);
  put32(84 + 8, 0x1100);
  put32(84 + 16, 40);  // PT_DYNAMIC
  const std::uint32_t dyn[] = {1, 1, 15, 14, 5, 0x1180, 10, 32, 0, 0};
  for (std::size_t i = 0; i < 10; ++i) put32(0x100 + 4 * i, dyn[i]);
  const char strings[] = "\0libcuda.so.1\0/opt/a:/opt/b\0";
  std::memcpy(f.data() + 0x180, strings, sizeof strings);
  auto imports = parse(MemorySource(f));
  ASSERT_TRUE(imports) << imports.error().message;
  EXPECT_FALSE(imports->is_64bit);
  EXPECT_EQ(imports->machine, 8);  // EM_MIPS
  EXPECT_EQ(imports->needed, std::vector<std::string>{"libcuda.so.1"});
  EXPECT_EQ(imports->rpath, (std::vector<std::string>{"/opt/a", "/opt/b"}));
}

TEST(ElfImports, EveryTruncationIsAnErrorNotACrash) {
  auto whole = bytes_of(ZCUDA_TEST_ELF_APP);
  ASSERT_TRUE(parse(MemorySource(whole)));
  int errors = 0;
  // Cutting inside the headers or the dynamic section must fail cleanly.
  for (std::size_t n = 0; n < std::min<std::size_t>(whole.size(), 0x4000); n += 7) {
    auto result = parse(MemorySource(std::span(whole).first(n)));
    if (!result) {
      ++errors;
      EXPECT_EQ(result.error().kind, ErrorKind::invalid_input);
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(ElfImports, StringIndexPastTableIsRejected) {
  auto whole = bytes_of(ZCUDA_TEST_ELF_APP);
  // Corrupt every DT_NEEDED value (tag 1) to point far outside the string table.
  auto imports = parse(MemorySource(whole));
  ASSERT_TRUE(imports);
  bool patched = false;
  for (std::size_t at = 0; at + 16 <= whole.size(); at += 8) {
    std::uint64_t tag = 0;
    std::memcpy(&tag, whole.data() + at, 8);
    std::uint64_t value = 0;
    std::memcpy(&value, whole.data() + at + 8, 8);
    if (tag == 1 && value < 0x10000 && value > 0) {
      const std::uint64_t huge = 0x7fffffffffffffffull;
      std::memcpy(whole.data() + at + 8, &huge, 8);
      patched = true;
    }
  }
  ASSERT_TRUE(patched);
  auto broken = parse(MemorySource(whole));
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("outside the string table"), std::string::npos) << broken.error().message;
}

TEST(Sniff, ScriptsAndDataAreNeither) {
  test::TempDir dir;
  test::write_file(dir / "script.sh", "#!/bin/sh\necho hi\n");
  test::write_file(dir / "empty", "");
  for (const char* name : {"script.sh", "empty"}) {
    auto imports = read_imports(dir / name);
    ASSERT_TRUE(imports) << imports.error().message;
    EXPECT_FALSE(imports->has_value()) << name;
  }
}

TEST(Sniff, TruncatedHeaderClaimingElfIsAnError) {
  test::TempDir dir;
  test::write_file(dir / "fake.so", std::string("\x7f"
                                                "ELF\x02\x01\x01",
                                                7));
  auto imports = read_imports(dir / "fake.so");
  ASSERT_FALSE(imports);
  EXPECT_EQ(imports.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(imports.error().message.find("fake.so"), std::string::npos);
}

TEST(PeImports, Pe32PlusProgramImportsNvcuda) {
  REQUIRE_PE("x86_64");
  auto imports = read_imports(pe_file("x86_64", "app.exe"));
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_EQ((*imports)->format, Format::pe);
  EXPECT_TRUE((*imports)->is_64bit);
  EXPECT_EQ((*imports)->machine, 0x8664);
  EXPECT_TRUE(contains((*imports)->needed, "nvcuda.dll"));
  EXPECT_TRUE(contains((*imports)->needed, "KERNEL32.dll"));
  EXPECT_TRUE((*imports)->delay_needed.empty());
}

TEST(PeImports, Pe32PlusDelayImport) {
  REQUIRE_PE("x86_64");
  auto imports = read_imports(pe_file("x86_64", "app_delay.exe"));
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_EQ((*imports)->delay_needed, std::vector<std::string>{"nvcuda.dll"});
  EXPECT_FALSE(contains((*imports)->needed, "nvcuda.dll"));
}

TEST(PeImports, Pe32ProgramAndDelayImport) {
  REQUIRE_PE("i686");
  auto imports = read_imports(pe_file("i686", "app.exe"));
  ASSERT_TRUE(imports) << imports.error().message;
  ASSERT_TRUE(imports->has_value());
  EXPECT_FALSE((*imports)->is_64bit);
  EXPECT_EQ((*imports)->machine, 0x14c);
  EXPECT_TRUE(contains((*imports)->needed, "nvcuda.dll"));
  auto delayed = read_imports(pe_file("i686", "app_delay.exe"));
  ASSERT_TRUE(delayed) << delayed.error().message;
  EXPECT_EQ((*delayed)->delay_needed, std::vector<std::string>{"nvcuda.dll"});
}

TEST(PeManifest, TheEmbeddedManifestIsRead) {
  REQUIRE_PE("x86_64");
  for (const char* arch : {"x86_64", "i686"}) {
    if (!fs::exists(pe_file(arch, "app_admin.exe"))) continue;
    auto admin = read_imports(pe_file(arch, "app_admin.exe"));
    ASSERT_TRUE(admin) << admin.error().message;
    ASSERT_TRUE((*admin)->manifest) << arch;
    EXPECT_NE((*admin)->manifest->find("level=\"requireAdministrator\""), std::string::npos) << *(*admin)->manifest;
    EXPECT_EQ((*admin)->needed, (*read_imports(pe_file(arch, "app.exe")))->needed);
  }
  // A program without one (MinGW adds none unless asked) reads as having none.
  auto plain = read_imports(pe_file("x86_64", "app_delay.exe"));
  ASSERT_TRUE(plain);
  EXPECT_TRUE(!(*plain)->manifest || (*plain)->manifest->find("requireAdministrator") == std::string::npos);
}

TEST(PeImports, DllIsParsed) {
  REQUIRE_PE("x86_64");
  auto imports = read_imports(pe_file("x86_64", "nvcuda.dll"));
  ASSERT_TRUE(imports) << imports.error().message;
  EXPECT_TRUE(contains((*imports)->needed, "KERNEL32.dll"));
}

TEST(PeImports, EveryTruncationIsAnErrorNotACrash) {
  REQUIRE_PE("x86_64");
  auto whole = bytes_of(pe_file("x86_64", "app.exe"));
  int errors = 0;
  for (std::size_t n = 0; n < whole.size(); n += 13) {
    auto result = parse(MemorySource(std::span(whole).first(n)));
    if (!result) {
      ++errors;
      EXPECT_EQ(result.error().kind, ErrorKind::invalid_input);
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(PeImports, MsDosStubWithoutPeHeaderIsAnError) {
  std::vector<std::byte> f(128);
  f[0] = std::byte{'M'};
  f[1] = std::byte{'Z'};
  f[0x3c] = std::byte{0x40};
  auto result = parse(MemorySource(f));
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("PE signature"), std::string::npos);
}

TEST(PeImports, ImportTableWithoutEndIsAnError) {
  REQUIRE_PE("x86_64");
  auto whole = bytes_of(pe_file("x86_64", "app.exe"));
  // Point the import directory at the headers, which contain no terminating descriptor within
  // their bounds for this layout: the parser must stop at the region's end.
  const std::size_t pe = std::to_integer<std::size_t>(whole[0x3c]) | (std::to_integer<std::size_t>(whole[0x3d]) << 8);
  const std::size_t import_dir = pe + 24 + 112 + 8;
  const std::uint32_t rva = 0x3c;
  std::memcpy(whole.data() + import_dir, &rva, 4);
  auto result = parse(MemorySource(whole));
  EXPECT_FALSE(result);
}

}  // namespace
}  // namespace zcuda::binfmt
