#pragma once
// An application folder and a runtime folder made of real binaries built by the tests: the
// program finds the CUDA driver library next to itself (Linux: libcuda.so.1 through RUNPATH
// $ORIGIN; Windows: nvcuda.dll, loaded by name from the program's folder).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <zcuda/base/path_text.hpp>

#include "support/run_command.hpp"
#include "support/test_hooks.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {

namespace fs = std::filesystem;

// The files of a CUDA program and of a ZLUDA runtime, as each platform names them.
struct CudaNames {
#ifdef _WIN32
  std::string app = "cuda_app.exe";
  std::string driver = "nvcuda.dll";
  std::string cublas = "cublas64_12.dll";
  std::string nvml = "nvml.dll";
  std::string cudnn = "cudnn64_9.dll";
  std::vector<std::string> runtime_libraries = {"nvcuda.dll", "cublas64_12.dll", "nvml.dll", "cudnn64_9.dll"};
#else
  std::string app = "cuda_app";
  std::string driver = "libcuda.so.1";
  std::string cublas = "libcublas.so.12";
  std::string nvml = "libnvidia-ml.so.1";
  std::string cudnn = "libcudnn.so.9";
  // libcuda.so.1 is a symlink to libnvcuda.so, as in ZLUDA's Linux archive.
  std::vector<std::string> runtime_libraries = {"libcuda.so.1", "libnvcuda.so", "libcublas.so.12", "libnvidia-ml.so.1", "libcudnn.so.9"};
#endif
};
inline const CudaNames cuda_names;

// Every entry under `dir` (the stage folder included): files by size and a hash of their
// bytes (short enough to print when a comparison fails), symlinks by target, folders by name.
inline std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const auto rel = it->path().lexically_relative(dir).generic_string();
    if (it->is_symlink()) {
      out[rel] = "symlink:" + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      const std::string bytes = read_file(it->path());
      out[rel] = std::to_string(bytes.size()) + " bytes, hash " + std::to_string(std::hash<std::string>{}(bytes));
    } else {
      out[rel + "/"] = "folder";
    }
  }
  return out;
}

class StageFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    app = tmp / "app";
    runtime = tmp / "runtime";
    home = tmp / "home";
    fs::create_directories(app / "lib");
    fs::create_directories(runtime);
    const CudaNames& n = cuda_names;
    fs::copy_file(path_from_utf8(ZCUDA_TEST_CUDA_APP), app / n.app);
    fs::copy_file(path_from_utf8(ZCUDA_TEST_APP_LIBCUDA), app / n.driver);
    // A library the app ships in a subfolder, of a name the runtime serves; and a data file.
    write_file(app / "lib" / n.cublas, "the application's own cuBLAS\n");
    write_file(app / "data.txt", "user data\n");
    // The runtime: its own driver library (on Linux behind a symlink, as ZLUDA's archive has it),
    // cuBLAS, NVML, and cuDNN (which needs MIOpen).
#ifdef _WIN32
    fs::copy_file(path_from_utf8(ZCUDA_TEST_RUNTIME_LIBCUDA), runtime / n.driver);
#else
    fs::copy_file(ZCUDA_TEST_RUNTIME_LIBCUDA, runtime / "libnvcuda.so");
    fs::create_symlink("libnvcuda.so", runtime / "libcuda.so.1");
#endif
    write_file(runtime / n.cublas, std::string(100000, 'b'));
    write_file(runtime / n.nvml, "zluda nvml\n");
    write_file(runtime / n.cudnn, "zluda cudnn\n");
    write_file(runtime / "README", "not a library\n");
  }

  CommandResult zcuda(std::vector<std::string> args, CommandOptions options = {}) {
    args.insert(args.begin(), {"--home", home.string()});
    // No MIOpen from the host may change what these tests expect.
    options.set_env.try_emplace("ROCM_PATH", (tmp / "no-rocm").string());
    return run_zcuda(args, options);
  }

  // Which driver library the program loads when started directly, without zcuda.
  std::string which_libcuda() {
    CommandOptions options;
    options.unset_env = {"LD_LIBRARY_PATH"};
    auto r = run_command({path_to_utf8(app / cuda_names.app)}, options);
    return r.out;
  }

  // Stops a stage from `rt` at every step and checks that the next stage or unstage recovers,
  // then does the same for unstage.
  void interrupt_at_every_step(const fs::path& rt) {
    ZCUDA_REQUIRE_TEST_HOOKS();
    const auto before = snapshot(app);
    ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", rt.string()}).exit_code, 0);
    const auto staged = snapshot(app);
    ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
    ASSERT_EQ(snapshot(app), before);

    int crashes = 0;
    for (int step = 1; step < 100; ++step) {
      const CommandOptions crash = crash_after(step);
      auto r = zcuda({"stage", app.string(), "--runtime-dir", rt.string()}, crash);
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
        auto s = zcuda({"stage", app.string(), "--runtime-dir", rt.string()});
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
    // The journal, two backups, three placements, the complete journal: at least this many steps.
    EXPECT_GE(crashes, 7);

    // And an unstage killed at every step is finished by the next unstage.
    for (int step = 1; step < 100; ++step) {
      ASSERT_EQ(zcuda({"stage", app.string(), "--runtime-dir", rt.string()}).exit_code, 0);
      const CommandOptions crash = crash_after(step);
      auto r = zcuda({"unstage", app.string()}, crash);
      if (r.exit_code == 0) break;
      ASSERT_EQ(r.exit_code, 99) << "step " << step << ": " << r.err;
      auto u = zcuda({"unstage", app.string()});
      ASSERT_EQ(u.exit_code, 0) << "step " << step << ": " << u.err;
      ASSERT_EQ(snapshot(app), before) << "step " << step;
    }
  }

  static CommandOptions crash_after(int step) {
    CommandOptions options;
    options.set_env["ZCUDA_TEST_CRASH_AFTER_STEP"] = std::to_string(step);
    return options;
  }

  TempDir tmp;
  fs::path app, runtime, home;
};

}  // namespace zcuda::test
