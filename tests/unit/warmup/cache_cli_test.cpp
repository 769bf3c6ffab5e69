// zcuda cache and detect's large-cache finding, end to end, on caches in a sandbox.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sandbox.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(CacheCli, ListsEveryCacheWithSizeAndCount) {
  Sandbox box;
  write_file(box.zluda_cache / "zluda.db", std::string(2048, 'x'));
  write_file(box.profile / ".triton" / "cache" / "k1" / "kernel.hsaco", std::string(10, 'x'));
  write_file(box.profile / ".triton" / "cache" / "k2" / "kernel.hsaco", std::string(10, 'x'));
  auto r = box.zcuda({"--json", "cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  std::map<std::string, json> first;
  for (const auto& c : j["caches"]) {
    if (!first.contains(c["name"])) first[c["name"]] = c;
  }
  ASSERT_EQ(first.size(), 4u) << r.out;
  EXPECT_EQ(first["zluda"]["bytes"], 2048);
  EXPECT_EQ(first["zluda"]["files"], 1);
  EXPECT_EQ(fs::path(zcuda::path_from_utf8(first["zluda"]["path"].get<std::string>())), box.zluda_cache.lexically_normal());
  EXPECT_EQ(first["triton"]["files"], 2);
  EXPECT_EQ(first["torchinductor"]["path"], zcuda::path_to_utf8((box.temp / "torchinductor_tester").lexically_normal()));
  EXPECT_EQ(first["miopen"]["exists"], false);
  EXPECT_EQ(j["total_bytes"], 2068);
  auto text = box.zcuda({"cache"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("2.0 KiB"), std::string::npos) << text.out;
}

TEST(CacheCli, ClearNeedsYesAndRemovesOnlyWhatIsNamed) {
  Sandbox box;
  write_file(box.zluda_cache / "zluda.db", "db");
  write_file(box.profile / ".miopen" / "kernels.ukdb", "db");
  auto dry = box.zcuda({"cache", "clear", "zluda"});
  EXPECT_EQ(dry.exit_code, 1) << dry.err;
  EXPECT_NE(dry.out.find("would remove"), std::string::npos) << dry.out;
  EXPECT_TRUE(fs::exists(box.zluda_cache / "zluda.db"));
  auto done = box.zcuda({"cache", "clear", "zluda", "--yes"});
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_FALSE(fs::exists(box.zluda_cache));
  EXPECT_TRUE(fs::exists(box.profile / ".miopen" / "kernels.ukdb"));
  auto unknown = box.zcuda({"cache", "clear", "pip", "--yes"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  auto none = box.zcuda({"cache", "clear"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
}

TEST(CacheCli, DetectReportsACacheOverFiveGiB) {
  Sandbox box;
  fs::create_directories(box.zluda_cache);
  const fs::path db = box.zluda_cache / "zluda.db";
  write_file(db, "");
  // A sparse file: its size counts, its blocks are never written.
  std::error_code ec;
  fs::resize_file(db, (5ull << 30) + 1, ec);
  if (ec) GTEST_SKIP() << "cannot make a 5 GiB sparse file here: " << ec.message();
  auto r = box.zcuda({"--json", "detect", "--no-hip"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  bool found = false;
  for (const auto& f : j["findings"]) {
    if (f["code"] != "large-cache") continue;
    found = true;
    EXPECT_NE(f["hint"].get<std::string>().find("zcuda cache clear zluda --yes"), std::string::npos);
  }
  EXPECT_TRUE(found) << r.out;
  fs::resize_file(db, 5ull << 30);
  auto at_limit = box.zcuda({"--json", "detect", "--no-hip"});
  EXPECT_EQ(at_limit.out.find("large-cache"), std::string::npos) << "exactly 5 GiB is not over the threshold";
}

}  // namespace
}  // namespace zcuda::test
