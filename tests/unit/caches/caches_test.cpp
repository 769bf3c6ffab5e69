// The caches module on real folders: where each cache is found, what it holds, and clearing that
// removes exactly the cache folders (never through a link, never a profile or temp folder).
#include <map>

#include <gtest/gtest.h>

#include <zcuda/caches/caches.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/base/path_text.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;

struct CacheWorld {
  TempDir tmp;
  std::map<std::string, std::string> env;
  caches::Inputs inputs() const {
    caches::Inputs in;
    in.roots.profile = tmp / "home";
    in.roots.user_cache = tmp / "local";
    in.roots.temp = tmp / "temp";
    in.roots.user = "jos\xc3\xa9/x";  // a slash, which TorchInductor makes '_'
    in.env = [env = env](std::string_view name) -> std::optional<std::string> {
      auto it = env.find(std::string(name));
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    return in;
  }
};

std::map<std::string, std::vector<fs::path>> by_name(const std::vector<caches::Folder>& folders) {
  std::map<std::string, std::vector<fs::path>> out;
  for (const auto& f : folders) out[f.name].push_back(f.path);
  return out;
}

TEST(Caches, DefaultFolders) {
  CacheWorld w;
  auto found = by_name(caches::locate(w.inputs()));
  const fs::path home = w.tmp / "home";
  EXPECT_EQ(found["zluda"], std::vector<fs::path>{(w.tmp / "local" / "zluda" / "ComputeCache").lexically_normal()});
  EXPECT_EQ(found["miopen"], (std::vector<fs::path>{(home / ".miopen").lexically_normal(), (home / ".cache" / "miopen").lexically_normal()}));
  EXPECT_EQ(found["triton"], std::vector<fs::path>{(home / ".triton" / "cache").lexically_normal()});
  EXPECT_EQ(found["torchinductor"],
            std::vector<fs::path>{(w.tmp / "temp" / zcuda::path_from_utf8("torchinductor_jos\xc3\xa9_x")).lexically_normal()});
}

TEST(Caches, VariablesNameFoldersAndRelativeOnesAreIgnored) {
  CacheWorld w;
  const std::string abs_triton = zcuda::path_to_utf8(w.tmp / "my triton");
  const std::string abs_db = zcuda::path_to_utf8(w.tmp / "miopen db");
  w.env = {{"TRITON_CACHE_DIR", abs_triton}, {"MIOPEN_USER_DB_PATH", abs_db}, {"TORCHINDUCTOR_CACHE_DIR", "relative/dir"}};
  auto folders = caches::locate(w.inputs());
  auto found = by_name(folders);
  EXPECT_EQ(found["triton"], std::vector<fs::path>{zcuda::path_from_utf8(abs_triton).lexically_normal()});
  EXPECT_EQ(found["miopen"].size(), 3u);
  EXPECT_EQ(found["miopen"].front(), zcuda::path_from_utf8(abs_db).lexically_normal());
  EXPECT_EQ(found["torchinductor"].front().filename(), zcuda::path_from_utf8("torchinductor_jos\xc3\xa9_x"));
  for (const auto& f : folders) {
    if (f.name == "triton") {
      EXPECT_EQ(f.origin, "TRITON_CACHE_DIR");
    }
  }
}

TEST(Caches, MeasureCountsFilesSizesAndAges) {
  CacheWorld w;
  const fs::path zluda = w.tmp / "local" / "zluda" / "ComputeCache";
  write_file(zluda / "zluda.db", std::string(1000, 'x'));
  write_file(zluda / "sub" / "more.bin", std::string(24, 'y'));
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(zluda / "sub" / "more.bin", old_time);
  auto usage = caches::measure({"zluda", zluda, "default"});
  EXPECT_TRUE(usage.exists);
  EXPECT_EQ(usage.bytes, 1024u);
  EXPECT_EQ(usage.files, 2u);
  ASSERT_TRUE(usage.newest && usage.oldest);
  EXPECT_GE(*usage.newest - *usage.oldest, 47 * 3600);
  auto none = caches::measure({"triton", w.tmp / "nothing", "default"});
  EXPECT_FALSE(none.exists);
  EXPECT_EQ(none.bytes, 0u);
  auto j = caches::to_json(usage);
  EXPECT_EQ(j["bytes"], 1024);
  EXPECT_EQ(j["files"], 2);
}

// What run's first-run notice asks of ZLUDA's cache: any file at all, and any written since the
// runtime arrived; the walk stops at the first such file instead of measuring the whole cache.
TEST(Caches, WrittenSinceLooksForOneFileNewEnough) {
  CacheWorld w;
  const fs::path zluda = w.tmp / "local" / "zluda" / "ComputeCache";
  const caches::Folder folder{"zluda", zluda, "default"};
  auto missing = caches::written_since(folder, std::nullopt);
  EXPECT_FALSE(missing.any);
  EXPECT_FALSE(missing.since);
  fs::create_directories(zluda / "empty");
  EXPECT_FALSE(caches::written_since(folder, std::nullopt).any);
  write_file(zluda / "sub" / "old.bin", "x");
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(zluda / "sub" / "old.bin", now - std::chrono::hours(48));
  const auto seconds = [](fs::file_time_type t) {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::file_clock::to_sys(t).time_since_epoch()).count();
  };
  const std::int64_t yesterday = seconds(now - std::chrono::hours(24));
  auto older = caches::written_since(folder, yesterday);
  EXPECT_TRUE(older.any);
  EXPECT_FALSE(older.since);
  EXPECT_TRUE(caches::written_since(folder, std::nullopt).since);  // no runtime time: any file counts
  write_file(zluda / "zluda.db", "y");
  auto fresh = caches::written_since(folder, yesterday);
  EXPECT_TRUE(fresh.any);
  EXPECT_TRUE(fresh.since);
}

// Creates a directory link, or says why it cannot (Windows without the privilege, some Wine setups).
bool make_dir_link(const fs::path& target, const fs::path& link, std::string& why) {
  std::error_code ec;
  fs::create_directory_symlink(target, link, ec);
  if (ec) why = "cannot create a directory symlink here: " + ec.message();
  return !ec;
}

TEST(Caches, ClearRemovesTheCacheButNotWhatLinksInsidePointTo) {
  CacheWorld w;
  const fs::path triton = w.tmp / "home" / ".triton" / "cache";
  const fs::path outside = w.tmp / "precious";
  write_file(triton / "a" / "kernel.bin", "compiled");
  write_file(outside / "keep.txt", "keep me");
  std::string why;
  if (!make_dir_link(outside, triton / "link-out", why)) GTEST_SKIP() << why;
  auto usage = caches::measure({"triton", triton, "default"});
  EXPECT_EQ(usage.files, 1u) << "the link's target must not be counted";

  auto dry = caches::clear({"triton"}, w.inputs(), false);
  ASSERT_TRUE(dry) << dry.error().message;
  ASSERT_EQ(dry->size(), 1u);
  EXPECT_FALSE((*dry)[0].removed);
  EXPECT_TRUE(fs::exists(triton / "a" / "kernel.bin")) << "without --yes nothing is removed";

  auto done = caches::clear({"triton"}, w.inputs(), true);
  ASSERT_TRUE(done) << done.error().message;
  ASSERT_EQ(done->size(), 1u);
  EXPECT_TRUE((*done)[0].removed);
  EXPECT_FALSE(fs::exists(triton));
  EXPECT_EQ(read_file(outside / "keep.txt"), "keep me");
}

TEST(Caches, ALinkedCacheFolderIsLeftAlone) {
  CacheWorld w;
  const fs::path real = w.tmp / "elsewhere";
  write_file(real / "kernel.bin", "compiled");
  fs::create_directories(w.tmp / "home" / ".triton");
  std::string why;
  if (!make_dir_link(real, w.tmp / "home" / ".triton" / "cache", why)) GTEST_SKIP() << why;
  auto done = caches::clear({"triton"}, w.inputs(), true);
  ASSERT_TRUE(done) << done.error().message;
  ASSERT_EQ(done->size(), 1u);
  EXPECT_FALSE((*done)[0].removed);
  ASSERT_TRUE((*done)[0].refused);
  EXPECT_NE((*done)[0].refused->find("link"), std::string::npos);
  EXPECT_TRUE(fs::exists(real / "kernel.bin"));
}

TEST(Caches, AVariablePointingAtHomeOrTempIsRefused) {
  CacheWorld w;
  write_file(w.tmp / "home" / "thesis.tex", "years of work");
  write_file(w.tmp / "temp" / "other.txt", "someone else's");
  w.env = {{"TRITON_CACHE_DIR", zcuda::path_to_utf8(w.tmp / "home")},
           {"TORCHINDUCTOR_CACHE_DIR", zcuda::path_to_utf8(w.tmp / "temp")},
           {"MIOPEN_USER_DB_PATH", zcuda::path_to_utf8(w.tmp.path())},
           // The profile folder in other letter case, with a trailing separator.
           {"MIOPEN_CUSTOM_CACHE_DIR", zcuda::path_to_utf8(w.tmp / "HOME") + "/"}};
  fs::create_directories(w.tmp / "HOME");  // on Linux another folder; refused all the same
  auto done = caches::clear({"triton", "torchinductor", "miopen"}, w.inputs(), true);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->size(), 4u);
  for (const auto& r : *done) {
    EXPECT_FALSE(r.removed) << r.usage.folder.path;
    EXPECT_TRUE(r.refused) << r.usage.folder.path;
  }
  EXPECT_EQ(read_file(w.tmp / "home" / "thesis.tex"), "years of work");
  EXPECT_EQ(read_file(w.tmp / "temp" / "other.txt"), "someone else's");
}

TEST(Caches, OnlyTheNamedCachesAreClearedAndUnknownNamesAreUsageErrors) {
  CacheWorld w;
  const fs::path zluda = w.tmp / "local" / "zluda" / "ComputeCache";
  const fs::path miopen = w.tmp / "home" / ".miopen";
  write_file(zluda / "zluda.db", "db");
  write_file(miopen / "kernels.ukdb", "db");
  write_file(w.tmp / "local" / "zluda" / "settings.txt", "not the cache");
  auto done = caches::clear({"zluda"}, w.inputs(), true);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_FALSE(fs::exists(zluda));
  EXPECT_TRUE(fs::exists(w.tmp / "local" / "zluda" / "settings.txt"));
  EXPECT_TRUE(fs::exists(miopen / "kernels.ukdb"));
  auto bad = caches::clear({"zluda", "ZLUDA"}, w.inputs(), true);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::usage);
  EXPECT_TRUE(fs::exists(miopen / "kernels.ukdb"));
}

TEST(Caches, LargeCacheFindingAboveTheThresholdOnly) {
  CacheWorld w;
  const fs::path zluda = w.tmp / "local" / "zluda" / "ComputeCache";
  write_file(zluda / "zluda.db", std::string(100, 'x'));
  auto usage = caches::measure({"zluda", zluda, "default"});
  detect::Profile at_limit;
  detect::add_cache_findings(at_limit, {usage}, 100);
  EXPECT_TRUE(at_limit.findings.empty());
  detect::Profile over;
  detect::add_cache_findings(over, {usage}, 99);
  ASSERT_EQ(over.findings.size(), 1u);
  EXPECT_EQ(over.findings[0].code, "large-cache");
  EXPECT_NE(over.findings[0].hint.find("zcuda cache clear zluda --yes"), std::string::npos);
  EXPECT_NE(over.findings[0].hint.find("ZLUDA update"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::test
