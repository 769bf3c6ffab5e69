// zcuda verify through the real binary, on a machine without a GPU: clean "missing" and "error"
// results, and isolation of a driver that crashes or hangs inside cuInit.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/run_command.hpp"
#include "support/test_hooks.hpp"
#include "support/temp_dir.hpp"
#include "support/test_child.hpp"

namespace zcuda::test {
namespace {

using nlohmann::json;

#ifdef _WIN32
const char* kDriver = "nvcuda.dll";
#else
const char* kDriver = "libcuda.so.1";
#endif

// A runtime folder holding `library` under the name applications load.
void make_runtime(const std::filesystem::path& dir, const std::string& library) {
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(platform::path_from_utf8(library), dir / kDriver);
}

json check(const json& out, const std::string& name) {
  for (const auto& c : out["checks"]) {
    if (c["name"] == name) return c;
  }
  ADD_FAILURE() << "no result for " << name;
  return json::object();
}

bool system_has_driver() {
#ifdef _WIN32
  HMODULE handle = LoadLibraryW(L"nvcuda.dll");
  if (handle) FreeLibrary(handle);
#else
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (handle) dlclose(handle);
#endif
  return handle != nullptr;
}

bool process_gone(int pid) {
#ifdef _WIN32
  HANDLE process = OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid));
  if (process == nullptr) return true;
  const bool ended = WaitForSingleObject(process, 5000) == WAIT_OBJECT_0;
  CloseHandle(process);
  return ended;
#endif
  for (int i = 0; i < 50; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!stat || !std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') return true;  // dead, not yet reaped
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(Verify, WithoutADriverEveryCheckReportsMissingCleanly) {
  if (system_has_driver()) GTEST_SKIP() << "this machine has a CUDA driver";
  TempDir home;
  auto r = run_zcuda({"--home", home.path().string(), "--json", "verify", "--runtime", "native"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto out = json::parse(r.out);
  EXPECT_EQ(out["command"], "verify");
  EXPECT_EQ(out["runtime"]["kind"], "native");
  ASSERT_EQ(out["checks"].size(), 12u);
  for (const auto& c : out["checks"]) {
    EXPECT_EQ(c["status"], "missing") << c.dump();
    EXPECT_FALSE(c["detail"].get<std::string>().empty());
    EXPECT_TRUE(c.contains("seconds") && c.contains("libraries"));
  }
  EXPECT_NE(check(out, "driver.init")["detail"].get<std::string>().find(kDriver), std::string::npos);
  // Libraries that did load are reported with where they are, their size and digest.
  const auto blas = check(out, "cublas.sgemm")["libraries"];
  if (!blas.empty()) {
    EXPECT_EQ(blas[0]["role"], "cublas");
    EXPECT_TRUE(std::filesystem::exists(platform::path_from_utf8(blas[0]["real_path"].get<std::string>())));
    EXPECT_EQ(blas[0]["sha256"].get<std::string>().size(), 64u);
    EXPECT_GT(blas[0]["size"].get<std::uint64_t>(), 0u);
  }
  EXPECT_EQ(out["summary"]["passed"], false);
  // Saved for zcuda report.
  const auto last = json::parse(read_file(home / "state" / "verify" / "last.json"));
  EXPECT_EQ(last["checks"].size(), 12u);
}

TEST(Verify, StubDriverGivesApiErrorsWithNames) {
  if (std::string(CUDA_STUB_LIBCUDA).empty()) GTEST_SKIP() << "no CUDA toolkit stub libcuda.so here";
  TempDir dir;
  make_runtime(dir / "runtime", CUDA_STUB_LIBCUDA);
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(),
                      "--check", "driver.init", "--check", "driver.kernel", "--check", "cublas.sgemm", "--check", "cusparse.spmm_coo"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto out = json::parse(r.out);
  EXPECT_EQ(out["runtime"]["kind"], "dir");
  EXPECT_EQ(out["runtime"]["launch"], "LD_LIBRARY_PATH");
  ASSERT_EQ(out["checks"].size(), 4u);
  for (const auto& c : out["checks"]) {
    if (c["libraries"].size() < 2 && c["name"] != "driver.init" && c["name"] != "driver.kernel") {
      EXPECT_EQ(c["status"], "missing") << c.dump();  // the library itself is not installed here
      continue;
    }
    EXPECT_EQ(c["status"], "error") << c.dump();
    EXPECT_EQ(c["error"]["api"], "cuInit");
    EXPECT_EQ(c["error"]["code"], 34);
    EXPECT_EQ(c["error"]["name"], "CUDA_ERROR_STUB_LIBRARY");
    bool found_driver = false;
    for (const auto& lib : c["libraries"]) {
      if (lib["role"] == "driver") {
        found_driver = true;
        EXPECT_EQ(lib["path"], (dir / "runtime" / "libcuda.so.1").string()) << "the runtime folder's copy was loaded";
      }
    }
    EXPECT_TRUE(found_driver) << c.dump();
  }
}

TEST(Verify, CrashInCuInitIsIsolated) {
  TempDir dir;
  make_runtime(dir / "runtime", FAKE_CUDA_CRASH);
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(),
                      "--check", "driver.init", "--check", "driver.memory", "--check", "nvml.init"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto out = json::parse(r.out);
  for (const char* name : {"driver.init", "driver.memory"}) {
    const auto c = check(out, name);
    EXPECT_EQ(c["status"], "crash") << c.dump();
    // A crash reads as a signal (Windows: an exception); under a sanitizer it becomes an abort or
    // an exit without a result.
    EXPECT_TRUE(c["detail"].get<std::string>().find("signal") != std::string::npos ||
                c["detail"].get<std::string>().find("exception 0xC0000005") != std::string::npos ||
                c["detail"].get<std::string>().find("without printing a result") != std::string::npos)
        << c.dump();
  }
  // The other check still ran, in its own process, and reported its own outcome.
  EXPECT_NE(check(out, "nvml.init")["status"], "crash");
  EXPECT_NE(check(out, "nvml.init")["status"], "timeout");
}

TEST(Verify, HangInCuInitTimesOutAndTheTreeIsKilled) {
  TempDir dir;
  make_runtime(dir / "runtime", FAKE_CUDA_HANG);
  const auto pidfile = dir / "child.pid";
  CommandOptions options;
  options.set_env["ZCUDA_TEST_PIDFILE"] = pidfile.string();
  options.set_env["ZCUDA_TEST_SLEEPER"] = test_child().string();
  options.timeout_seconds = 60;
  const auto start = std::chrono::steady_clock::now();
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(),
                      "--timeout", "2", "--check", "driver.init", "--check", "driver.kernel", "--check", "nvml.init"},
                     options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_LT(seconds, 30) << "the 2 s timeout was enforced";
  const auto out = json::parse(r.out);
  EXPECT_EQ(check(out, "driver.init")["status"], "timeout");
  EXPECT_EQ(check(out, "driver.kernel")["status"], "timeout");
  EXPECT_NE(check(out, "driver.init")["detail"].get<std::string>().find("2 s"), std::string::npos);
  EXPECT_NE(check(out, "nvml.init")["status"], "timeout") << "the other checks still run";
  // The child the hung cuInit forked was killed with its parent.
  std::ifstream in(pidfile);
  int pid = 0;
  ASSERT_TRUE(in >> pid) << "the fake driver did not record its child";
  EXPECT_TRUE(process_gone(pid)) << "process " << pid << " survived the timeout";
}

TEST(Verify, InstalledZludaIsTestedByDefault) {
  if (std::string(CUDA_STUB_LIBCUDA).empty()) GTEST_SKIP() << "no CUDA toolkit stub libcuda.so here";
  TempDir home;
  write_file(home / "installs" / "zluda" / "current", "test-1\n");
  make_runtime(home / "installs" / "zluda" / "test-1", CUDA_STUB_LIBCUDA);
  auto r = run_zcuda({"--home", home.path().string(), "--json", "verify", "--check", "driver.init"});
  const auto out = json::parse(r.out);
  EXPECT_EQ(out["runtime"]["kind"], "zluda");
  EXPECT_EQ(out["runtime"]["version"], "test-1");
  EXPECT_EQ(check(out, "driver.init")["error"]["code"], 34);
}

TEST(Verify, ZludasCudaCheckIsRunAndLabelledLoadOnly) {
  TempDir dir;
  make_runtime(dir / "runtime", FAKE_CUDA_CRASH);
  // A stand-in for ZLUDA's cuda_check: prints its kind of lines, and sees the runtime folder first.
  const auto fake = platform::path_from_utf8(FAKE_CUDA_CHECK);
  std::filesystem::copy_file(fake, dir / "runtime" / ("cuda_check" + fake.extension().string()));
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(),
                      "--check", "nvml.init"});
  const auto out = json::parse(r.out);
  ASSERT_TRUE(out.contains("cuda_check")) << r.out;
  EXPECT_NE(out["cuda_check"]["label"].get<std::string>().find("load-only"), std::string::npos);
  EXPECT_EQ(out["cuda_check"]["outcome"], "exit code 0");
  ASSERT_EQ(out["cuda_check"]["lines"].size(), 3u);
  EXPECT_EQ(out["cuda_check"]["lines"][0], "nvcuda    : OK");
  EXPECT_EQ(out["cuda_check"]["lines"][2].get<std::string>().rfind("path=" + (dir / "runtime").string(), 0), 0u);
}

TEST(Verify, HumanOutputShowsTheTableAndCountsOnlyCoreChecks) {
  TempDir dir;
  make_runtime(dir / "runtime", FAKE_CUDA_CRASH);
  auto r = run_zcuda({"--home", (dir / "home").string(), "verify", "--runtime-dir", (dir / "runtime").string(),
                      "--check", "driver.init"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("CHECK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("driver.init"), std::string::npos);
  EXPECT_NE(r.out.find("crash"), std::string::npos);
  EXPECT_NE(r.out.find("Saved to"), std::string::npos);
}

TEST(Verify, BadInputIsRefusedWithDistinctCodes) {
  TempDir home;
  auto unknown = run_zcuda({"--home", home.path().string(), "verify", "--check", "no.such"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("driver.init"), std::string::npos) << "the hint lists the known checks";
  auto missing_dir = run_zcuda({"--home", home.path().string(), "verify", "--runtime-dir", (home / "nope").string()});
  EXPECT_EQ(missing_dir.exit_code, 3) << missing_dir.err;
  auto both = run_zcuda({"--home", home.path().string(), "verify", "--runtime-dir", home.path().string(), "--runtime", "native"});
  EXPECT_EQ(both.exit_code, 2);
  auto bad_timeout = run_zcuda({"--home", home.path().string(), "verify", "--timeout", "0"});
  EXPECT_EQ(bad_timeout.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(home / "state" / "verify" / "last.json")) << "nothing saved for refused input";
}

TEST(Verify, ListNamesEveryCheck) {
  TempDir home;
  auto r = run_zcuda({"--home", home.path().string(), "--json", "verify", "--list"});
  ASSERT_EQ(r.exit_code, 0);
  const auto out = json::parse(r.out);
  ASSERT_EQ(out["checks"].size(), 12u);
  EXPECT_EQ(out["checks"][0]["name"], "driver.init");
  EXPECT_EQ(out["checks"][9]["core"], false);
}

TEST(Verify, ProbeFromTheTestHookMustExist) {
  ZCUDA_REQUIRE_TEST_HOOKS();
  TempDir home;
  CommandOptions options;
  options.set_env["ZCUDA_TEST_PROBE"] = (home / "missing-probe").string();
  auto r = run_zcuda({"--home", home.path().string(), "verify", "--runtime", "native"}, options);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("does not exist: " + (home / "missing-probe").string()), std::string::npos) << r.err;
}

}  // namespace
}  // namespace zcuda::test
