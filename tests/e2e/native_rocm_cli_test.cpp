// Issue 36 through the real binary: a torch built for ROCm is native (apps says so, run launches
// it without ZLUDA, verify --app checks it natively); a ZLUDA-based PyTorch application on a GPU
// native ROCm serves gets the exact steps for a ROCm venv beside its own, and --setup-native runs
// them against a loopback pip index serving tiny fake wheels, with an undo record --undo-native follows.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include <zcuda/base/path_text.hpp>

#include "support/archive_builder.hpp"
#include "support/http_server.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/test_child.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#ifdef _WIN32
constexpr bool kWindows = true;
#else
constexpr bool kWindows = false;
#endif

CommandOptions in_native_home(const TempDir& home) {
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = path_to_utf8(home.path());
  o.unset_env = {"ZLUDA_CC", "ZLUDA_SM", "ZCUDA_NATIVE_INDEX_URL"};
  return o;
}

// A venv's files: pyvenv.cfg, its interpreter (`python`: a file to copy, or empty), torch/version.py.
fs::path fake_venv(const fs::path& root, const std::string& version, const std::string& cuda, const std::string& hip,
                   const std::optional<fs::path>& python = std::nullopt) {
  write_file(root / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
  const fs::path interpreter = kWindows ? root / "Scripts" / "python.exe" : root / "bin" / "python";
  const fs::path site = kWindows ? root / "Lib" / "site-packages" : root / "lib" / "python3.11" / "site-packages";
  fs::create_directories(interpreter.parent_path());
  if (python) {
    fs::copy_file(*python, interpreter);
  } else {
    write_file(interpreter, "");
  }
  write_file(site / "torch" / "version.py", "from typing import Optional\n__version__ = '" + version +
                                                "'\ndebug = False\ncuda: Optional[str] = " + cuda + "\nhip: Optional[str] = " + hip + "\n");
  write_file(site / "torch" / "__init__.py", "");
  return interpreter;
}

json json_tail(const std::string& out) {
  const auto at = out.find("{\n");
  return json::parse(at == std::string::npos ? out : out.substr(at), nullptr, false);
}

TEST(NativeRocmCli, AppsSaysARocmVenvIsNativeNotAProblem) {
  TempDir home, app;
  const fs::path python = fake_venv(app / "venv", "2.11.0+rocm7.13.0", "None", "'7.13.0'");
  auto r = run_zcuda({"apps", path_to_utf8(python)}, in_native_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("backend:    native ROCm: no ZLUDA needed (torch 2.11.0+rocm7.13.0 is built for ROCm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(HIP 7.13.0)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("problem:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("placement:  none"), std::string::npos) << r.out;
  auto js = run_zcuda({"--json", "apps", path_to_utf8(python), "--gfx", "gfx1100"}, in_native_home(home));
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json j = json::parse(js.out);
  EXPECT_TRUE(j["setups"][0]["flavour_problem"].is_null());
  EXPECT_NE(j["setups"][0]["native_rocm"].get<std::string>().find("no ZLUDA needed"), std::string::npos);
  EXPECT_FALSE(j["setups"][0]["stage"].get<bool>());
  EXPECT_TRUE(j["native_rocm_advice"].is_null());  // already native: nothing to advise
}

// The interpreter is the test child under a venv's name: zcuda starts it, with no ZLUDA installed.
TEST(NativeRocmCli, RunLaunchesARocmTorchNativelyWithoutZluda) {
  TempDir home, app;
  const fs::path python = fake_venv(app / "venv", "2.11.0+rocm7.13.0", "None", "'7.13.0'", test_child());
  auto r = run_zcuda({"run", path_to_utf8(python), "out", "hello from rocm", "env", "LD_LIBRARY_PATH"}, in_native_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(r.out.starts_with("hello from rocm")) << r.out;
  EXPECT_NE(r.err.find("launched natively: no ZLUDA placed"), std::string::npos) << r.err;
  auto js = run_zcuda({"--json", "run", path_to_utf8(python), "exit", "0"}, in_native_home(home));
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json j = json_tail(js.out);
  ASSERT_FALSE(j.is_discarded()) << js.out;
  EXPECT_EQ(j["runtime"]["chosen_by"], "native-rocm");
  EXPECT_TRUE(j["runtime"]["dir"].is_null());
}

TEST(NativeRocmCli, VerifyAppRunsTheTorchCheckNatively) {
  TempDir home, app;
  const fs::path python = fake_venv(app / "venv", "2.11.0+rocm7.13.0", "None", "'7.13.0'", test_child());
  auto r = run_zcuda({"--json", "verify", "--app", path_to_utf8(python)}, in_native_home(home));
  // The stand-in interpreter cannot run the script: the check errs, but it ran natively.
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["runtime"], "native");
  EXPECT_EQ(path_from_utf8(j["launch"]["program"].get<std::string>()), python);
  EXPECT_NE(r.err.find("native ROCm: no ZLUDA needed"), std::string::npos) << r.err;
}

TEST(NativeRocmCli, AZludaAppOnANativelyServedGpuGetsTheExactSteps) {
  TempDir home, app;
  const fs::path python = fake_venv(app / "venv", "2.7.0+cu118", "'11.8'", "None");
  auto r = run_zcuda({"apps", path_to_utf8(python), "--gfx", "gfx1100"}, in_native_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Native ROCm PyTorch serves"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is left alone"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" -m pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch[device-gfx1100]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--setup-native"), std::string::npos) << r.out;
  auto js = run_zcuda({"--json", "apps", path_to_utf8(python), "--gfx", "gfx1100"}, in_native_home(home));
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json a = json::parse(js.out)["native_rocm_advice"];
  ASSERT_TRUE(a.is_object()) << js.out;
  EXPECT_EQ(a["index_url"], "https://rocm.nightlies.amd.com/whl-multi-arch/");
  EXPECT_EQ(a["packages"], json({"torch[device-gfx1100]", "torchvision[device-gfx1100]", "torchaudio"}));
  EXPECT_EQ(path_from_utf8(a["venv"].get<std::string>()), app / "venv-rocm");
  EXPECT_EQ(path_from_utf8(a["app_venv_left_alone"].get<std::string>()), app / "venv");
  // An RX 580 (gfx803) has no native ROCm PyTorch in the data: no steps.
  auto polaris = run_zcuda({"--json", "apps", path_to_utf8(python), "--gfx", "gfx803"}, in_native_home(home));
  ASSERT_EQ(polaris.exit_code, 0) << polaris.err;
  EXPECT_TRUE(json::parse(polaris.out)["native_rocm_advice"].is_null());
}

// A tiny wheel: the package's __init__.py (torch: its version.py too) and the .dist-info pip reads.
void fake_wheel(const fs::path& wheel, const std::string& name, const std::string& version, const std::string& gfx) {
  const std::string info = name + "-" + version + ".dist-info/";
  std::vector<Spec> entries = {file(name + "/__init__.py", "")};
  if (name == "torch") {
    entries.push_back(file("torch/version.py", "from typing import Optional\n__version__ = '" + version +
                                                   "'\ndebug = False\ncuda: Optional[str] = None\nhip: Optional[str] = '7.13.0'\n"));
  }
  entries.push_back(
      file(info + "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\nProvides-Extra: device-" + gfx + "\n"));
  entries.push_back(file(info + "WHEEL", "Wheel-Version: 1.0\nGenerator: zcuda-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"));
  std::string record;
  for (const auto& e : entries) record += e.name + ",,\n";
  record += info + "RECORD,,\n";
  entries.push_back(file(info + "RECORD", record));
  write_archive(wheel, ArchiveType::zip, entries);
}

class SetupNative : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kWindows || !fs::exists("/usr/bin/python3")) GTEST_SKIP() << "needs Debian's /usr/bin/python3 (venv, pip)";
    for (const auto& [name, version] : std::vector<std::pair<std::string, std::string>>{
             {"torch", "2.11.0+rocm7.13.0"}, {"torchvision", "0.26.0+rocm7.13.0"}, {"torchaudio", "2.11.0+rocm7.13.0"}}) {
      const std::string file = name + "-" + version + "-py3-none-any.whl";
      fake_wheel(wheels / file, name, version, "gfx1100");
      std::string encoded = file;
      encoded.replace(encoded.find('+'), 1, "%2B");
      server.serve("/files/" + encoded, HttpResource{.body = read_file(path_to_utf8(wheels / file))});
      server.serve("/simple/" + name + "/",
                   HttpResource{.body = "<!DOCTYPE html><html><body><a href=\"/files/" + encoded + "\">" + file + "</a></body></html>\n",
                                .content_type = "text/html"});
    }
    app_python = fake_venv(app / "venv", "2.7.0+cu118", "'11.8'", "None");
  }
  CommandOptions options() {
    CommandOptions o = in_native_home(home);
    o.set_env["PIP_NO_CACHE_DIR"] = "1";
    o.set_env["NO_PROXY"] = o.set_env["no_proxy"] = "127.0.0.1,localhost";
    for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"}) o.unset_env.push_back(v);
    o.timeout_seconds = 300;
    return o;
  }
  TempDir home, app, wheels;
  HttpServer server;
  fs::path app_python;
};

TEST_F(SetupNative, MakesTheVenvFromTheLoopbackIndexKeepsAnUndoRecordAndUndoes) {
  const fs::path venv = app / "venv-rocm";
  const std::string app_cfg = read_file(path_to_utf8(app / "venv" / "pyvenv.cfg"));
  CommandOptions o = options();
  o.set_env["ZCUDA_NATIVE_INDEX_URL"] = server.url("/simple/");  // the documented override
  auto r = run_zcuda(
      {"--json", "apps", path_to_utf8(app / "venv"), "--setup-native", path_to_utf8(venv), "--gfx", "gfx1100", "--python", "/usr/bin/python3"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["steps"]["index_from"], "ZCUDA_NATIVE_INDEX_URL");
  EXPECT_EQ(j["steps"]["commands"][0], json({"/usr/bin/python3", "-m", "venv", path_to_utf8(venv)}));
  const auto installed = j["installed"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(installed.begin(), installed.end(), "torch 2.11.0+rocm7.13.0"), installed.end()) << r.out;
  EXPECT_NE(std::find(installed.begin(), installed.end(), "torchaudio 2.11.0+rocm7.13.0"), installed.end()) << r.out;
  EXPECT_EQ(server.count("/simple/torch/"), 1u);
  EXPECT_TRUE(fs::exists(venv / "zcuda-native-venv.json"));
  EXPECT_EQ(read_file(path_to_utf8(app / "venv" / "pyvenv.cfg")), app_cfg);  // the application's venv is left alone
  // The new venv is native ROCm to zcuda.
  auto seen = run_zcuda({"apps", path_to_utf8(venv / "bin" / "python")}, in_native_home(home));
  EXPECT_NE(seen.out.find("native ROCm: no ZLUDA needed"), std::string::npos) << seen.out << seen.err;
  // A second setup into the same folder is refused, and nothing in it changes.
  auto again = run_zcuda({"apps", "--setup-native", path_to_utf8(venv), "--gfx", "gfx1100", "--python", "/usr/bin/python3"}, o);
  EXPECT_EQ(again.exit_code, 11) << again.err;
  EXPECT_TRUE(fs::exists(venv / "zcuda-native-venv.json"));
  // Undo removes it; a folder without the record is refused.
  auto undo = run_zcuda({"apps", "--undo-native", path_to_utf8(venv)}, in_native_home(home));
  EXPECT_EQ(undo.exit_code, 0) << undo.err;
  EXPECT_FALSE(fs::exists(venv));
  auto not_ours = run_zcuda({"apps", "--undo-native", path_to_utf8(app / "venv")}, in_native_home(home));
  EXPECT_EQ(not_ours.exit_code, 11) << not_ours.err;
  EXPECT_TRUE(fs::exists(app / "venv" / "pyvenv.cfg"));
}

TEST_F(SetupNative, AFailedPipLeavesNothingAndSaysWhy) {
  const fs::path venv = app / "venv-rocm";
  // An index without the packages: pip finds no torch.
  auto r = run_zcuda({"apps", path_to_utf8(app / "venv"), "--setup-native", path_to_utf8(venv), "--gfx", "gfx1100", "--python", "/usr/bin/python3",
                      "--index-url", server.url("/empty/")},
                     options());
  EXPECT_EQ(r.exit_code, 10) << r.out << r.err;
  EXPECT_NE(r.err.find("pip install failed"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(venv));
  // A GPU the data does not serve natively is refused before anything is made.
  auto polaris = run_zcuda(
      {"apps", "--setup-native", path_to_utf8(venv), "--gfx", "gfx803", "--python", "/usr/bin/python3", "--index-url", server.url("/simple/")},
      options());
  EXPECT_EQ(polaris.exit_code, 13) << polaris.err;
  EXPECT_FALSE(fs::exists(venv));
}

}  // namespace
}  // namespace zcuda::test
