// CUDA device code in a binary: .nv_fatbin (ELF), .nv_fatb (PE), or a fatbin file itself.
#include <gtest/gtest.h>

#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/base/path_text.hpp>

#include "binfmt/section_builder.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::test {
namespace {

Result<bool> check(const std::string& bytes) {
  binfmt::MemorySource source(std::as_bytes(std::span(bytes.data(), bytes.size())));
  return binfmt::has_fatbin(source);
}

TEST(Fatbin, ElfSectionNamedNvFatbinIsFound) {
  auto with = check(elf_with_sections({".text", ".nv_fatbin"}));
  ASSERT_TRUE(with) << with.error().message;
  EXPECT_TRUE(*with);
  auto without = check(elf_with_sections({".text", ".data", ".nv_fatbinx"}));
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_FALSE(*without);
}

TEST(Fatbin, PeSectionNamedNvFatbIsFound) {
  auto with = check(pe_with_sections({".text", ".nv_fatb", ".rdata"}));
  ASSERT_TRUE(with) << with.error().message;
  EXPECT_TRUE(*with);
  auto without = check(pe_with_sections({".text", ".rdata"}));
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_FALSE(*without);
}

TEST(Fatbin, AFatbinFileItselfIsFoundAndOtherFilesAreNot) {
  EXPECT_TRUE(check(fatbin_bytes()).value());
  EXPECT_FALSE(check("#!/bin/sh\necho hello\n").value());
  EXPECT_FALSE(check("").value());
}

TEST(Fatbin, MalformedSectionTablesAreErrorsNotCrashes) {
  std::string elf = elf_with_sections({".nv_fatbin"});
  std::string cut = elf.substr(0, elf.size() - 70);  // the section table runs past the end
  auto truncated = check(cut);
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().kind, ErrorKind::invalid_input);
  std::string pe = pe_with_sections({".nv_fatb"});
  put_le(pe, 0x44 + 2, 500, 2);  // 500 sections
  EXPECT_FALSE(check(pe));
  // Every prefix of a valid file answers without crashing.
  for (std::size_t n = 0; n < elf.size(); n += 7) (void)check(elf.substr(0, n));
}

TEST(Fatbin, FilesOnDisk) {
  TempDir dir;
  write_file(dir / "libkernels.so", elf_with_sections({".text", ".nv_fatbin"}));
  write_file(dir / "plain.so", elf_with_sections({".text"}));
  write_file(dir / "notes.txt", "text");
  EXPECT_TRUE(binfmt::file_has_fatbin(dir / "libkernels.so").value());
  EXPECT_FALSE(binfmt::file_has_fatbin(dir / "plain.so").value());
  EXPECT_FALSE(binfmt::file_has_fatbin(dir / "notes.txt").value());
  auto missing = binfmt::file_has_fatbin(dir / "missing.so");
  ASSERT_FALSE(missing);
}

// Files are read through a window of 64 KiB: a section table past the first window, reads that
// straddle a window's edge and files cut anywhere answer as the same bytes in memory do.
TEST(Fatbin, FilesOnDiskAnswerAsInMemoryAcrossReadWindows) {
  TempDir dir;
  const std::string content = fatbin_bytes() + std::string(150000, 'x');
  for (const auto& names : {std::vector<std::string>{".text", ".nv_fatbin"}, std::vector<std::string>{".text", ".data"}}) {
    const std::string whole = elf_with_sections(names, content);
    ASSERT_GT(whole.size(), 2u * 65536);
    for (std::size_t n : {whole.size(), whole.size() - 1, whole.size() - 70, std::size_t{65535}, std::size_t{65536}, std::size_t{65537}}) {
      const std::string bytes = whole.substr(0, n);
      write_file(dir / "lib.so", bytes);
      const auto on_disk = binfmt::file_has_fatbin(dir / "lib.so");
      const auto in_memory = check(bytes);
      ASSERT_EQ(on_disk.has_value(), in_memory.has_value()) << n << " bytes of " << names.back();
      if (in_memory) {
        EXPECT_EQ(*on_disk, *in_memory) << n << " bytes of " << names.back();
      }
    }
  }
}

}  // namespace
}  // namespace zcuda::test
