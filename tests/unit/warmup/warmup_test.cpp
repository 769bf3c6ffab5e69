// zcuda warmup end to end, and run's first-run notice.
#include <chrono>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/warmup/warmup.hpp>

#include "binfmt/section_builder.hpp"
#include "sandbox.hpp"
#include "support/test_child.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#ifdef _WIN32
const char* kPrecompile = "zluda_precompile.exe";
const char* kProgram = "app.exe";
#else
const char* kPrecompile = "zluda_precompile";
const char* kProgram = "app";
#endif

// A fatbin as a real .nv_fatbin / .nv_fatb section starts: FatbinHeader::MAGIC (0xBA55ED50),
// version 1, header size 16, no files; zluda_precompile loads each one it finds.
std::string fatbin_section() {
  std::string s = "\x50\xED\x55\xBA";
  s += std::string("\x01\x00\x10\x00", 4) + std::string(8, '\0');
  return s;
}

class Warmup : public ::testing::Test {
 protected:
  Sandbox box;
  fs::path app = box.tmp / "my app";
  fs::path runtime = box.tmp / "zluda runtime";
  fs::path log = box.tmp / "precompile.log";

  void SetUp() override {
    fs::create_directories(app / "lib");
    fs::create_directories(runtime);
    write_file(app / kProgram, elf_with_sections({".text", ".data"}));
    write_file(app / "libkernels.so", elf_with_sections({".text", ".nv_fatbin"}, fatbin_section()));
    write_file(app / "lib" / "torch_cuda.dll", pe_with_sections({".text", ".nv_fatb"}, fatbin_section()));
    write_file(app / "lib" / "c10.dll", pe_with_sections({".text", ".rdata"}));
    write_file(app / "readme.txt", "not a binary");
  }
  void install_fake_precompile() { fs::copy_file(zcuda::path_from_utf8(FAKE_PRECOMPILE), runtime / kPrecompile); }
  CommandResult warmup(std::vector<std::string> extra = {}, std::vector<std::string> options = {}, const std::string& devices = "1") {
    std::vector<std::string> args = {"warmup", "--runtime-dir", zcuda::path_to_utf8(runtime)};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(zcuda::path_to_utf8(app / kProgram));
    args.insert(args.begin(), extra.begin(), extra.end());
    auto o = box.options();
    o.set_env["FAKE_PRECOMPILE_LOG"] = zcuda::path_to_utf8(log);
    o.set_env["FAKE_PRECOMPILE_DEVICES"] = devices;
    o.unset_env.push_back("HIP_VISIBLE_DEVICES");
    return box.zcuda(args, o);
  }
  static std::string asked(const fs::path& file, const std::string& visible = "") {
    return "arg:--device\narg:0\narg:" + zcuda::path_to_utf8(file) + "\nenv:HIP_VISIBLE_DEVICES=" + visible + "\n";
  }
};

TEST_F(Warmup, CompilesEachCudaBinaryOfTheProgramAndItsLibFolder) {
  install_fake_precompile();
  auto r = warmup();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read_file(log), asked(app / "libkernels.so") + asked(app / "lib" / "torch_cuda.dll"));
  EXPECT_NE(read_file(box.zluda_cache / "zluda2.db").find("module 0 of torch_cuda.dll"), std::string::npos);
  EXPECT_NE(r.err.find("[1/2] compiling"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[2/2] done in"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Warmed up 2 of 2 file(s)"), std::string::npos) << r.out;
}

TEST_F(Warmup, JsonListsEachFileAndQuietShowsNoProgress) {
  install_fake_precompile();
  auto r = warmup({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("[1/2]"), std::string::npos) << r.err;
  auto j = json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][0]["ok"], true);
  EXPECT_EQ(j["files"][0]["cache_changed"], true);
  EXPECT_EQ(j["cache"], zcuda::path_to_utf8(box.zluda_cache));
  EXPECT_EQ(j["failed"], 0);
}

// zluda_precompile exits 0 whatever happened per module: a file none of whose fatbins it could
// load (here one without the fatbin header's magic) leaves ZLUDA's cache as it was, and that is
// what marks it failed.
TEST_F(Warmup, AFileThatLeavesTheCacheUnchangedFailsThoughThePrecompilerExitedZero) {
  install_fake_precompile();
  write_file(app / "libbroken.so", elf_with_sections({".nv_fatbin"}, std::string(16, 'x')));
  auto r = warmup({"--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["files"].size(), 3u) << "the other files are still compiled";
  bool seen = false;
  for (const auto& f : j["files"]) {
    if (f["file"].get<std::string>().find("libbroken.so") == std::string::npos) {
      EXPECT_EQ(f["ok"], true) << f.dump();
      continue;
    }
    seen = true;
    EXPECT_EQ(f["ok"], false);
    EXPECT_EQ(f["cache_changed"], false);
    EXPECT_NE(f["ended"].get<std::string>().find("exit code 0, but ZLUDA's kernel cache"), std::string::npos) << f.dump();
  }
  EXPECT_TRUE(seen);
}

// The GPU is the one `run` would use: --device becomes HIP_VISIBLE_DEVICES, as run sets it, and
// zluda_precompile is told device 0, the first (only) device left visible.
TEST_F(Warmup, CompilesForTheDeviceRunWouldUse) {
  install_fake_precompile();
  auto r = warmup({"--json"}, {"--device", "1", "--no-detect"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read_file(log), asked(app / "libkernels.so", "1") + asked(app / "lib" / "torch_cuda.dll", "1"));
  EXPECT_EQ(json::parse(r.out)["device"], "1");
}

// A device zluda_precompile cannot open ends it before any work, with upstream's message.
TEST_F(Warmup, ADeviceThatIsNotThereFailsWithThePrecompilersError) {
  install_fake_precompile();
  auto r = warmup({"--json"}, {}, "0");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["failed"], 2);
  EXPECT_NE(j["files"][0]["output"].get<std::string>().find("Failed to create ZLUDA context"), std::string::npos) << j.dump();
}

// Only files zluda_precompile reads are queued: a standalone fatbin is reported, not run.
TEST_F(Warmup, AStandaloneFatbinIsReportedNotQueued) {
  install_fake_precompile();
  write_file(app / "kernels.fatbin", fatbin_bytes());
  auto r = warmup({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["files"].size(), 2u);
  ASSERT_EQ(j["not_read"].size(), 1u);
  EXPECT_NE(j["not_read"][0].get<std::string>().find("kernels.fatbin"), std::string::npos);
  EXPECT_EQ(read_file(log).find("kernels.fatbin"), std::string::npos);
}

TEST_F(Warmup, NothingToWarmUpIsExitCodeThree) {
  install_fake_precompile();
  fs::remove(app / "libkernels.so");
  fs::remove(app / "lib" / "torch_cuda.dll");
  auto r = warmup();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("Nothing to warm up"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(log)) << "zluda_precompile must not run";
}

TEST_F(Warmup, MissingZludaPrecompileIsExitCodeTen) {
  auto r = warmup();
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_NE(r.err.find("zluda_precompile"), std::string::npos) << r.err;
}

TEST(WarmupFolders, PyTorchAndBinLibLayouts) {
  TempDir tmp;
  fs::create_directories(tmp / "venv" / "torch" / "lib");
  fs::create_directories(tmp / "libtorch" / "bin");
  fs::create_directories(tmp / "libtorch" / "lib");
  write_file(tmp / "libtorch" / "bin" / "trainer", "x");
  auto venv = warmup::search_folders(tmp / "venv");
  ASSERT_EQ(venv.size(), 2u);
  EXPECT_EQ(venv[1], (tmp / "venv" / "torch" / "lib").lexically_normal());
  auto bin = warmup::search_folders(tmp / "libtorch" / "bin" / "trainer");
  ASSERT_EQ(bin.size(), 2u);
  EXPECT_EQ(bin[0], (tmp / "libtorch" / "bin").lexically_normal());
  EXPECT_EQ(bin[1], (tmp / "libtorch" / "lib").lexically_normal());
}

TEST(WarmupFolders, TheProgramItselfCountsAndOtherFilesOnlyByTheirNames) {
  TempDir tmp;
  write_file(tmp / "trainer", elf_with_sections({".nv_fatbin"}));  // the program, no extension
  write_file(tmp / "helper", elf_with_sections({".nv_fatbin"}));   // another tool: not read
  write_file(tmp / "libcudnn.so.9.1.0", elf_with_sections({".nv_fatbin"}));
  write_file(tmp / "KERNELS.DLL", pe_with_sections({".nv_fatb"}));
  write_file(tmp / "weights.bin", fatbin_bytes());  // data: not read
  auto scan = warmup::find_cuda_binaries(tmp / "trainer");
  std::vector<std::string> names;
  for (const auto& b : scan.binaries) names.push_back(zcuda::path_to_utf8(b.filename()));
  EXPECT_EQ(names, (std::vector<std::string>{"KERNELS.DLL", "libcudnn.so.9.1.0", "trainer"}));
  EXPECT_TRUE(scan.not_read.empty());
  EXPECT_EQ(warmup::find_cuda_binaries(tmp / "trainer", 1).binaries.size(), 1u);
}

TEST(WarmupFolders, OnlyPeAndElf64FilesAreReadByZludaPrecompile) {
  TempDir tmp;
  write_file(tmp / "a.so", elf_with_sections({".nv_fatbin"}));
  write_file(tmp / "a.dll", pe_with_sections({".nv_fatb"}));
  std::string elf32 = elf_with_sections({".nv_fatbin"});
  elf32[4] = 1;
  write_file(tmp / "b.so", elf32);
  write_file(tmp / "c.fatbin", fatbin_bytes());
  EXPECT_FALSE(warmup::precompile_skips(tmp / "a.so"));
  EXPECT_FALSE(warmup::precompile_skips(tmp / "a.dll"));
  ASSERT_TRUE(warmup::precompile_skips(tmp / "b.so"));
  EXPECT_NE(warmup::precompile_skips(tmp / "b.so")->find("32-bit ELF"), std::string::npos);
  ASSERT_TRUE(warmup::precompile_skips(tmp / "c.fatbin"));
  EXPECT_NE(warmup::precompile_skips(tmp / "c.fatbin")->find("standalone fatbin"), std::string::npos);
}

// run's notice, with the test child as the program in a folder that holds CUDA device code.
class FirstRunNotice : public ::testing::Test {
 protected:
  Sandbox box;
  fs::path app = box.tmp / "app";
  fs::path runtime = box.tmp / "runtime";
  fs::path program;

  void SetUp() override {
    fs::create_directories(app);
    fs::create_directories(runtime);
    program = app / test_child().filename();
    fs::copy_file(test_child(), program);
    write_file(app / "libkernels.so", elf_with_sections({".nv_fatbin"}));
  }
  CommandResult run(std::vector<std::string> before = {}) {
    std::vector<std::string> args = before;
    for (const char* a : {"run", "--no-stage", "--no-detect", "--runtime-dir"}) args.push_back(a);
    args.push_back(zcuda::path_to_utf8(runtime));
    args.push_back(zcuda::path_to_utf8(program));
    args.push_back("exit");
    args.push_back("0");
    return box.zcuda(args);
  }
};

TEST_F(FirstRunNotice, AnEmptyCacheGetsTheNoticeUnlessQuietOrJson) {
  auto r = run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ZLUDA's kernel cache is empty"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("zcuda warmup"), std::string::npos) << r.err;
  auto quiet = run({"-q"});
  EXPECT_EQ(quiet.err.find("zcuda warmup"), std::string::npos) << quiet.err;
  auto j = run({"--json"});
  EXPECT_EQ(j.err.find("zcuda warmup"), std::string::npos) << j.err;
}

TEST_F(FirstRunNotice, ACacheOlderThanTheRuntimeGetsItAndAFreshOneDoesNot) {
  write_file(box.zluda_cache / "zluda.db", "entries");
  fs::last_write_time(box.zluda_cache / "zluda.db", fs::file_time_type::clock::now() - std::chrono::hours(48));
  auto old = run();
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.err.find("older than this ZLUDA"), std::string::npos) << old.err;
  fs::last_write_time(box.zluda_cache / "zluda.db", fs::file_time_type::clock::now() + std::chrono::hours(1));
  auto fresh = run();
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(fresh.err.find("zcuda warmup"), std::string::npos) << fresh.err;
}

TEST_F(FirstRunNotice, AProgramWithoutCudaBinariesGetsNone) {
  fs::remove(app / "libkernels.so");
  auto r = run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("zcuda warmup"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace zcuda::test
