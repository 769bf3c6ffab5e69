// CUDA device code in a binary: .nv_fatbin (ELF), .nv_fatb (PE), or a fatbin file itself.
#include <gtest/gtest.h>

#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/base/path_text.hpp>

#include "binfmt/section_builder.hpp"
#include "fatbin.hpp"  // src/probe: the PTX fatbin the probe builds, byte for byte as NVIDIA's fatbinary
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;

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
  // The wrapper's magic belongs to host data that points at a fat binary, never at a file's start.
  std::string wrapper;
  put_le(wrapper, 0, binfmt::kFatbinWrapperMagic, 4);
  put_le(wrapper, 4, 1, 4);
  put_le(wrapper, 8, 0, 8);
  put_le(wrapper, 16, 0, 8);
  EXPECT_FALSE(check(wrapper).value());
}

Result<std::vector<binfmt::FatbinImage>> images_of(const std::string& bytes) {
  binfmt::MemorySource source(std::as_bytes(std::span(bytes.data(), bytes.size())));
  return binfmt::fatbin_images(source);
}

std::vector<std::string> summary(const std::vector<binfmt::FatbinImage>& images) {
  std::vector<std::string> out;
  for (const auto& i : images) out.push_back(i.target() + "/" + std::string(to_string(i.kind)) + "/" + std::string(to_string(i.compression)));
  return out;
}

// Two translation units' fat binaries in one section, 8-byte aligned with zeros between, as a
// library built by nvcc holds them.
std::string two_fatbins() {
  std::string first = fatbin_with({{2, 61, false, std::string(13, 'e')}, {1, 75, false, ".target sm_75"}});
  first += std::string(8, '\0');
  return first + fatbin_with({{2, 86, true, std::string(40, 'z')}, {1, 89, true, ".target sm_89"}});
}

const std::vector<std::string> kTwoFatbins = {"sm_61/cubin/none", "compute_75/ptx/none", "sm_86/cubin/lz4", "compute_89/ptx/lz4"};

TEST(FatbinImages, AnElfLibrarysNvFatbinSectionListsEveryImage) {
  auto images = images_of(elf_with_sections({".text", ".nv_fatbin"}, two_fatbins()));
  ASSERT_TRUE(images) << images.error().message;
  EXPECT_EQ(summary(*images), kTwoFatbins);
  EXPECT_TRUE(images->front().is_64bit);
  auto none = images_of(elf_with_sections({".text", ".data"}));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
}

TEST(FatbinImages, APeDllsNvFatbSectionListsEveryImagePastItsFilePadding) {
  // The builder pads each section's raw data to 0x200 bytes, as the file alignment does.
  auto images = images_of(pe_with_sections({".text", ".nv_fatb"}, fatbin_with({{1, 52, false, ".target sm_52"}, {2, 120, false, "cubin"}})));
  ASSERT_TRUE(images) << images.error().message;
  EXPECT_EQ(summary(*images), (std::vector<std::string>{"compute_52/ptx/none", "sm_120/cubin/none"}));
}

// DLLs MinGW's linker built (pe/fatbin_dll.c), 64- and 32-bit: the section as a linker lays it out.
TEST(FatbinImages, MinGwBuiltDllsWithANvFatbSection) {
  int found = 0;
  for (const char* arch : {"x86_64", "i686"}) {
    const fs::path dll = fs::path(ZCUDA_TEST_PE_DIR) / arch / "kernels.dll";
    if (!fs::exists(dll)) continue;
    ++found;
    auto images = binfmt::file_fatbin_images(dll);
    ASSERT_TRUE(images) << arch << ": " << images.error().message;
    EXPECT_EQ(summary(*images), (std::vector<std::string>{"compute_75/ptx/none", "sm_86/cubin/none"})) << arch;
    auto plain = binfmt::file_fatbin_images(fs::path(ZCUDA_TEST_PE_DIR) / arch / "nvcuda.dll");
    ASSERT_TRUE(plain) << plain.error().message;
    EXPECT_TRUE(plain->empty());
  }
  if (found == 0) GTEST_SKIP() << "no MinGW-w64 cross compiler: no PE test files";
}

TEST(FatbinImages, AStandaloneFatbinFileOnDisk) {
  TempDir dir;
  write_file(dir / "kernels.fatbin", two_fatbins());
  write_file(dir / "notes.txt", "text");
  auto images = binfmt::file_fatbin_images(dir / "kernels.fatbin");
  ASSERT_TRUE(images) << images.error().message;
  EXPECT_EQ(summary(*images), kTwoFatbins);
  EXPECT_TRUE(binfmt::file_fatbin_images(dir / "notes.txt").value().empty());
  EXPECT_FALSE(binfmt::file_fatbin_images(dir / "missing.fatbin"));
}

// The probe's builder writes what NVIDIA's fatbinary writes (tests/unit/verify compares them).
TEST(FatbinImages, ReadsTheProbesToolExactPtxFatbin) {
  const std::vector<probe::PtxImage> ptx = {{75, 8, 0, ".version 8.0\n.target sm_75\n"}, {86, 8, 0, ".version 8.0\n.target sm_86\n"}};
  const auto bytes = probe::build_ptx_fatbin(ptx, false);
  auto images = images_of(std::string(bytes.begin(), bytes.end()));
  ASSERT_TRUE(images) << images.error().message;
  EXPECT_EQ(summary(*images), (std::vector<std::string>{"compute_75/ptx/none", "compute_86/ptx/none"}));
}

TEST(FatbinImages, MalformedFatbinsAreErrorsNotCrashes) {
  std::string wrong_version = fatbin_with({{1, 86}});
  put_le(wrong_version, 16 + 2, 0x200, 2);
  auto v = images_of(wrong_version);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(v.error().message.find("version"), std::string::npos) << v.error().message;
  std::string too_long = fatbin_with({{1, 86}});
  put_le(too_long, 16 + 8, 1u << 30, 4);  // a payload far past the end
  EXPECT_FALSE(images_of(too_long));
  std::string garbage = fatbin_with({{1, 86}}) + "JUNKJUNKJUNKJUNKJUNK";
  EXPECT_FALSE(images_of(elf_with_sections({".nv_fatbin"}, garbage)));
  const std::string whole = elf_with_sections({".nv_fatbin"}, two_fatbins());
  for (std::size_t n = 0; n < whole.size(); n += 5) (void)images_of(whole.substr(0, n));
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
