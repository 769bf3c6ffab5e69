// The stage area against concurrency and planted links (docs/staging.md, "One process at a time"
// and "Links are refused"): two zcuda processes on one folder, a run holding a staged folder, a
// `.zcuda-stage` (or its backup folder) that is a link to somewhere else, and a kept original
// that must stay a copy of its own.
#include <chrono>
#include <fstream>

#include <zcuda/base/sha256.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/stage/stage.hpp>

#include "support/file_size_limit.hpp"
#include "support/stage_fixture.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

// Everything under `dir` except the journal, whose text holds a time stamp.
std::map<std::string, std::string> without_journal(const fs::path& dir) {
  auto files = snapshot(dir);
  files.erase(".zcuda-stage/journal.json");
  return files;
}

// The first stage is stopped after writing its journal: before zcuda locked the folder, a second
// stage took that journal for an interrupted one and rolled it back under the first, which then
// went on placing files into a folder whose backups were gone.
TEST_F(StageFixture, ASecondStageWaitsForTheFirstInsteadOfRecoveringItsJournal) {
  ZCUDA_REQUIRE_TEST_HOOKS();
  const auto before = snapshot(app);
  ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", runtime.string()}).exit_code, 0);
  const auto staged = without_journal(app);
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);

  BackgroundOptions first_options;
  first_options.err = tmp / "first-err.txt";
  first_options.set_env = {{"ZCUDA_TEST_PAUSE_AT", "stage-journaled"}, {"ZCUDA_TEST_PAUSE_SECONDS", "8"}, {"ROCM_PATH", (tmp / "no-rocm").string()}};
  BackgroundProcess first({ZCUDA_BIN, "--home", home.string(), "stage", app.string(), "--runtime-dir", runtime.string()}, first_options);
  ASSERT_TRUE(first.wait_for_err("paused at stage-journaled")) << first.err();

  const auto started = std::chrono::steady_clock::now();
  auto second = zcuda({"stage", app.string(), "--runtime-dir", runtime.string()});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("waiting: another zcuda process"), std::string::npos) << second.err;
  EXPECT_EQ(second.err.find("rolled back"), std::string::npos) << second.err;
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  EXPECT_EQ(first.wait(), 0) << first.err();

  EXPECT_EQ(without_journal(app), staged);
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
}

// A program launched by `zcuda run` from a staged folder holds the folder: unstage waits for it
// (and says so) instead of pulling the libraries from under it; a second run of the folder
// starts at once beside the first.
TEST_F(StageFixture, AProgramRunningFromTheFolderHoldsItAgainstUnstageButNotAgainstAnotherRun) {
  const auto before = snapshot(app);
  BackgroundOptions run_options;
  run_options.out = tmp / "run-out.txt";
  run_options.err = tmp / "run-err.txt";
  run_options.set_env = {{"ROCM_PATH", (tmp / "no-rocm").string()}};
  BackgroundProcess running({ZCUDA_BIN, "--home", home.string(), "run", "--no-detect", "--direct", "--runtime-dir", runtime.string(),
                             (app / cuda_names.app).string(), "60000"},
                            run_options);
  ASSERT_TRUE(running.wait_for_out("runtime-libcuda")) << running.out() << running.err();

  auto beside = zcuda({"run", "--no-detect", "--direct", "--runtime-dir", runtime.string(), (app / cuda_names.app).string(), "0"});
  EXPECT_EQ(beside.exit_code, 0) << beside.err;
  EXPECT_NE(beside.out.find("runtime-libcuda"), std::string::npos) << beside.out;
  EXPECT_EQ(beside.err.find("waiting"), std::string::npos) << beside.err;

  BackgroundOptions unstage_options;
  unstage_options.err = tmp / "unstage-err.txt";
  BackgroundProcess unstaging({ZCUDA_BIN, "--home", home.string(), "unstage", app.string()}, unstage_options);
  ASSERT_TRUE(unstaging.wait_for_err("waiting: another zcuda process")) << unstaging.err();
  EXPECT_TRUE(fs::exists(app / ".zcuda-stage" / "journal.json"));
  // The run ends (killed, with its program): the operating system drops its hold.
  running.kill();
  running.wait();
  EXPECT_EQ(unstaging.wait(), 0) << unstaging.err();
  EXPECT_EQ(snapshot(app), before);
}

#ifndef _WIN32
// A folder shipped with a planted stage area: `.zcuda-stage` (or its backup folder) a link to a
// folder outside, whose "backup" the journal would restore into the app. Nothing outside may be
// moved or deleted, and nothing inside changes. (Windows junctions are refused by the same
// check, platform::is_link; the tests make POSIX links.)
class PlantedLinks : public StageFixture {
 protected:
  void SetUp() override {
    StageFixture::SetUp();
    outside = tmp / "outside";
    write_file(outside / "backup" / "lib" / cuda_names.cublas, "a private key\n");
    fs::create_directories(outside / "backup" / "empty" / "folders");
    // The journal of an interrupted stage that "replaced" lib/<cublas>, backed up in backup/.
    journal = R"({"schema": 1, "operation": "stage", "complete": false, "root": "", "runtime": "", "zcuda": "0.1.0", "started": "",
      "steps": [{"path": "lib/)" +
              cuda_names.cublas +
              R"(", "action": "replace", "source": "/nowhere", "method": null, "original_sha256": null,
      "staged_sha256": "00", "backup": "backup/lib/)" +
              cuda_names.cublas + R"(", "state": "planned"}]})";
  }
  void expect_nothing_moved(const std::map<std::string, std::string>& app_before, const std::map<std::string, std::string>& outside_before) {
    EXPECT_EQ(snapshot(app), app_before);
    EXPECT_EQ(snapshot(outside), outside_before);
  }
  fs::path outside;
  std::string journal;
};

TEST_F(PlantedLinks, AStageFolderThatIsALinkIsRefused) {
  write_file(outside / "journal.json", journal);
  fs::create_directory_symlink(outside, app / ".zcuda-stage");
  const auto app_before = snapshot(app);
  const auto outside_before = snapshot(outside);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"unstage", app.string()},
           {"unstage", "--force", app.string()},
           {"stage", app.string(), "--runtime-dir", runtime.string()},
           {"run", "--no-detect", "--direct", "--runtime-dir", runtime.string(), (app / cuda_names.app).string(), "0"}}) {
    auto r = zcuda(args);
    EXPECT_EQ(r.exit_code, 4) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find("is a link"), std::string::npos) << r.err;
    expect_nothing_moved(app_before, outside_before);
  }
}

TEST_F(PlantedLinks, ABackupFolderThatIsALinkIsRefused) {
  write_file(app / ".zcuda-stage" / "journal.json", journal);
  fs::create_directory_symlink(outside / "backup", app / ".zcuda-stage" / "backup");
  const auto app_before = snapshot(app);
  const auto outside_before = snapshot(outside);
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"unstage", app.string()}, {"stage", app.string(), "--runtime-dir", runtime.string()}}) {
    auto r = zcuda(args);
    EXPECT_EQ(r.exit_code, 4) << args.front() << ": " << r.err;
    expect_nothing_moved(app_before, outside_before);
  }
}

// The journal's own paths stay inside by their text, but a folder on the way is a link: the
// target would be outside.
TEST_F(PlantedLinks, AJournalPathThroughALinkedFolderIsRefused) {
  fs::remove_all(app / "lib");
  fs::create_directory_symlink(outside / "backup" / "lib", app / "lib");
  write_file(app / ".zcuda-stage" / "journal.json", journal);
  write_file(app / ".zcuda-stage" / "backup" / "lib" / cuda_names.cublas, "the application's own cuBLAS\n");
  const auto app_before = snapshot(app);
  const auto outside_before = snapshot(outside);
  auto r = zcuda({"unstage", app.string()});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  expect_nothing_moved(app_before, outside_before);
}
#endif

// A name map's kept original (keep_original_as) and the replaced file's backup hold the same
// bytes; a hard link between them let an installer's `copy /y` over the kept name change the
// backup too, and unstage then "restored" ZLUDA's bytes as the original.
TEST_F(StageFixture, AKeptOriginalIsACopyAndAChangedBackupIsNeverRestored) {
  const auto before = snapshot(app);
  stage::PlanOptions options;
  options.app = app / "lib";
  options.runtime_dir = runtime;
  options.names = {{cuda_names.cublas, cuda_names.cublas, std::string("kept-") + cuda_names.cublas}};
  auto staged = stage::stage(options);
  ASSERT_TRUE(staged) << staged.error().message;
  const fs::path kept = app / "lib" / ("kept-" + cuda_names.cublas);
  const fs::path backup = app / "lib" / ".zcuda-stage" / "backup" / cuda_names.cublas;
  ASSERT_TRUE(fs::exists(kept));
  ASSERT_TRUE(fs::exists(backup));
  auto kept_id = platform::file_identity(kept);
  auto backup_id = platform::file_identity(backup);
  ASSERT_TRUE(kept_id && backup_id);
  EXPECT_FALSE(platform::same_file(*kept_id, *backup_id));

  // The installer copies ZLUDA's cuBLAS over the kept name, in place.
  {
    std::ofstream over(kept, std::ios::binary | std::ios::in | std::ios::out);
    over << "ZLUDA's cuBLAS, copied over the kept name";
  }
  EXPECT_EQ(read_file(backup), "the application's own cuBLAS\n");
  fs::remove(kept);
  auto unstaged = stage::unstage(app / "lib", false);
  ASSERT_TRUE(unstaged) << unstaged.error().message;
  EXPECT_EQ(snapshot(app), before);

  // A backup changed after staging is refused, with --force too, and everything stays.
  ASSERT_TRUE(stage::stage(options));
  fs::remove(kept);
  write_file(backup, "ZLUDA's bytes where the original was\n");
  const auto tampered = snapshot(app);
  for (bool force : {false, true}) {
    auto refused = stage::unstage(app / "lib", force);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, ErrorKind::conflict);
    EXPECT_NE(refused.error().message.find("no longer holds the original bytes"), std::string::npos) << refused.error().message;
    EXPECT_EQ(snapshot(app), tampered);
  }
}

// A folder where not even the journal can be written (read-only, a full disk): nothing changed,
// and the message says so instead of "restoring the folder failed too".
TEST_F(StageFixture, AStageThatCannotWriteItsJournalSaysNothingChanged) {
  ZCUDA_REQUIRE_FILE_SIZE_LIMIT();
  const auto before = snapshot(app);
  stage::PlanOptions options;
  options.app = app / cuda_names.app;
  options.runtime_dir = runtime;
  Result<stage::StageResult> staged = fail(ErrorKind::internal, "not run");
  {
    FileSizeLimit limit(16);
    ASSERT_TRUE(limit.active());
    staged = stage::stage(options);
  }
  ASSERT_FALSE(staged);
  const std::string notes = [&] {
    std::string all;
    for (const auto& note : staged.error().notes) all += note + "\n";
    return all;
  }();
  EXPECT_NE(notes.find("nothing in the folder was changed"), std::string::npos) << staged.error().message << "\n" << notes;
  EXPECT_EQ(notes.find("failed too"), std::string::npos) << notes;
  EXPECT_EQ(snapshot(app), before);
}

}  // namespace
}  // namespace zcuda::test
