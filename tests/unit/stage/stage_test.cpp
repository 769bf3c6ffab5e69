#include <chrono>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/fetch/fetch.hpp>

#include "support/stage_fixture.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

using nlohmann::json;

// On Windows this is the DLL search order at work: the program loads nvcuda.dll by name at run
// time and gets the one in its own folder.
TEST_F(StageFixture, ProgramLoadsItsOwnThenStagedThenItsOwnLibcudaAgain) {
  const auto before = snapshot(app);
  EXPECT_EQ(which_libcuda(), "app-libcuda\n");

  auto staged = zcuda({"stage", (app / cuda_names.app).string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(staged.exit_code, 0) << staged.err;
  EXPECT_EQ(which_libcuda(), "runtime-libcuda\n");
  EXPECT_TRUE(fs::exists(app / ".zcuda-stage" / "journal.json"));
  EXPECT_EQ(read_file(app / ".zcuda-stage" / "backup" / cuda_names.driver), read_file(path_from_utf8(ZCUDA_TEST_APP_LIBCUDA)));

  auto unstaged = zcuda({"unstage", (app / cuda_names.app).string()});
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
  const CudaNames& n = cuda_names;
  EXPECT_EQ(actions[n.driver], "replace");           // the driver, next to the program
  EXPECT_EQ(actions[n.nvml], "add");                 // driver-level: always next to the program
  EXPECT_EQ(actions["lib/" + n.cublas], "replace");  // a file of that name was there
  EXPECT_FALSE(actions.contains(n.cudnn));           // nothing imports it
#ifdef _WIN32
  // The program loads nvcuda.dll at run time: no import names it, the driver rule places it.
  for (const auto& p : j["placements"]) {
    if (p["path"] == n.driver) {
      EXPECT_NE(p["reason"].get<std::string>().find("driver library"), std::string::npos) << p.dump();
    }
  }
#else
  bool libcuda_imported = false;
  for (const auto& name : j["names"]) {
    if (name["name"] == n.driver) libcuda_imported = name["service"] == "served" && name["importers"][0] == n.app;
  }
  EXPECT_TRUE(libcuda_imported) << j["names"].dump();
#endif

  auto text = zcuda({"stage", "--dry-run", app.string(), "--runtime-dir", runtime.string()});
  EXPECT_NE(text.out.find("Dry run: nothing was changed."), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("lib/" + n.cublas), std::string::npos) << text.out;
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
  for (const auto& name : cuda_names.runtime_libraries) EXPECT_TRUE(fs::exists(app / name)) << name;
  EXPECT_FALSE(fs::exists(app / "README"));
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(StageFixture, ChangedRuntimeRestagesFromTheUsersOriginals) {
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  // A new runtime build: a new file (staged files may be hard links to the old one).
  fs::remove(runtime / cuda_names.cublas);
  write_file(runtime / cuda_names.cublas, std::string(100000, 'c'));
  auto again = zcuda({"--json", "stage", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(json::parse(again.out)["restaged"].get<bool>());
  EXPECT_EQ(read_file(app / "lib" / cuda_names.cublas), std::string(100000, 'c'));
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(StageFixture, ChangedStagedFileIsRefusedThenKeptWithForce) {
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  // The user replaces a staged file with their own build.
  fs::remove(app / cuda_names.driver);
  write_file(app / cuda_names.driver, "the user's own build\n");
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
  EXPECT_EQ(read_file(app / cuda_names.driver), read_file(path_from_utf8(ZCUDA_TEST_APP_LIBCUDA)));
  EXPECT_FALSE(fs::exists(app / ".zcuda-stage" / "journal.json"));
  EXPECT_FALSE(fs::exists(app / ".zcuda-stage" / "backup"));
  // Apart from the kept file, the folder is as it was.
  auto after = snapshot(app);
  std::erase_if(after, [](const auto& kv) { return kv.first.starts_with(".zcuda-stage"); });
  EXPECT_EQ(after, before);
}

// The user puts the original back by hand (a copy of the backup) and then unstages: the file is
// recognised as the original by comparing it with the backup, so there is no conflict.
TEST_F(StageFixture, OriginalPutBackByHandIsRecognisedWithoutAConflict) {
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  const fs::path backup = app / ".zcuda-stage" / "backup" / cuda_names.driver;
  ASSERT_TRUE(fs::exists(backup));
  fs::remove(app / cuda_names.driver);
  fs::copy_file(backup, app / cuda_names.driver);
  auto unstaged = zcuda({"unstage", app.string()});
  ASSERT_EQ(unstaged.exit_code, 0) << unstaged.err;
  EXPECT_EQ(snapshot(app), before);
}

// An installed runtime: the fixture's runtime copied to <home>/installs/zluda/v-test/, its files
// dated an hour back (as an installed runtime is older than a stage of it), and a receipt
// beside it. `digest_of` gives each file's receipt digest (default: its true SHA-256);
// `size_delta` changes a recorded size.
class InstalledRuntime : public StageFixture {
 protected:
  void install(const std::map<std::string, std::string>& digest_of = {}, const std::map<std::string, int>& size_delta = {}) {
    installed = home / "installs" / "zluda" / "v-test";
    fs::create_directories(installed.parent_path());
    fs::copy(runtime, installed, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    json files = json::array();
    for (const auto& entry : fs::directory_iterator(installed)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_symlink()) {
        files.push_back({{"path", name}, {"type", "symlink"}, {"target", fs::read_symlink(entry.path()).string()}});
        continue;
      }
      fs::last_write_time(entry.path(), fs::file_time_type::clock::now() - std::chrono::hours(1));
      auto digest = zcuda::sha256_file(entry.path());
      ASSERT_TRUE(digest);
      const auto size = static_cast<long long>(fs::file_size(entry.path())) + (size_delta.contains(name) ? size_delta.at(name) : 0);
      files.push_back({{"path", name}, {"type", "file"}, {"size", size}, {"sha256", digest_of.contains(name) ? digest_of.at(name) : *digest}});
    }
    json receipt = {{"schema", 1}, {"component", "zluda"}, {"version", "v-test"}, {"files", files}};
    write_file(installed.parent_path() / "v-test.receipt.json", receipt.dump(1));
  }

  json journal() { return json::parse(read_file(app / ".zcuda-stage" / "journal.json")); }

  // The journal step that placed `name` (by file name).
  json step_for(const std::string& name) {
    const json j = journal();  // kept alive: a loop over journal()["steps"] would dangle
    for (const auto& s : j["steps"]) {
      if (fs::path(s["path"].get<std::string>()).filename() == name) return s;
    }
    ADD_FAILURE() << "no step for " << name;
    return json::object();
  }

  fs::path installed;
};

TEST_F(InstalledRuntime, DigestsComeFromTheReceiptAndUnstageRecognisesHardLinksWithoutHashing) {
  // A marker digest no file has: if it reaches the journal, the receipt was used and the file
  // was not read. (zcuda trusts a receipt of the right size; `install --repair` re-verifies.)
  const std::string marker(64, 'e');
  install({{cuda_names.cublas, marker}}, {{cuda_names.nvml, 1}});
  auto staged = zcuda({"stage", "--all", app.string(), "--runtime-dir", installed.string()});
  ASSERT_EQ(staged.exit_code, 0) << staged.err;
  const json cublas = step_for(cuda_names.cublas);
  EXPECT_EQ(cublas["staged_sha256"], marker);
  EXPECT_EQ(cublas["method"], "hardlink");
  EXPECT_EQ(cublas["staged_size"], 100000);
  EXPECT_TRUE(cublas["staged_mtime_ns"].is_number_integer());
  // A recorded size that differs from the file: the receipt is not used; the file is hashed.
  EXPECT_EQ(step_for(cuda_names.nvml)["staged_sha256"], *zcuda::sha256_file(installed / cuda_names.nvml));

  // Hashing the staged cuBLAS would not give the marker, so a clean unstage shows it was
  // recognised as a hard link of the runtime file with the recorded size and time.
  auto unstaged = zcuda({"unstage", app.string()});
  ASSERT_EQ(unstaged.exit_code, 0) << unstaged.err;
  EXPECT_EQ(read_file(app / "lib" / cuda_names.cublas), "the application's own cuBLAS\n");
  EXPECT_FALSE(fs::exists(app / ".zcuda-stage"));
}

TEST_F(InstalledRuntime, InterruptedAtEveryStepIsRecoveredWhenStepsRecordTheirIdentity) {
  install();
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", installed.string()}).exit_code, 0);
  ASSERT_TRUE(step_for(cuda_names.driver)["staged_mtime_ns"].is_number_integer()) << journal().dump();
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  interrupt_at_every_step(installed);
}

TEST_F(InstalledRuntime, StagedFileEditedInPlaceIsRefused) {
  install();
  ASSERT_EQ(zcuda({"stage", "--all", app.string(), "--runtime-dir", installed.string()}).exit_code, 0);
  const json step = step_for(cuda_names.nvml);
  ASSERT_TRUE(step["staged_mtime_ns"].is_number_integer()) << step.dump();
  const fs::path target = app / step["path"].get<std::string>();
  ASSERT_TRUE(fs::equivalent(target, installed / cuda_names.nvml));
  {
    // Same inode, same size, other bytes (this also changes the runtime's file: a hard link).
    std::fstream f(target, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.write("ZLUDA", 5);
  }
  ASSERT_TRUE(fs::equivalent(target, installed / cuda_names.nvml));
  ASSERT_EQ(fs::file_size(target), step["staged_size"].get<std::uintmax_t>());
  const auto changed = snapshot(app);
  auto refused = zcuda({"unstage", app.string()});
  EXPECT_EQ(refused.exit_code, 11) << refused.err;  // conflict
  EXPECT_NE(refused.err.find(cuda_names.nvml), std::string::npos) << refused.err;
  EXPECT_EQ(snapshot(app), changed);
}

TEST_F(InstalledRuntime, StagedFileReplacedBySameSizeFileWithTheRecordedTimeIsRefused) {
  install();
  ASSERT_EQ(zcuda({"stage", "--all", app.string(), "--runtime-dir", installed.string()}).exit_code, 0);
  const json step = step_for(cuda_names.nvml);
  ASSERT_TRUE(step["staged_mtime_ns"].is_number_integer()) << step.dump();
  const fs::path target = app / step["path"].get<std::string>();
  const auto time = fs::last_write_time(target);
  fs::remove(target);
  write_file(target, "user nvml!\n");  // as long as "zluda nvml\n"
  fs::last_write_time(target, time);
  ASSERT_EQ(fs::file_size(target), step["staged_size"].get<std::uintmax_t>());
  const auto changed = snapshot(app);
  auto refused = zcuda({"unstage", app.string()});
  EXPECT_EQ(refused.exit_code, 11) << refused.err;
  EXPECT_NE(refused.err.find(cuda_names.nvml), std::string::npos) << refused.err;
  EXPECT_EQ(snapshot(app), changed);
}

// Windows will not let a DLL that a running program has loaded be replaced (nor the program
// itself): stage refuses before changing anything and says what to do. On Linux a running program
// keeps the file it mapped, so staging beside it is safe and goes ahead.
TEST_F(StageFixture, StagingBesideARunningProgram) {
  const auto before = snapshot(app);
  {
    BackgroundOptions capture;
    capture.out = tmp / "running-out.txt";
    BackgroundProcess running({(app / cuda_names.app).string(), "20000"}, capture);
    // It prints its driver library's identity once that library is loaded.
    ASSERT_TRUE(running.wait_for_out("-libcuda")) << running.out();
    auto r = zcuda({"stage", app.string(), "--runtime-dir", runtime.string()});
#ifdef _WIN32
    EXPECT_EQ(r.exit_code, 9) << r.err;  // locked
    EXPECT_NE(r.err.find(cuda_names.driver), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("in use by a running program"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Close the program"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(app), before) << "nothing may change while the program runs";
#else
    EXPECT_EQ(r.exit_code, 0) << r.err;
#endif
  }  // the program is ended here
#ifdef _WIN32
  auto staged = zcuda({"stage", app.string(), "--runtime-dir", runtime.string()});
  ASSERT_EQ(staged.exit_code, 0) << staged.err;
  const auto staged_files = snapshot(app);
  {
    // And unstage, while the program runs with the staged DLL loaded.
    BackgroundOptions capture;
    capture.out = tmp / "running-staged-out.txt";
    BackgroundProcess running({(app / cuda_names.app).string(), "20000"}, capture);
    ASSERT_TRUE(running.wait_for_out("-libcuda")) << running.out();
    auto r = zcuda({"unstage", app.string()});
    EXPECT_EQ(r.exit_code, 9) << r.err;
    EXPECT_NE(r.err.find("in use by a running program"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(app), staged_files);
  }
#endif
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
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
TEST_F(StageFixture, InterruptedAtEveryStepIsRecoveredByTheNextCommand) { interrupt_at_every_step(runtime); }

}  // namespace
}  // namespace zcuda::test
