#ifndef _WIN32
#include <sys/stat.h>
#endif

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <zcuda/base/sha256.hpp>
#include <zcuda/archive/archive.hpp>
#include <zcuda/fetch/fetch.hpp>

#include "support/archive_builder.hpp"
#include "support/file_size_limit.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::archive {
namespace {

namespace fs = std::filesystem;
using test::ArchiveType;
using test::Spec;

Format format_of(ArchiveType type) { return type == ArchiveType::zip ? Format::zip : Format::tar_gz; }
const char* extension(ArchiveType type) { return type == ArchiveType::zip ? "a.zip" : "a.tar.gz"; }

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.push_back(e.path().lexically_relative(dir).generic_string());
  std::sort(names.begin(), names.end());
  return names;
}

ExtractOptions rooted(const char* root) {
  ExtractOptions options;
  options.root = root;
  return options;
}

class Extract : public ::testing::TestWithParam<ArchiveType> {};

TEST_P(Extract, InstallsOnlyTheRootFolderWithModesLinksAndDigests) {
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  std::string binary(300000, '\0');
  for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>((i * 7919u) >> 3);
  test::write_archive(file, GetParam(),
                      {test::dir("pkg/"), test::file("pkg/nvcuda.dll", "driver"), test::file("pkg/sub/data.bin", binary),
                       test::file("pkg/run.sh", "#!/bin/sh\n", 0755), test::symlink("pkg/libcuda.so", "nvcuda.dll"),
                       test::symlink("pkg/sub/up.so", "../nvcuda.dll"), test::file("README.txt", "outside the root")});
  auto r = extract(file, format_of(GetParam()), dir / "out", rooted("pkg"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(listing(dir / "out"), (std::vector<std::string>{"libcuda.so", "nvcuda.dll", "run.sh", "sub", "sub/data.bin", "sub/up.so"}));
  EXPECT_EQ(test::read_file(dir / "out" / "sub" / "data.bin"), binary);
#ifdef _WIN32
  // Windows: links are written as copies of the files they name.
  EXPECT_EQ(test::read_file(dir / "out" / "libcuda.so"), test::read_file(dir / "out" / "nvcuda.dll"));
#else
  EXPECT_EQ(fs::read_symlink(dir / "out" / "libcuda.so"), "nvcuda.dll");
#endif
  EXPECT_EQ(test::read_file(dir / "out" / "sub" / "up.so"), "driver");
#ifndef _WIN32
  struct stat st {};
  ASSERT_EQ(::stat((dir / "out" / "run.sh").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR) << "executable bits survive extraction";
#endif
  EXPECT_EQ(r->scan.entries, 7u);
  EXPECT_EQ(r->scan.installed_bytes, 6u + binary.size() + 10u);
  for (const auto& e : r->entries) {
    if (e.type != WrittenEntry::Type::file) continue;
    auto digest = sha256_file(dir / "out" / e.path);
    ASSERT_TRUE(digest);
    EXPECT_EQ(e.sha256, *digest) << e.path;
    EXPECT_EQ(e.size, fs::file_size(dir / "out" / e.path)) << e.path;
  }
}

TEST_P(Extract, WithoutRootExtractsEverything) {
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  test::write_archive(file, GetParam(), {test::file("a.txt", "a"), test::file("b/c.txt", "c"), test::file("./d.txt", "d")});
  auto r = extract(file, format_of(GetParam()), dir / "out", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(listing(dir / "out"), (std::vector<std::string>{"a.txt", "b", "b/c.txt", "d.txt"}));
}

TEST_P(Extract, MissingRootIsInvalidInput) {
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  test::write_archive(file, GetParam(), {test::file("other/a.txt", "a")});
  auto r = extract(file, format_of(GetParam()), dir / "out", rooted("zluda"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(r.error().message.find("zluda"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_P(Extract, CancelledExtractionRemovesTheDestination) {
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  test::write_archive(file, GetParam(), {test::file("a.txt", "a"), test::file("b.txt", "b")});
  std::atomic<bool> cancel{false};
  ExtractOptions options;
  options.cancel = &cancel;
  options.on_entry = [&](const WrittenEntry&) { cancel = true; };
  auto r = extract(file, format_of(GetParam()), dir / "out", options);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::interrupted);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// A zip bomb: what is written is held to the limits as it comes (a header may understate it), and
// the refusal leaves nothing behind.
TEST_P(Extract, AnArchiveUnpackingFarBeyondItsSizeIsRefusedAndLeavesNothing) {
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  test::write_archive(file, GetParam(), {test::file("zeros.bin", std::string(16u << 20, '\0'))});
  ASSERT_LT(fs::file_size(file), 1u << 20);
  ExtractOptions options;
  options.limits.ratio_from = 1u << 20;
  options.limits.max_ratio = 100;
  auto r = extract(file, format_of(GetParam()), dir / "out", options);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::integrity);
  EXPECT_NE(r.error().message.find("zip bomb"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // Within the default limits the same archive is fine (16 MiB is below where the ratio counts).
  EXPECT_TRUE(extract(file, format_of(GetParam()), dir / "fine", ExtractOptions{}));
}

TEST_P(Extract, MoreEntriesOrBytesThanTheLimitsAreRefusedBeforeWriting) {
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  std::vector<Spec> entries;
  for (int i = 0; i < 30; ++i) entries.push_back(test::file(fmt::format("f{}.txt", i), std::string(100000, static_cast<char>('a' + i % 26))));
  test::write_archive(file, GetParam(), entries);
  ExtractOptions few;
  few.limits.max_entries = 20;
  auto r = extract(file, format_of(GetParam()), dir / "out", few);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::integrity);
  EXPECT_NE(r.error().message.find("more than 20 entries"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(dir / "out"));
  ExtractOptions small;
  small.limits.max_bytes = 1u << 20;
  auto big = extract(file, format_of(GetParam()), dir / "out", small);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().kind, ErrorKind::integrity);
  EXPECT_NE(big.error().message.find("unpacks to more than"), std::string::npos) << big.error().message;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_P(Extract, FullDiskFailsCleanly) {
  ZCUDA_REQUIRE_FILE_SIZE_LIMIT();
  test::TempDir dir;
  const fs::path file = dir / extension(GetParam());
  test::write_archive(file, GetParam(), {test::file("big.bin", std::string(2u << 20, 'z'))});
  // A file-size limit fails writes with EFBIG, as a full disk fails them with ENOSPC.
  bool limited = false;
  auto r = [&] {
    test::FileSizeLimit limit(64 * 1024);
    limited = limit.active();
    return extract(file, format_of(GetParam()), dir / "out", {});
  }();
  ASSERT_TRUE(limited);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::io);
  EXPECT_NE(r.error().hint.find("disk is full"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_P(Extract, NotAnArchiveIsInvalidInput) {
  test::TempDir dir;
  test::write_file(dir / "junk", std::string(5000, 'j'));
  auto r = extract(dir / "junk", format_of(GetParam()), dir / "out", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

std::string format_name(const ::testing::TestParamInfo<ArchiveType>& p) { return p.param == ArchiveType::zip ? "zip" : "tar_gz"; }

INSTANTIATE_TEST_SUITE_P(Formats, Extract, ::testing::Values(ArchiveType::zip, ArchiveType::tar_gz), format_name);

// Several workers each extract a share of a zip's files: the result is the one a single worker
// gives (archive order, sizes, digests), and on_entry is still called once per entry.
TEST(ParallelExtract, GivesWhatOneWorkerGives) {
  test::TempDir dir;
  const fs::path file = dir / "a.zip";
  std::vector<Spec> entries = {test::dir("pkg/"), test::dir("pkg/include/")};
  for (int i = 0; i < 60; ++i) {
    std::string content(static_cast<std::size_t>(1000 + i * 997), '\0');
    for (std::size_t j = 0; j < content.size(); ++j) content[j] = static_cast<char>((j * 31u + static_cast<unsigned>(i)) >> 2);
    entries.push_back(test::file(fmt::format("pkg/{}/file_{:02}.bin", i % 2 ? "include" : "lib", i), content));
  }
  test::write_archive(file, ArchiveType::zip, entries);
  ExtractOptions one = rooted("pkg");
  one.workers = 1;
  auto single = extract(file, Format::zip, dir / "one", one);
  ASSERT_TRUE(single) << single.error().message;
  for (std::size_t workers : {2u, 3u, 7u}) {
    ExtractOptions options = rooted("pkg");
    options.workers = workers;
    std::atomic<int> notified{0};
    options.on_entry = [&](const WrittenEntry&) { ++notified; };
    const fs::path out = dir / fmt::format("out{}", workers);
    auto parallel = extract(file, Format::zip, out, options);
    ASSERT_TRUE(parallel) << parallel.error().message;
    EXPECT_EQ(parallel->entries, single->entries) << workers << " workers";
    EXPECT_EQ(notified.load(), static_cast<int>(single->entries.size()));
    EXPECT_EQ(listing(out), listing(dir / "one"));
    for (const auto& e : parallel->entries) {
      if (e.type == WrittenEntry::Type::file) {
        EXPECT_EQ(*sha256_file(out / e.path), e.sha256) << e.path;
      }
    }
  }
}

// One worker failing stops the others, and the real failure is what is reported.
TEST(ParallelExtract, AFailingWorkerStopsAllAndLeavesNothing) {
  ZCUDA_REQUIRE_FILE_SIZE_LIMIT();
  test::TempDir dir;
  const fs::path file = dir / "a.zip";
  std::vector<Spec> entries;
  for (int i = 0; i < 20; ++i) entries.push_back(test::file(fmt::format("small_{:02}.txt", i), "small"));
  entries.push_back(test::file("big.bin", std::string(2u << 20, 'z')));
  test::write_archive(file, ArchiveType::zip, entries);
  ExtractOptions options;
  options.workers = 3;
  bool limited = false;
  auto r = [&] {
    test::FileSizeLimit limit(64 * 1024);
    limited = limit.active();
    return extract(file, Format::zip, dir / "out", options);
  }();
  ASSERT_TRUE(limited);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::io) << r.error().message;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

struct Hostile {
  const char* label;
  std::vector<Spec> entries;
  const char* offending;  // the entry name the error must quote
  bool tar_only = false;  // zip cannot carry hard links, devices or fifos
};

std::vector<Hostile> hostile_cases() {
  using test::file;
  using test::hardlink;
  using test::symlink;
  return {
      {"dotdot", {file("zluda/ok.dll", "x"), file("../escaped.txt", "x")}, "../escaped.txt"},
      {"dotdot_inside", {file("zluda/../../escaped.txt", "x")}, "zluda/../../escaped.txt"},
      {"absolute", {file("zluda/ok.dll", "x"), file("/tmp/abs.txt", "x")}, "/tmp/abs.txt"},
      {"drive_slash", {file("C:/x.txt", "x")}, "C:/x.txt"},
      {"drive_backslash", {file("C:\\x.txt", "x")}, "C:\\x.txt"},
      {"backslash_dotdot", {file("zluda\\..\\..\\x.txt", "x")}, "zluda\\..\\..\\x.txt"},
      {"stream_name", {file("zluda/a.dll:evil", "x")}, "zluda/a.dll:evil"},
      {"device_name", {file("zluda/CON.txt", "x")}, "zluda/CON.txt"},
      {"trailing_dot", {file("zluda/a.dll.", "x")}, "zluda/a.dll."},
      {"symlink_out", {file("zluda/ok.dll", "x"), symlink("zluda/evil", "../../etc")}, "zluda/evil"},
      {"symlink_absolute", {symlink("zluda/passwd", "/etc/passwd")}, "zluda/passwd"},
      {"symlink_out_of_root", {file("zluda/ok.dll", "x"), file("other.txt", "x"), symlink("zluda/up", "../other.txt")}, "zluda/up"},
      {"symlink_chain", {file("zluda/ok.dll", "x"), symlink("b", "."), symlink("a", "b/..")}, "a"},
      {"through_symlink", {file("zluda/ok.dll", "x"), symlink("zluda/l", "sub"), file("zluda/l/x.dll", "x")}, "zluda/l/x.dll"},
      {"outside_root_escape", {file("zluda/ok.dll", "x"), symlink("docs/link", "../../../etc")}, "docs/link"},
      {"duplicate", {file("zluda/a.dll", "1"), file("zluda/a.dll", "2")}, "zluda/a.dll"},
      {"duplicate_case", {file("zluda/nvcuda.dll", "1"), file("zluda/NVCUDA.dll", "2")}, "zluda/NVCUDA.dll"},
      {"below_file", {file("zluda/a", "1"), file("zluda/a/b", "2")}, "zluda/a/b"},
      {"hardlink_absolute", {file("zluda/ok.dll", "x"), hardlink("zluda/h", "/etc/passwd")}, "zluda/h", true},
      {"hardlink_dotdot", {file("zluda/ok.dll", "x"), hardlink("zluda/h", "../x")}, "zluda/h", true},
      {"hardlink_out_of_root", {file("zluda/ok.dll", "x"), file("secret.txt", "s"), hardlink("zluda/h", "secret.txt")}, "zluda/h", true},
      {"hardlink_missing", {file("zluda/ok.dll", "x"), hardlink("zluda/h", "zluda/nothing")}, "zluda/h", true},
      {"char_device", {file("zluda/ok.dll", "x"), {"zluda/null", Spec::Type::char_device, {}, {}, 0666}}, "zluda/null", true},
      {"fifo", {file("zluda/ok.dll", "x"), {"fifo", Spec::Type::fifo, {}, {}, 0644}}, "fifo", true},
  };
}

std::string hostile_name(const ::testing::TestParamInfo<std::tuple<std::size_t, ArchiveType>>& p) {
  return std::string(hostile_cases()[std::get<0>(p.param)].label) + (std::get<1>(p.param) == ArchiveType::zip ? "_zip" : "_tar_gz");
}

class HostileArchive : public ::testing::TestWithParam<std::tuple<std::size_t, ArchiveType>> {};

TEST_P(HostileArchive, IsRefusedAsAWholeAndWritesNothing) {
  const auto& [index, type] = GetParam();
  const Hostile c = hostile_cases()[index];
  test::TempDir dir;
  const fs::path file = dir / extension(type);
  test::write_archive(file, type, c.entries);
  fs::create_directories(dir / "work");
  auto before = listing(dir.path());
  auto r = extract(file, format_of(type), dir / "work" / "out", rooted("zluda"));
  ASSERT_FALSE(r) << c.label << " was accepted";
  EXPECT_EQ(r.error().kind, ErrorKind::integrity) << c.label << ": " << r.error().message;
  // libarchive's zip code turns '\\' into '/', so the message may quote the converted name.
  std::string converted = c.offending;
  std::replace(converted.begin(), converted.end(), '\\', '/');
  EXPECT_TRUE(r.error().message.find(c.offending) != std::string::npos || r.error().message.find(converted) != std::string::npos)
      << c.label << ": " << r.error().message;
  EXPECT_EQ(listing(dir.path()), before) << c.label << ": something was written";
  EXPECT_FALSE(fs::exists("/tmp/abs.txt"));
  // The whole-archive scan is also available on its own.
  auto s = scan(file, format_of(type), std::string("zluda"));
  EXPECT_FALSE(s) << c.label;
}

// Every case as tar.gz; as zip only those zip can carry (no hard links, devices or fifos).
std::vector<std::tuple<std::size_t, ArchiveType>> hostile_params() {
  std::vector<std::tuple<std::size_t, ArchiveType>> params;
  const auto cases = hostile_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].tar_only) params.emplace_back(i, ArchiveType::zip);
    params.emplace_back(i, ArchiveType::tar_gz);
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Cases, HostileArchive, ::testing::ValuesIn(hostile_params()), hostile_name);

TEST(ArchiveLinks, HardLinkInsideRootGetsTheTargetBytesAndDigest) {
  test::TempDir dir;
  const fs::path file = dir / "a.tar.gz";
  test::write_archive(file, ArchiveType::tar_gz,
                      {test::file("zluda/libzluda_ld.so", "loader"), test::hardlink("zluda/zluda_ld", "zluda/libzluda_ld.so")});
  auto r = extract(file, Format::tar_gz, dir / "out", rooted("zluda"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(test::read_file(dir / "out" / "zluda_ld"), "loader");
  ASSERT_EQ(r->entries.size(), 2u);
  EXPECT_EQ(r->entries[1].sha256, r->entries[0].sha256);
  EXPECT_EQ(r->entries[1].size, 6u);
}

}  // namespace
}  // namespace zcuda::archive
