// zcuda verify through the real binary, on a machine without a GPU: clean "missing" and "error"
// results, isolation of a driver that crashes or hangs inside cuInit, and fake libraries (a
// host-memory driver, a cuDNN with chosen behaviour) whose right numbers, wrong numbers, missing
// backend and crash verify tells apart.
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
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

using nlohmann::json;

#ifdef _WIN32
const char* kDriver = "nvcuda.dll";
const char* kCudnn = "cudnn64_9.dll";
#else
const char* kDriver = "libcuda.so.1";
const char* kCudnn = "libcudnn.so.9";
#endif

// A runtime folder holding `library` under the name applications load.
void make_runtime(const std::filesystem::path& dir, const std::string& library) {
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(path_from_utf8(library), dir / kDriver);
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
  EXPECT_TRUE(out["runtime_family"].is_null()) << "the system's CUDA is no ZLUDA family";
  ASSERT_EQ(out["checks"].size(), 37u);
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
    EXPECT_TRUE(std::filesystem::exists(path_from_utf8(blas[0]["real_path"].get<std::string>())));
    EXPECT_EQ(blas[0]["sha256"].get<std::string>().size(), 64u);
    EXPECT_GT(blas[0]["size"].get<std::uint64_t>(), 0u);
  }
  EXPECT_EQ(out["summary"]["passed"], false);
  EXPECT_EQ(out["summary"]["level"]["id"], "none");
  EXPECT_EQ(out["summary"]["level"]["label"], "not detected");
  // Checks that shared a process say which.
  EXPECT_EQ(check(out, "cudnn.conv_forward")["shared_process"], "cudnn-conv");
  EXPECT_TRUE(check(out, "driver.memory")["shared_process"].is_null());
  // Saved for zcuda report.
  const auto last = json::parse(read_file(home / "state" / "verify" / "last.json"));
  EXPECT_EQ(last["checks"].size(), 37u);
}

TEST(Verify, StubDriverGivesApiErrorsWithNames) {
  if (std::string(CUDA_STUB_LIBCUDA).empty()) GTEST_SKIP() << "no CUDA toolkit stub libcuda.so here";
  TempDir dir;
  make_runtime(dir / "runtime", CUDA_STUB_LIBCUDA);
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(), "--check", "driver.init",
                      "--check", "driver.kernel", "--check", "cublas.sgemm", "--check", "cusparse.spmm_coo"});
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
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(), "--check", "driver.init",
                      "--check", "driver.memory", "--check", "nvml.init"});
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
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(), "--timeout", "2", "--check",
                      "driver.init", "--check", "driver.kernel", "--check", "nvml.init"},
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

// A runtime folder with the host-memory fake driver and `cudnn` as the cuDNN.
std::filesystem::path fake_runtime(const TempDir& dir, const char* cudnn) {
  const auto runtime = dir / "runtime";
  make_runtime(runtime, FAKE_CUDA_DRIVER);
  std::filesystem::copy_file(path_from_utf8(cudnn), runtime / kCudnn);
  return runtime;
}

// These tests are about cuDNN's outcomes, not the HIP SDK: on Windows without one, verify would
// predict the MIOpen dialog ZLUDA's cuDNN opens and not start the cuDNN checks, so a MIOpen.dll
// sits beside the stand-in libraries, where ZLUDA looks first.
std::filesystem::path fake_runtime_with_miopen(const TempDir& dir, const char* cudnn) {
  const auto runtime = fake_runtime(dir, cudnn);
  std::ofstream(runtime / "MIOpen.dll", std::ios::binary) << "MZ";
  return runtime;
}

json verify_with(const TempDir& dir, const std::filesystem::path& runtime, const std::vector<std::string>& checks, const std::string& cudnn_mode) {
  std::vector<std::string> args{"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", runtime.string()};
  for (const auto& c : checks) {
    args.push_back("--check");
    args.push_back(c);
  }
  CommandOptions options;
  options.set_env["ZCUDA_FAKE_CUDNN"] = cudnn_mode;
  options.timeout_seconds = 120;
  auto r = run_zcuda(args, options);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  return json::parse(r.out);
}

// The checks for the driver calls upstream added after v6-preview.69 compare what the calls do:
// the fake driver's right 2D copies and bus id pass, its wrong ones fail, and the texture and
// cache-configuration checks, which need a kernel the fake cannot run, do not pass by loading.
TEST(Verify, UpstreamDriverAdditionsAreCheckedByTheirResults) {
  TempDir dir;
  const auto runtime = fake_runtime(dir, FAKE_CUDNN);
  auto verify_driver = [&](const std::string& mode) {
    CommandOptions options;
    options.set_env["ZCUDA_FAKE_DRIVER"] = mode;
    options.timeout_seconds = 120;
    auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", runtime.string(), "--check", "driver.pitch_2d",
                        "--check", "driver.pci_bus_id", "--check", "driver.texture", "--check", "driver.cache_config"},
                       options);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
    return json::parse(r.out);
  };
  const auto right = verify_driver("right");
  EXPECT_EQ(check(right, "driver.pitch_2d")["status"], "pass") << right.dump(1);
  EXPECT_EQ(check(right, "driver.pitch_2d")["metrics"]["pitch"], 1536);
  EXPECT_EQ(check(right, "driver.pci_bus_id")["status"], "pass") << right.dump(1);
  EXPECT_EQ(check(right, "driver.pci_bus_id")["metrics"]["pci_bus_id"], "0001:2a:03.0");
  for (const char* needs_kernel : {"driver.texture", "driver.cache_config"}) {
    EXPECT_NE(check(right, needs_kernel)["status"], "pass") << check(right, needs_kernel).dump();
    EXPECT_NE(check(right, needs_kernel)["detail"].get<std::string>().find("cuModuleLoadDataEx"), std::string::npos)
        << check(right, needs_kernel).dump();
  }

  const auto wrong = verify_driver("wrong");
  const auto copy = check(wrong, "driver.pitch_2d");
  EXPECT_EQ(copy["status"], "fail") << copy.dump();
  EXPECT_EQ(copy["metrics"]["mismatched_words"], 200) << "the last row of 200 words was not copied";
  const auto bus = check(wrong, "driver.pci_bus_id");
  EXPECT_EQ(bus["status"], "fail") << bus.dump();
  EXPECT_NE(bus["detail"].get<std::string>().find("1:2a:3"), std::string::npos) << bus["detail"];
}

// Windows: without rocblas.dll beside ZLUDA or in a HIP SDK, ZLUDA's cuBLAS opens a modal "ZLUDA
// failed to load rocblas.dll" dialog (zluda_windows/src/lib.rs) that a probe would wait on until
// killed; verify predicts it from detection and does not start those checks.
TEST(Verify, PredictedZludaLoadDialogsAreNotWaitedOn) {
#ifndef _WIN32
  GTEST_SKIP() << "ZLUDA's load dialogs are Windows-only";
#endif
  TempDir dir;
  const auto runtime = fake_runtime(dir, FAKE_CUDNN);
  CommandOptions options;
  options.timeout_seconds = 120;
  options.unset_env = {"HIP_PATH"};
  options.set_env["ProgramFiles"] = (dir / "no program files").string();
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", runtime.string(), "--check", "driver.pitch_2d",
                      "--check", "cublas.sgemm"},
                     options);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  const auto out = json::parse(r.out);
  const auto blas = check(out, "cublas.sgemm");
  EXPECT_EQ(blas["status"], "missing") << blas.dump();
  EXPECT_NE(blas["detail"].get<std::string>().find("not started"), std::string::npos) << blas.dump();
  EXPECT_NE(blas["detail"].get<std::string>().find("ZLUDA failed to load rocblas.dll"), std::string::npos) << blas.dump();
  EXPECT_EQ(check(out, "driver.pitch_2d")["status"], "pass") << "the other checks still run";
  EXPECT_NE(r.err.find("ZLUDA failed to load rocblas.dll"), std::string::npos) << r.err;
}

// Right numbers, wrong numbers, a backend that cannot start and a crash are four different
// answers, and verify keeps them apart.
TEST(Verify, FakeCudnnOutcomesAreToldApart) {
  TempDir dir;
  const auto runtime = fake_runtime_with_miopen(dir, FAKE_CUDNN);
  const std::vector<std::string> checks{"cudnn.create", "cudnn.conv_forward"};

  auto right = verify_with(dir, runtime, checks, "right");
  EXPECT_EQ(check(right, "cudnn.conv_forward")["status"], "pass") << right.dump(1);
  EXPECT_EQ(check(right, "cudnn.create")["status"], "pass");
  EXPECT_NE(check(right, "cudnn.create")["detail"].get<std::string>().find("9.14.0"), std::string::npos);
  EXPECT_EQ(check(right, "cudnn.conv_forward")["stack"], "nvidia");
  EXPECT_EQ(check(right, "cudnn.conv_forward")["metrics"]["algorithm"], 0) << "the algorithm came from cuDNN's own query";

  auto wrong = verify_with(dir, runtime, checks, "wrong");
  const auto conv = check(wrong, "cudnn.conv_forward");
  EXPECT_EQ(conv["status"], "fail") << conv.dump();
  EXPECT_NE(conv["detail"].get<std::string>().find("exceeds the tolerance"), std::string::npos) << conv["detail"];
  EXPECT_GT(conv["metrics"]["rel_l2_error"].get<double>(), 0.1);

  auto no_backend = verify_with(dir, runtime, checks, "no-backend");
  for (const char* name : {"cudnn.create", "cudnn.conv_forward"}) {
    const auto c = check(no_backend, name);
    EXPECT_EQ(c["status"], "unsupported") << c.dump();
    EXPECT_EQ(c["error"]["code"], 4000);
    EXPECT_EQ(c["error"]["name"], "CUDNN_STATUS_INTERNAL_ERROR");
    EXPECT_NE(c["detail"].get<std::string>().find("MIOpen"), std::string::npos) << c["detail"];
  }

  auto crash = verify_with(dir, runtime, checks, "crash");
  EXPECT_EQ(check(crash, "cudnn.conv_forward")["status"], "crash") << crash.dump(1);
  EXPECT_EQ(check(crash, "cudnn.create")["status"], "pass") << "a check in another process is untouched";
}

// Checks that share a process keep the isolation they had alone: the one that crashed is
// charged, the others run again in their own processes.
TEST(Verify, ACrashInASharedProcessCostsOnlyThatCheck) {
  TempDir dir;
  const auto runtime = fake_runtime_with_miopen(dir, FAKE_CUDNN);
  auto out = verify_with(dir, runtime, {"cudnn.conv_forward", "cudnn.conv_backward_data", "cudnn.conv_backward_filter"}, "crash");
  EXPECT_EQ(check(out, "cudnn.conv_forward")["status"], "crash");
  for (const char* name : {"cudnn.conv_backward_data", "cudnn.conv_backward_filter"}) {
    const auto c = check(out, name);
    // The fake does not export the backward calls: an honest "unsupported", from a fresh process.
    EXPECT_EQ(c["status"], "unsupported") << c.dump();
    EXPECT_NE(c["detail"].get<std::string>().find("does not export cudnnGetConvolutionBackward"), std::string::npos) << c["detail"];
  }
}

TEST(Verify, CudnnWhoseBackendIsMissingIsUnsupported) {
#ifdef _WIN32
  // Under Wine the fake backend DLL was still found by the loader (the fake cuDNN loaded and
  // cudnn.create passed), so the missing dependency cannot be staged there; not yet understood.
  GTEST_SKIP() << "the fake backend DLL cannot be hidden from Wine's loader";
#endif
  TempDir dir;
  // fake_miopen stays behind: the loader finds the cuDNN but not what it needs.
  const auto runtime = fake_runtime(dir, FAKE_CUDNN_NEEDS_BACKEND);
  auto out = verify_with(dir, runtime, {"cudnn.create", "driver.init"}, "right");
  const auto c = check(out, "cudnn.create");
  EXPECT_EQ(c["status"], "unsupported") << c.dump();
  EXPECT_NE(c["detail"].get<std::string>().find("MIOpen"), std::string::npos) << c["detail"];
#ifdef _WIN32
  EXPECT_NE(c["detail"].get<std::string>().find("a DLL it needs is missing"), std::string::npos) << c["detail"];
#else
  // ld.so names the library it could not find; Windows' loader does not.
  EXPECT_NE(c["detail"].get<std::string>().find("fake_miopen"), std::string::npos) << "the missing library is named: " << c["detail"];
#endif
  EXPECT_EQ(check(out, "driver.init")["status"], "pass");
}

TEST(Verify, FakeDriverLevelsAndWhatItCannotRun) {
  TempDir dir;
  const auto runtime = fake_runtime(dir, FAKE_CUDNN);
  auto out = verify_with(dir, runtime, {"driver.init", "driver.memory", "driver.kernel", "driver.memset", "driver.graph"}, "right");
  EXPECT_EQ(check(out, "driver.init")["status"], "pass");
  EXPECT_EQ(check(out, "driver.memory")["status"], "pass");
  EXPECT_EQ(check(out, "driver.memset")["status"], "pass") << "cuMemsetD32_v2 over host memory is right";
  // No kernels: the driver's own NOT_SUPPORTED, not a wrong answer.
  EXPECT_EQ(check(out, "driver.kernel")["status"], "unsupported");
  EXPECT_EQ(check(out, "driver.kernel")["error"]["code"], 801);
  // Nor graph capture: the fake does not export cuStreamBeginCapture_v2.
  EXPECT_EQ(check(out, "driver.graph")["status"], "unsupported");
  EXPECT_NE(check(out, "driver.graph")["detail"].get<std::string>().find("cuStreamBeginCapture_v2"), std::string::npos);
  // The driver initialises, but no cuBLAS loaded in these checks: only "detected".
  EXPECT_EQ(out["summary"]["level"]["id"], "detected");
}

TEST(Verify, NvrtcCompilesBeforeTheFakeDriverRefusesTheModule) {
  TempDir dir;
  const auto runtime = fake_runtime(dir, FAKE_CUDNN);
  auto out = verify_with(dir, runtime, {"nvrtc.compile"}, "right");
  const auto c = check(out, "nvrtc.compile");
  if (c["status"] == "missing") GTEST_SKIP() << "no NVRTC on this machine: " << c["detail"];
  // NVIDIA's NVRTC compiled the source for the fake device (compute capability 9.0); only the
  // driver's module load, which the fake does not do, stopped it.
  EXPECT_EQ(c["status"], "unsupported") << c.dump();
  EXPECT_EQ(c["metrics"]["arch_option"], "--gpu-architecture=compute_90");
  EXPECT_GT(c["metrics"]["ptx_bytes"].get<int>(), 100);
  EXPECT_NE(c["detail"].get<std::string>().find("cuModuleLoadDataEx"), std::string::npos);
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

TEST(Verify, ZludasCudaCheckIsRunAndLabelledLoadOnlyOnWindowsOnly) {
  TempDir dir;
  make_runtime(dir / "runtime", FAKE_CUDA_CRASH);
  // A stand-in for ZLUDA's cuda_check: prints its kind of lines, and sees the runtime folder first.
  const auto fake = path_from_utf8(FAKE_CUDA_CHECK);
  std::filesystem::copy_file(fake, dir / "runtime" / ("cuda_check" + fake.extension().string()));
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(), "--check", "nvml.init"});
  const auto out = json::parse(r.out);
#ifndef _WIN32
  // ZLUDA builds cuda_check for Windows only (cuda_check/Cargo.toml: windows_only): on Linux a
  // file of that name is not ZLUDA's and is neither looked for nor run.
  EXPECT_FALSE(out.contains("cuda_check")) << r.out;
  return;
#endif
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
  auto r = run_zcuda({"--home", (dir / "home").string(), "verify", "--runtime-dir", (dir / "runtime").string(), "--check", "driver.init"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("CHECK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("driver.init"), std::string::npos);
  EXPECT_NE(r.out.find("crash"), std::string::npos);
  EXPECT_NE(r.out.find("Saved to"), std::string::npos);
}

// The runtime verify ran against is named with its family, in --json, the saved results and the text.
TEST(Verify, TheRuntimesFamilyIsNamed) {
  TempDir dir;
  make_runtime(dir / "runtime", FAKE_CUDA_CRASH);
  write_file(dir / "runtime" / "zluda_ld", "a file name only upstream ships");
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "verify", "--runtime-dir", (dir / "runtime").string(), "--check", "driver.init"});
  const auto out = json::parse(r.out);
  EXPECT_EQ(out["runtime_family"]["family"], "upstream") << r.out;
  EXPECT_NE(out["runtime_family"]["evidence"].dump().find("zluda_ld"), std::string::npos);
  EXPECT_EQ(json::parse(read_file(dir / "home" / "state" / "verify" / "last.json"))["runtime_family"]["family"], "upstream");

  auto text = run_zcuda({"--home", (dir / "home").string(), "verify", "--runtime-dir", (dir / "runtime").string(), "--check", "driver.init"});
  EXPECT_NE(text.out.find("Family:  upstream family"), std::string::npos) << text.out;
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
  ASSERT_EQ(out["checks"].size(), 37u);
  EXPECT_EQ(out["checks"][0]["name"], "driver.init");
  EXPECT_EQ(out["checks"][13]["name"], "cublas.sgemm");
  EXPECT_EQ(out["checks"][13]["core"], true);
  EXPECT_EQ(out["checks"][15]["core"], false) << "cublas.gemm_ex_bf16 is shown, not core";
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
