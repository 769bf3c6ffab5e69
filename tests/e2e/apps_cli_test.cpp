// Application profiles through the real binary: a llama.cpp tree built here (libggml-cuda.so, an
// ELF whose .nv_fatbin section holds fat binaries from the binfmt tests' builder) recognised by
// `zcuda apps`, its fatbin check by `verify --app` passing, failing and following ZLUDA_CC, the
// record in `report`; and the torch check on a real venv over Debian's python3-torch (CPU-only).
#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "binfmt/section_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A home of its own, and no capability from the machine running the tests.
CommandOptions in_home(const TempDir& home) {
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = home.path().string();
  o.unset_env = {"ZLUDA_CC", "ZLUDA_SM"};
  return o;
}

// llama.cpp built with -DCMAKE_CUDA_ARCHITECTURES="86": a cubin and PTX for 8.6 per source file.
void llama_tree(const fs::path& dir, const std::vector<TestImage>& images) {
  std::string section = fatbin_with(images) + std::string(8, '\0') + fatbin_with(images);
  write_file(dir / "libggml-cuda.so", elf_with_sections({".text", ".nv_fatbin"}, section));
  write_file(dir / "llama-cli", "#!/bin/sh\n");
}

const std::vector<TestImage> kArch86 = {{2, 86, false, "cubin"}, {1, 86, false, ".target sm_86"}};

json parsed(const CommandResult& r) {
  auto j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  return j;
}

TEST(AppsCli, RecognisesALlamaCppTreeByItsGgmlCudaLibrary) {
  TempDir home, app;
  llama_tree(app.path(), kArch86);
  auto r = run_zcuda({"--json", "apps", app.path().string()}, in_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parsed(r);
  ASSERT_FALSE(j["matches"].empty()) << r.out;
  EXPECT_EQ(j["matches"][0]["profile"], "llama-cpp");
  EXPECT_NE(j["matches"][0]["why"][0].get<std::string>().find("libggml-cuda.so"), std::string::npos);
}

TEST(AppsCli, VerifyAppFatbinCheckFailsPassesWithZludaCcAndReportShowsIt) {
  TempDir home, app;
  llama_tree(app.path(), kArch86);
  auto o = in_home(home);
  // Upstream reports 8.5 by default: PTX for 8.6 does not fit.
  auto fail = run_zcuda({"verify", "--app", app.path().string()}, o);
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  EXPECT_NE(fail.out.find("compute_86"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("8.5 (upstream's default)"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("ZLUDA_CC=8.6"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("GGML_CUDA_FORCE_CUBLAS"), std::string::npos) << fail.out;

  o.set_env["ZLUDA_CC"] = "8.6";
  auto pass = run_zcuda({"--json", "verify", "--app", app.path().string()}, o);
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  const json p = parsed(pass);
  EXPECT_EQ(p["check"], "fatbin");
  EXPECT_EQ(p["status"], "pass");
  EXPECT_EQ(p["facts"]["compute_capability_from"], "ZLUDA_CC=8.6");
  EXPECT_EQ(p["facts"]["ptx_used"], "compute_86");
  EXPECT_EQ(p["facts"]["images"], 4);

  auto report = run_zcuda({"--json", "report", "--no-hash", "--no-redact"}, in_home(home));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json rj = parsed(report);
  ASSERT_EQ(rj["app_checks"].size(), 2u) << rj["app_checks"].dump();
  EXPECT_EQ(rj["app_checks"][0]["status"], "pass");  // newest first
  EXPECT_EQ(rj["app_checks"][0]["check"], "fatbin");
  EXPECT_EQ(rj["app_checks"][0]["profile"], "llama-cpp");
  EXPECT_EQ(rj["app_checks"][0]["facts"]["targets"], json({"compute_86 (ptx)", "sm_86 (cubin)"}));
  EXPECT_EQ(rj["app_checks"][1]["status"], "fail");
  EXPECT_EQ(rj["application_verified"], false) << "a fatbin check reads files; it does not run the application";
  auto md = run_zcuda({"report", "--no-hash", "--no-redact"}, in_home(home));
  ASSERT_EQ(md.exit_code, 0) << md.err;
  const auto section = md.out.find("<summary>Application checks</summary>");
  ASSERT_NE(section, std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| llama-cpp | fatbin | **pass** |", section), std::string::npos) << md.out.substr(section);
}

TEST(AppsCli, VerifyAppPassesWithLowerPtxAndRefusesAProfileWithoutACheck) {
  TempDir home, app;
  llama_tree(app.path(), {{2, 86, false, "cubin"}, {1, 75, true, ".target sm_75"}, {1, 86, true, ".target sm_86"}});
  auto pass = run_zcuda({"--json", "verify", "--app", app.path().string()}, in_home(home));
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  // compute_75 lets ggml-cuda start; ZLUDA compiles the last PTX of the fat binary (module.rs).
  EXPECT_EQ(parsed(pass)["facts"]["ptx_used"], "compute_86");

  auto none = run_zcuda({"verify", "--app", app.path().string(), "--profile", "blender"}, in_home(home));
  EXPECT_EQ(none.exit_code, 13) << none.out << none.err;
  EXPECT_NE(none.err.find("no check"), std::string::npos) << none.err;
  EXPECT_EQ(none.out.find("pass"), std::string::npos) << none.out;
}

// The PhysX check reads Windows' installed programs: under Windows (Wine) a per-user "Apps &
// features" entry written with reg.exe for the test is found and judged; elsewhere the check is
// unavailable (PhysX games run on Windows only) and does not pass.
TEST(AppsCli, VerifyAppPhysxReadsTheInstalledSystemSoftware) {
  TempDir home, game;
  write_file(game.path() / "PhysXLoader.dll", "MZ");
  const std::vector<std::string> verify = {"--json", "verify", "--app", game.path().string(), "--profile", "physx-32bit"};
#ifdef _WIN32
  const char* root = std::getenv("SystemRoot");
  const std::string reg = std::string(root ? root : "C:\\windows") + "\\system32\\reg.exe";
  const std::string key = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\zcuda-e2e-physx";
  ASSERT_EQ(run_command({reg, "add", key, "/v", "DisplayName", "/d", "NVIDIA PhysX System Software 99.1.0001", "/f"}).exit_code, 0);
  ASSERT_EQ(run_command({reg, "add", key, "/v", "DisplayVersion", "/d", "99.1.0001", "/f"}).exit_code, 0);
  auto r = run_zcuda(verify, in_home(home));
  run_command({reg, "delete", key, "/f"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = parsed(r);
  EXPECT_EQ(j["status"], "pass");
  EXPECT_EQ(j["facts"]["version"], "99.1.0001") << r.out;
#else
  auto r = run_zcuda(verify, in_home(home));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = parsed(r);
  EXPECT_EQ(j["status"], "unavailable");
  EXPECT_NE(j["reason"].get<std::string>().find("Windows only"), std::string::npos) << r.out;
#endif
  EXPECT_EQ(j["check"], "physx");
  EXPECT_EQ(j["facts"]["minimum"], "9.19.0218") << r.out;
}

// The torch check for real: Debian's python3-torch is CPU-only, so CUDA is unavailable and the
// check says why; report lists it.
TEST(AppsCli, VerifyAppOnARealVenvOverDebiansCpuTorch) {
#ifdef _WIN32
  GTEST_SKIP() << "Linux only";
#else
  std::error_code ec;
  if (!fs::exists("/usr/lib/python3/dist-packages/torch/version.py", ec)) GTEST_SKIP() << "Debian's python3-torch is not installed";
  TempDir home, dir;
  auto made = run_command({"/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip", (dir / "venv").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto o = in_home(home);
  o.timeout_seconds = 300;
  auto r = run_zcuda({"--json", "verify", "--app", (dir / "venv" / "bin" / "python").string(), "--runtime", "native"}, o);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = parsed(r);
  EXPECT_EQ(j["check"], "torch");
  EXPECT_EQ(j["profile"], "pytorch");
  EXPECT_EQ(j["status"], "unavailable") << j.dump();
  EXPECT_NE(j["reason"].get<std::string>().find("CPU-only build"), std::string::npos) << j["reason"];
  EXPECT_EQ(j["facts"]["cuda_available"], false);
  ASSERT_TRUE(j["flavour_problem"].is_string());

  auto report = run_zcuda({"--json", "report", "--no-hash"}, in_home(home));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json rj = parsed(report);
  ASSERT_EQ(rj["app_checks"].size(), 1u);
  EXPECT_EQ(rj["app_checks"][0]["check"], "torch");
  EXPECT_EQ(rj["app_checks"][0]["status"], "unavailable");
  EXPECT_EQ(rj["app_checks"][0]["facts"]["cuda_available"], false);
  EXPECT_TRUE(rj["app_checks"][0]["facts"]["torch"].is_string());
#endif
}

#ifndef _WIN32
// A venv whose `python` is a script that leaves a mark when run, over a base install (as
// pyvenv.cfg names it) whose torch is found by its files alone.
fs::path marking_venv(const fs::path& dir, const std::string& body) {
  write_file(dir / "base" / "lib" / "python3.11" / "site-packages" / "torch" / "version.py",
             "__version__ = '2.7.0+cu118'\ncuda: Optional[str] = '11.8'\nhip: Optional[str] = None\n");
  write_file(dir / "app" / "venv" / "pyvenv.cfg",
             "home = " + (dir / "base" / "bin").string() + "\ninclude-system-site-packages = true\nversion = 3.11.2\n");
  const fs::path python = dir / "app" / "venv" / "bin" / "python";
  write_file(python, "#!/bin/sh\ntouch '" + (dir / "ran").string() + "'\n" + body);
  fs::permissions(python, fs::perms::owner_all);
  write_file(dir / "app" / "main.py", "print('app')\n");
  return python;
}

// Inspecting a folder reads its files: its interpreter is the folder's own code, run only by the
// commands that launch the application (run, bench, verify --app).
TEST(AppsCli, InspectingAFolderNeverRunsItsInterpreter) {
  TempDir home, dir;
  const fs::path python = marking_venv(dir.path(), "");
  write_file(dir / "runtime" / "libcuda.so.1", "a runtime");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"apps", (dir / "app").string()},
           {"--json", "apps", (dir / "app").string()},
           {"run", "--no-detect", "--runtime-dir", (dir / "runtime").string(), "--print-env", python.string(), "main.py"}}) {
    auto r = run_zcuda(args, in_home(home));
    EXPECT_EQ(r.exit_code, 0) << args.back() << ": " << r.out << r.err;
    EXPECT_FALSE(fs::exists(dir / "ran")) << "ran the folder's interpreter: " << args.front();
  }
  auto j = parsed(run_zcuda({"--json", "apps", (dir / "app").string()}, in_home(home)));
  ASSERT_FALSE(j["matches"].empty()) << j.dump();
  ASSERT_TRUE(j["torch"].is_object()) << j.dump();
  EXPECT_EQ(j["torch"]["version"], "2.7.0+cu118");
}

// `zcuda apps` takes a command with its arguments, as run does (`zcuda apps -- python main.py`).
TEST(AppsCli, RecognisesACommandWithArguments) {
  TempDir home, dir;
  const fs::path python = marking_venv(dir.path(), "");
  for (const auto& args : std::vector<std::vector<std::string>>{{"--json", "apps", "--", python.string(), (dir / "app" / "main.py").string()},
                                                                {"--json", "apps", python.string(), "main.py"}}) {
    auto r = run_zcuda(args, in_home(home));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const json j = parsed(r);
    ASSERT_FALSE(j["matches"].empty()) << j.dump();
    EXPECT_EQ(j["matches"][0]["profile"], "pytorch");
  }
  EXPECT_FALSE(fs::exists(dir / "ran"));
}

// A relative --hip-path is written into the program's variables as an absolute path; a torch
// that cannot work with the profile's ZLUDA is named in --print-env, as run warns of it.
TEST(AppsCli, PrintEnvMakesHipPathAbsoluteAndNamesATorchThatCannotWork) {
  TempDir home, dir;
  const fs::path python = marking_venv(dir.path(), "");
  write_file(dir / "base" / "lib" / "python3.11" / "site-packages" / "torch" / "version.py",
             "__version__ = '2.8.0+cu128'\ncuda: Optional[str] = '12.8'\nhip: Optional[str] = None\n");
  write_file(dir / "runtime" / "libcuda.so.1", "a runtime");
  write_file(dir / "hip" / "lib" / "libamdhip64.so", "hip");
  // Relative to the folder zcuda starts in (the test's own).
  const std::string relative = fs::relative(dir / "hip", fs::current_path()).string();
  ASSERT_FALSE(relative.starts_with("/"));
  auto r = run_zcuda({"run", "--no-detect", "--runtime-dir", (dir / "runtime").string(), "--hip-path", relative, "--profile", "comfyui-zluda",
                      "--print-env", python.string(), "main.py"},
                     in_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find((fs::canonical(dir.path()) / "hip" / "lib").string()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(relative), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# problem: torch 2.8.0+cu128 is built for CUDA 12.8"), std::string::npos) << r.out;
  // What zcuda itself sets besides the profile's variables is said, not "nothing added".
  const auto besides = r.out.find("besides the profile's variables, zcuda sets ");
  ASSERT_NE(besides, std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(besides, r.out.find('\n', besides) - besides).find("LD_LIBRARY_PATH"), std::string::npos) << r.out;
}

// Blender gets ZLUDA_CC=8.5 (Cycles would load kernel_sm_86.cubin.zst at the stable v6's 8.8),
// unless the user set ZLUDA_CC or ZLUDA_SM.
TEST(AppsCli, BlenderGetsComputeCapability85UnlessTheUserSetOne) {
  TempDir home, dir;
  write_file(dir / "blender" / "blender", "#!/bin/sh\n");
  fs::permissions(dir / "blender" / "blender", fs::perms::owner_all);
  write_file(dir / "runtime" / "libcuda.so.1", "a runtime");
  const std::vector<std::string> args{
      "run", "--no-detect", "--runtime-dir", (dir / "runtime").string(), "--print-env", (dir / "blender" / "blender").string()};
  auto r = run_zcuda(args, in_home(home));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# profile blender"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nZLUDA_CC=8.5\n    # profile blender: the compute capability ZLUDA reports"), std::string::npos) << r.out;
  auto o = in_home(home);
  o.set_env["ZLUDA_SM"] = "8.6";
  auto mine = run_zcuda(args, o);
  ASSERT_EQ(mine.exit_code, 0) << mine.out << mine.err;
  EXPECT_EQ(mine.out.find("ZLUDA_CC=8.5"), std::string::npos) << mine.out;
  EXPECT_NE(mine.out.find("# compute capability: 8.6 (your ZLUDA_SM=8.6"), std::string::npos) << mine.out;
}

// A real venv (Debian's /usr/bin/python3) holding a stand-in torch 2.x: its backends.cuda keeps
// the attention flags as torch does (enable_*_sdp, *_sdp_enabled), and CUDA is unavailable.
fs::path venv_with_standin_torch(const fs::path& dir) {
  auto made = run_command({"/usr/bin/python3", "-m", "venv", "--without-pip", (dir / "venv").string()});
  EXPECT_EQ(made.exit_code, 0) << made.err;
  fs::path site;
  for (const auto& entry : fs::directory_iterator(dir / "venv" / "lib")) site = entry.path() / "site-packages";
  const fs::path torch = site / "torch";
  write_file(torch / "version.py", "__version__ = '2.7.1+cu118'\ncuda = '11.8'\nhip = None\n");
  write_file(torch / "__init__.py", "from . import version, backends, cuda\n__version__ = version.__version__\n");
  write_file(torch / "backends" / "__init__.py", "from . import cuda\n");
  write_file(torch / "backends" / "cuda" / "__init__.py",
             "_on = {'flash': True, 'mem_efficient': True, 'math': True, 'cudnn': True}\n"
             "def _pair(name):\n"
             "    def enable(b): _on[name] = bool(b)\n"
             "    def enabled(): return _on[name]\n"
             "    return enable, enabled\n"
             "for _n in list(_on):\n"
             "    globals()['enable_%s_sdp' % _n], globals()['%s_sdp_enabled' % _n] = _pair(_n)\n");
  write_file(torch / "cuda" / "__init__.py", "def is_available(): return False\ndef init(): raise RuntimeError('a stand-in torch has no GPU')\n");
  return dir / "venv" / "bin" / "python";
}

// SD.Next's folder with stand-ins of its loader (modules/rocm.py, modules/zluda_installer.py; the
// real ones need Windows): load() sets the variables the real one sets and leaves a mark in the
// ZLUDA folder it resolved, as os.path.abspath(os.environ.get('ZLUDA', '.zluda')).
void sdnext_standin(const fs::path& root) {
  write_file(root / "modules" / "__init__.py", "");
  write_file(root / "modules" / "rocm.py",
             "class Agent:\n    def __init__(self, name, is_apu): self.name, self.is_apu = name, is_apu\n"
             "def get_agents(): return [Agent('gfx1036', True), Agent('gfx1100', False)]\n");
  write_file(root / "modules" / "zluda_installer.py",
             "import os, sys\npath = os.path.abspath(os.environ.get('ZLUDA', '.zluda'))\ndefault_agent = None\n"
             "def set_default_agent(agent):\n    global default_agent\n    default_agent = agent\n"
             "def load():\n    os.environ['ZLUDA_NVRTC_LIB'] = os.path.join(path, 'nvrtc64_112_0.dll')\n"
             "    os.environ['DISABLE_ADDMM_CUDA_LT'] = '1'\n"
             "    open(os.path.join(path, 'loaded-by'), 'w').write('%s torch-imported=%s' % (default_agent.name, 'torch' in sys.modules))\n");
  fs::create_directories(root / ".zluda");
}

// SD.Next's check over Debian's CPU torch in a venv made as users make one: the application's own
// loader runs first (before torch is imported), then the check imports the real torch and says why
// CUDA is unavailable.
TEST(AppsCli, SdNextCheckRunsItsLoaderThenDebiansTorch) {
  std::error_code ec;
  if (!fs::exists("/usr/lib/python3/dist-packages/torch/version.py", ec)) GTEST_SKIP() << "Debian's python3-torch is not installed";
  TempDir home, dir;
  const fs::path sd = dir / "sd";
  auto made = run_command({"/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip", (sd / "venv").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  sdnext_standin(sd);
  write_file(dir / "runtime" / "libcuda.so.1", "a runtime");
  auto o = in_home(home);
  o.timeout_seconds = 300;
  o.set_env["ZLUDA"] = (sd / ".zluda").string();
  auto r = run_zcuda(
      {"--json", "verify", "--app", (sd / "venv" / "bin" / "python").string(), "--profile", "sdnext", "--runtime-dir", (dir / "runtime").string()},
      o);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = parsed(r);
  EXPECT_EQ(j["status"], "unavailable") << j.dump();
  EXPECT_EQ(j["facts"]["loader"]["ran"], true) << j.dump();
  EXPECT_EQ(j["facts"]["loader"]["set"]["DISABLE_ADDMM_CUDA_LT"], "1");
  EXPECT_TRUE(j["facts"]["torch"].is_string());
  EXPECT_EQ(read_file(sd / ".zluda" / "loaded-by"), "gfx1100 torch-imported=False");
}

// The attention backends each application runs with: zcuda's hook (pytorch profile) turns flash
// and memory-efficient attention off as torch loads, and verify sees that it took effect; the
// check mirrors what SD.Next and ComfyUI-Zluda turn off themselves. SD.Next's check runs its own
// loader first.
TEST(AppsCli, AttentionHookTakesEffectAndTheCheckMirrorsEachApp) {
  std::error_code ec;
  if (!fs::exists("/usr/bin/python3", ec)) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir home, dir;
  const fs::path sd = dir / "sd";
  const fs::path python = venv_with_standin_torch(sd);
  sdnext_standin(sd);
  write_file(dir / "runtime" / "libcuda.so.1", "a runtime");
  auto o = in_home(home);
  o.timeout_seconds = 120;
  o.set_env["ZLUDA"] = (sd / ".zluda").string();  // SD.Next's own variable: found from any working folder
  const auto verify = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"--json", "verify", "--app", python.string(), "--runtime-dir", (dir / "runtime").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_zcuda(args, o);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // unavailable: the stand-in has no GPU
    return parsed(r);
  };
  const json hooked = verify({});
  EXPECT_EQ(hooked["profile"], "pytorch");
  EXPECT_EQ(hooked["status"], "unavailable") << hooked.dump();
  const json& a = hooked["facts"]["attention"];
  EXPECT_EQ(a["hook_off"], json({"flash", "mem_efficient"})) << a.dump();
  EXPECT_EQ(a["hook_took_effect"], true) << a.dump();
  EXPECT_EQ(a["at_import"]["flash"], false);
  EXPECT_EQ(a["at_import"]["mem_efficient"], false);
  EXPECT_EQ(a["at_import"]["math"], true);
  EXPECT_FALSE(hooked["facts"].contains("loader"));

  const json sdnext = verify({"--profile", "sdnext"});
  EXPECT_EQ(sdnext["status"], "unavailable") << sdnext.dump();
  EXPECT_EQ(sdnext["facts"]["attention"]["hook_off"], json::array()) << sdnext.dump();
  EXPECT_EQ(sdnext["facts"]["attention"]["app_off"], json({"flash", "mem_efficient"}));
  EXPECT_EQ(sdnext["facts"]["attention"]["used"]["flash"], false);
  // The loader ran first, from the application's folder, and found the ZLUDA folder it would.
  const json& loader = sdnext["facts"]["loader"];
  EXPECT_EQ(loader["ran"], true) << loader.dump();
  EXPECT_EQ(loader["set"]["DISABLE_ADDMM_CUDA_LT"], "1");
  EXPECT_EQ(loader["set"]["ZLUDA_NVRTC_LIB"], (sd / ".zluda" / "nvrtc64_112_0.dll").string());
  EXPECT_EQ(loader["set"]["HIP_VISIBLE_DEVICES"], "1") << "the first agent that is not an APU";
  EXPECT_EQ(read_file(sd / ".zluda" / "loaded-by"), "gfx1100 torch-imported=False");

  const json comfy = verify({"--profile", "comfyui-zluda"});
  EXPECT_EQ(comfy["facts"]["attention"]["used"]["flash"], true) << comfy.dump();
  EXPECT_EQ(comfy["facts"]["attention"]["used"]["mem_efficient"], false);

  // A loader that fails is the check's finding (error), and nothing is imported after it.
  write_file(sd / "modules" / "zluda_installer.py", "def set_default_agent(agent): pass\ndef load(): raise OSError('nvcuda.dll not found')\n");
  const json failed = verify({"--profile", "sdnext"});
  EXPECT_EQ(failed["status"], "error") << failed.dump();
  EXPECT_NE(failed["reason"].get<std::string>().find("nvcuda.dll not found"), std::string::npos) << failed.dump();

  // The hook runs in the program itself (zcuda run), not only in the check.
  write_file(dir / "probe.py",
             "import torch, torch.backends.cuda as c\nprint('flash', c.flash_sdp_enabled(), 'mem', c.mem_efficient_sdp_enabled())\n");
  auto r = run_zcuda({"run", "--no-detect", "--runtime-dir", (dir / "runtime").string(), python.string(), (dir / "probe.py").string()}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("flash False mem False"), std::string::npos) << r.out << r.err;
  auto kept = run_zcuda(
      {"run", "--no-detect", "--runtime-dir", (dir / "runtime").string(), "--env", "ZCUDA_SDP_OFF=", python.string(), (dir / "probe.py").string()},
      o);
  EXPECT_NE(kept.out.find("flash True mem True"), std::string::npos) << kept.out << kept.err;
}

// verify --app proves the application as it stands and leaves it so: what it placed into
// torch/lib for the check is undone before it returns (a profile of the user's own places there
// on Linux too), and the output says so.
TEST(AppsCli, VerifyAppUndoesItsPlacement) {
  std::error_code ec;
  if (!fs::exists("/usr/bin/python3", ec)) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir home, dir;
  const fs::path python = venv_with_standin_torch(dir.path());
  fs::path lib;
  for (const auto& entry : fs::directory_iterator(dir / "venv" / "lib")) lib = entry.path() / "site-packages" / "torch" / "lib";
  write_file(lib / "libtorch_cuda.so", "torch's own");
  write_file(dir / "runtime" / "libcuda.so.1", "ZLUDA's driver");
  write_file(dir / "runtime" / "libcublas.so.12", "ZLUDA's cuBLAS");
  write_file(home / "app-profiles.json", R"({"format": 1, "profiles": [{"name": "placed", "title": "placed", "family": "upstream",
      "recognise": [{"python_torch": true, "why": "torch"}], "placement": {"linux": {"into": "torch_lib"}}, "check": "torch"}]})");
  auto before = std::vector<fs::path>();
  for (const auto& entry : fs::recursive_directory_iterator(lib)) before.push_back(entry.path());
  auto o = in_home(home);
  o.timeout_seconds = 120;
  auto r = run_zcuda({"--json", "verify", "--app", python.string(), "--runtime-dir", (dir / "runtime").string()}, o);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = parsed(r);
  EXPECT_EQ(j["profile"], "placed");
  ASSERT_TRUE(j.contains("placement")) << j.dump();
  EXPECT_GT(j["placement"]["placed"].get<int>(), 0) << j.dump();
  EXPECT_EQ(j["placement"]["undone"], true) << j.dump();
  auto after = std::vector<fs::path>();
  for (const auto& entry : fs::recursive_directory_iterator(lib)) after.push_back(entry.path());
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, before);
  EXPECT_EQ(read_file(lib / "libtorch_cuda.so"), "torch's own");
  auto text = run_zcuda({"verify", "--app", python.string(), "--runtime-dir", (dir / "runtime").string()}, o);
  EXPECT_NE(text.out.find("undone after it"), std::string::npos) << text.out << text.err;
}

// verify --app believes a pass only with the facts that show CUDA working, keeps the result a
// check printed even when a child it left behind holds its output, honours --timeout below the
// default, and keeps only the end of an enormous line of stderr.
TEST(AppsCli, VerifyAppBelievesOnlyAPassItsFactsShowAndHonoursTheTimeout) {
  TempDir home, dir;
  auto o = in_home(home);
  const auto verify = [&](const fs::path& python, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--json", "verify", "--app", python.string(), "--runtime", "native"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_zcuda(args, o);
  };
  const fs::path marker_only = marking_venv(dir / "a", "echo 'ZCUDA-TORCH-CHECK {\"status\": \"pass\", \"reason\": \"\"}'\n");
  auto fake = verify(marker_only);
  EXPECT_EQ(fake.exit_code, 1) << fake.out << fake.err;
  EXPECT_EQ(parsed(fake)["status"], "error");
  EXPECT_NE(parsed(fake)["reason"].get<std::string>().find("says pass, but"), std::string::npos) << fake.out;

  // The result line printed, then a child left holding stdout for a long time.
  const fs::path lingering = marking_venv(dir / "b", "echo 'ZCUDA-TORCH-CHECK {\"status\": \"unavailable\", \"reason\": \"no GPU\"}'\nsleep 600 &\n");
  const auto started = std::chrono::steady_clock::now();
  auto kept = verify(lingering, {"--timeout", "60"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_EQ(parsed(kept)["status"], "unavailable") << kept.out << kept.err;

  const fs::path slow = marking_venv(dir / "c", "sleep 600\n");
  const auto slow_started = std::chrono::steady_clock::now();
  auto timed_out = verify(slow, {"--timeout", "2"});
  EXPECT_LT(std::chrono::steady_clock::now() - slow_started, std::chrono::seconds(60));
  EXPECT_NE(parsed(timed_out)["reason"].get<std::string>().find("did not finish in 2 s"), std::string::npos) << timed_out.out;

  const fs::path noisy = marking_venv(dir / "d", "head -c 1048576 /dev/zero | tr '\\0' x >&2\nexit 3\n");
  auto cut = verify(noisy);
  EXPECT_LT(parsed(cut)["reason"].get<std::string>().size(), 8000u) << cut.out.size();
}
#endif

}  // namespace
}  // namespace zcuda::test
