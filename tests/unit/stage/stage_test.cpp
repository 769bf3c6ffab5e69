#include <nlohmann/json.hpp>

#include "stage_fixture.hpp"

namespace zcuda::test {
namespace {

using nlohmann::json;

TEST_F(StageFixture, ProgramLoadsItsOwnThenStagedThenItsOwnLibcudaAgain) {
  const auto before = snapshot(app);
  EXPECT_EQ(which_libcuda(), "app-libcuda\n");

  auto staged = zcuda({"stage", (app / "cuda_app").string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(staged.exit_code, 0) << staged.err;
  EXPECT_EQ(which_libcuda(), "runtime-libcuda\n");
  EXPECT_TRUE(fs::exists(app / ".zcuda-stage" / "journal.json"));
  EXPECT_EQ(read_file(app / ".zcuda-stage" / "backup" / "libcuda.so.1"), read_file(ZCUDA_TEST_APP_LIBCUDA));

  auto unstaged = zcuda({"unstage", (app / "cuda_app").string()});
  ASSERT_EQ(unstaged.exit_code, 0) << unstaged.err;
  EXPECT_EQ(which_libcuda(), "app-libcuda\n");
  EXPECT_EQ(snapshot(app), before);  // byte for byte, and no trace of zcuda
}

TEST_F(StageFixture, PlanSaysWhereEachFileGoesAndChangesNothing) {
  const auto before = snapshot(app);
  auto r = zcuda({"--json", "stage", "--dry-run", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(snapshot(app), before);
  auto j = json::parse(r.out);
  std::map<std::string, std::string> actions;
  for (const auto& p : j["placements"]) actions[p["path"]] = p["action"];
  EXPECT_EQ(actions["libcuda.so.1"], "replace");         // the driver, next to the program
  EXPECT_EQ(actions["libnvidia-ml.so.1"], "add");        // driver-level: always next to the program
  EXPECT_EQ(actions["lib/libcublas.so.12"], "replace");  // a file of that name was there
  EXPECT_FALSE(actions.contains("libcudnn.so.9"));       // nothing imports it
  bool libcuda_imported = false;
  for (const auto& n : j["names"]) {
    if (n["name"] == "libcuda.so.1") libcuda_imported = n["service"] == "served" && n["importers"][0] == "cuda_app";
  }
  EXPECT_TRUE(libcuda_imported) << j["names"].dump();

  auto text = zcuda({"stage", "--dry-run", app.string(), "--runtime-dir", runtime.string()});
  EXPECT_NE(text.out.find("Dry run: nothing was changed."), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("lib/libcublas.so.12"), std::string::npos);
}

TEST_F(StageFixture, StagingTwiceChangesNothing) {
  auto first = zcuda({"--json", "stage", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(json::parse(first.out)["placed"], 3);
  const auto staged = snapshot(app);
  auto second = zcuda({"--json", "stage", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(json::parse(second.out)["placed"], 0);
  EXPECT_EQ(json::parse(second.out)["unchanged"], 3);
  EXPECT_EQ(snapshot(app), staged);
}

TEST_F(StageFixture, AllPlacesEveryServedLibraryAndUnstageRemovesThem) {
  const auto before = snapshot(app);
  auto r = zcuda({"--json", "stage", "--all", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"libcuda.so.1", "libnvcuda.so", "libcublas.so.12", "libnvidia-ml.so.1", "libcudnn.so.9"}) {
    EXPECT_TRUE(fs::exists(app / name)) << name;
  }
  EXPECT_FALSE(fs::exists(app / "README"));
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(StageFixture, ChangedRuntimeRestagesFromTheUsersOriginals) {
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  // A new runtime build: a new file (staged files may be hard links to the old one).
  fs::remove(runtime / "libcublas.so.12");
  write_file(runtime / "libcublas.so.12", std::string(100000, 'c'));
  auto again = zcuda({"--json", "stage", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(json::parse(again.out)["restaged"].get<bool>());
  EXPECT_EQ(read_file(app / "lib" / "libcublas.so.12"), std::string(100000, 'c'));
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(StageFixture, ChangedStagedFileIsRefusedThenKeptWithForce) {
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  // The user replaces a staged file with their own build.
  fs::remove(app / "libcuda.so.1");
  write_file(app / "libcuda.so.1", "the user's own build\n");
  const auto changed = snapshot(app);

  auto refused = zcuda({"unstage", app.string()});
  EXPECT_EQ(refused.exit_code, 11) << refused.err;  // conflict
  EXPECT_NE(refused.err.find("changed since staging"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos);
  EXPECT_EQ(snapshot(app), changed);  // nothing touched

  auto forced = zcuda({"--json", "unstage", "--force", app.string()});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  auto j = json::parse(forced.out);
  ASSERT_EQ(j["kept"].size(), 1u);
  EXPECT_EQ(read_file(j["kept"][0].get<std::string>()), "the user's own build\n");
  EXPECT_EQ(read_file(app / "libcuda.so.1"), read_file(ZCUDA_TEST_APP_LIBCUDA));
  EXPECT_FALSE(fs::exists(app / ".zcuda-stage" / "journal.json"));
  EXPECT_FALSE(fs::exists(app / ".zcuda-stage" / "backup"));
  // Apart from the kept file, the folder is as it was.
  auto after = snapshot(app);
  std::erase_if(after, [](const auto& kv) { return kv.first.starts_with(".zcuda-stage"); });
  EXPECT_EQ(after, before);
}

TEST_F(StageFixture, UnstageOfAFolderNeverStagedSaysSo) {
  auto r = zcuda({"--json", "unstage", app.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(json::parse(r.out)["was_staged"].get<bool>());
}

TEST_F(StageFixture, MissingRuntimeOrAppAreClearErrors) {
  auto no_runtime = zcuda({"stage", app.string()});
  EXPECT_EQ(no_runtime.exit_code, 3);
  EXPECT_NE(no_runtime.err.find("zcuda install"), std::string::npos) << no_runtime.err;
  auto no_app = zcuda({"stage", (tmp / "nope").string(), "--runtime-dir", runtime.string()});
  EXPECT_EQ(no_app.exit_code, 3);
  auto no_driver = zcuda({"stage", app.string(), "--runtime-dir", (app / "lib").string()});
  EXPECT_NE(no_driver.exit_code, 0);
}

// Kill the stage (and the unstage) at every journal step; the next command must leave the
// folder exactly as before (unstage) or fully staged (stage).
TEST_F(StageFixture, InterruptedAtEveryStepIsRecoveredByTheNextCommand) {
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  const auto staged = snapshot(app);
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  ASSERT_EQ(snapshot(app), before);

  int crashes = 0;
  for (int step = 1; step < 100; ++step) {
    const CommandOptions crash = crash_after(step);
    auto r = zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}, crash);
    if (r.exit_code == 0) break;  // past the last step
    ASSERT_EQ(r.exit_code, 99) << "step " << step << ": " << r.err;
    ++crashes;
    if (step % 2 == 0) {
      // Recovered by unstage: exactly as before.
      auto u = zcuda({"unstage", app.string()});
      ASSERT_EQ(u.exit_code, 0) << "step " << step << ": " << u.err;
      ASSERT_EQ(snapshot(app), before) << "step " << step;
    } else {
      // Recovered by stage: rolled back, then staged in full.
      auto s = zcuda({"stage", app.string(), "--runtime-dir", runtime.string()});
      ASSERT_EQ(s.exit_code, 0) << "step " << step << ": " << s.err;
      auto now = snapshot(app);
      now.erase(".zcuda-stage/journal.json");  // holds a time stamp
      auto expected = staged;
      expected.erase(".zcuda-stage/journal.json");
      ASSERT_EQ(now, expected) << "step " << step;
      EXPECT_EQ(which_libcuda(), "runtime-libcuda\n");
      ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
      ASSERT_EQ(snapshot(app), before) << "step " << step;
    }
  }
  EXPECT_GE(crashes, 8);  // three files, two of them replaced: at least this many steps

  // And an unstage killed at every step is finished by the next unstage.
  for (int step = 1; step < 100; ++step) {
    ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
    const CommandOptions crash = crash_after(step);
    auto r = zcuda({"unstage", app.string()}, crash);
    if (r.exit_code == 0) break;
    ASSERT_EQ(r.exit_code, 99) << "step " << step << ": " << r.err;
    auto u = zcuda({"unstage", app.string()});
    ASSERT_EQ(u.exit_code, 0) << "step " << step << ": " << u.err;
    ASSERT_EQ(snapshot(app), before) << "step " << step;
  }
}

}  // namespace
}  // namespace zcuda::test
