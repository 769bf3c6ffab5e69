// The profiles file: the embedded profiles, validation with JSON paths, the user's own file.
#include <gtest/gtest.h>

#include <zcuda/apps/profile.hpp>

#include "support/temp_dir.hpp"
#include "unit/apps/embedded_profile.hpp"

namespace zcuda::apps {
namespace {

using test::TempDir;

TEST(Profiles, TheSixProfilesAreEmbedded) {
  for (const char* name : {"comfyui-zluda", "sdnext", "blender", "physx-32bit", "llama-cpp", "pytorch"}) EXPECT_NO_THROW(embedded(name)) << name;
}

TEST(Profiles, ComfyUiPlacesAsItsInstallerDoes) {
  const Profile& p = embedded("comfyui-zluda");
  EXPECT_EQ(p.family, family::Family::lshqqytiger);
  EXPECT_EQ(p.runtime, "zluda");
  const Placement placement = p.placement_on(platform::Os::windows);
  EXPECT_EQ(placement.into, Into::torch_lib);
  ASSERT_EQ(placement.names.size(), 5u);
  EXPECT_EQ(placement.names[0].from, "cublas.dll");
  EXPECT_EQ(placement.names[0].to, "cublas64_11.dll");
  EXPECT_EQ(placement.names[2].from, "nvrtc.dll");
  EXPECT_EQ(placement.names[2].to, "nvrtc64_112_0.dll");
  EXPECT_EQ(placement.names[2].keep_original_as, "nvrtc_cuda.dll");
  EXPECT_EQ(placement.names[4].to, "cufftw64_10.dll");
  std::vector<std::string> variables;
  for (const auto& s : p.environment) variables.push_back(s.name + "=" + s.value);
  EXPECT_EQ(variables, (std::vector<std::string>{"MIOPEN_FIND_MODE=2", "MIOPEN_LOG_LEVEL=3", "ZLUDA_COMGR_LOG_LEVEL=1"}));
  EXPECT_EQ(p.check, Check::torch);
}

TEST(Profiles, LaunchModesAndChecks) {
  EXPECT_EQ(embedded("sdnext").launch, LaunchMode::direct);
  EXPECT_FALSE(embedded("sdnext").stage);
  EXPECT_EQ(embedded("sdnext").runtime, ".zluda");
  EXPECT_EQ(embedded("blender").compute_capability, "8.5");
  EXPECT_NE(embedded("blender").compute_capability_why.find("1ee6c4826"), std::string::npos);
  EXPECT_EQ(embedded("physx-32bit").os, std::vector<platform::Os>{platform::Os::windows});
  EXPECT_TRUE(embedded("physx-32bit").steam_launch_option);
  EXPECT_EQ(embedded("llama-cpp").check, Check::fatbin);
  EXPECT_EQ(embedded("pytorch").placement_on(platform::Os::linux).into, Into::none);
  EXPECT_EQ(embedded("pytorch").placement_on(platform::Os::windows).into, Into::torch_lib);
}

// Upstream's zluda.exe redirects by file name (full-path loads too) and, in its default mode,
// cudnn64_9.dll whatever MIOpen: the pytorch profile says what happens under each launch.
TEST(Profiles, PyTorchSaysWhatHappensUnderEachLaunch) {
  const Profile& p = embedded("pytorch");
  std::vector<std::string> through, without;
  for (const auto& n : p.launch_notes) {
    EXPECT_EQ(n.os, platform::Os::windows);
    (n.zluda_exe ? through : without).push_back(n.note);
  }
  ASSERT_EQ(through.size(), 2u);
  EXPECT_NE(through[0].find("by its file name"), std::string::npos);
  EXPECT_NE(through[1].find("cudnn64_9.dll"), std::string::npos);
  EXPECT_NE(through[1].find("whether or not MIOpen is installed"), std::string::npos);
  ASSERT_EQ(without.size(), 1u);
  EXPECT_NE(without[0].find("only where MIOpen is present"), std::string::npos);
  for (const auto& n : p.notes) EXPECT_EQ(n.find("cuDNN is placed"), std::string::npos) << "said for every launch: " << n;
}

std::string one_profile(const std::string& fields) {
  return R"({"format": 1, "profiles": [{"name": "mine", "title": "Mine", "family": "upstream", "recognise": [{"exists": ["mine.exe"], "why": "mine"}])" +
         fields + "}]}";
}

TEST(Profiles, ErrorsNameTheJsonPath) {
  auto bad_launch = parse(one_profile(R"(, "launch": "zluda")"), "test.json");
  ASSERT_FALSE(bad_launch);
  EXPECT_EQ(bad_launch.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(bad_launch.error().message.find("profiles[0].launch: expected launcher or direct, got \"zluda\""), std::string::npos)
      << bad_launch.error().message;
  EXPECT_NE(bad_launch.error().hint.find("docs/apps.md"), std::string::npos);

  auto no_why = parse(one_profile(R"(, "environment": [{"name": "X", "value": "1", "why": ""}])"), "test.json");
  ASSERT_FALSE(no_why);
  EXPECT_NE(no_why.error().message.find("profiles[0].environment[0].why"), std::string::npos) << no_why.error().message;

  auto unknown = parse(one_profile(R"(, "lanch": "direct")"), "test.json");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("profiles[0].lanch: not a profile field"), std::string::npos) << unknown.error().message;

  auto escape = parse(one_profile(R"(, "runtime": "../elsewhere")"), "test.json");
  ASSERT_FALSE(escape);
  EXPECT_NE(escape.error().message.find("profiles[0].runtime"), std::string::npos);

  auto family = parse(one_profile(R"(, "placement": {"windows": {"into": "torch_lib", "names": [{"from": "a.dll", "to": "..\\b.dll"}]}})"), "t");
  ASSERT_FALSE(family);
  EXPECT_NE(family.error().message.find("profiles[0].placement.windows.names[0]"), std::string::npos) << family.error().message;

  // A name map may not place or keep files over zcuda's own stage folder, nor name a folder step.
  for (const char* names : {R"([{"from": "a.dll", "to": ".zcuda-stage"}])", R"([{"from": "a.dll", "to": "."}])", R"([{"from": "..", "to": "b.dll"}])",
                            R"([{"from": "a.dll", "to": "b.dll", "keep_original_as": ".ZCUDA-STAGE"}])",
                            R"([{"from": "a.dll", "to": "b.dll", "keep_original_as": ".."}])"}) {
    auto refused = parse(one_profile(std::string(R"(, "placement": {"windows": {"into": "torch_lib", "names": )") + names + "}}"), "t");
    ASSERT_FALSE(refused) << names;
    EXPECT_EQ(refused.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(exit_code(refused.error().kind), 4);
    EXPECT_NE(refused.error().message.find("not a plain file name"), std::string::npos) << refused.error().message;
  }

  auto when = parse(one_profile(R"(, "launch_notes": [{"when": "always", "note": "x"}])"), "t");
  ASSERT_FALSE(when);
  EXPECT_NE(when.error().message.find("profiles[0].launch_notes[0].when"), std::string::npos) << when.error().message;
  auto cc = parse(one_profile(R"(, "compute_capability": {"value": "85", "why": "x"})"), "t");
  ASSERT_FALSE(cc);
  EXPECT_NE(cc.error().message.find("profiles[0].compute_capability.value"), std::string::npos) << cc.error().message;
  auto variable = parse(one_profile(R"(, "runtime_variable": "ZLUDA")"), "t");
  ASSERT_FALSE(variable);
  EXPECT_NE(variable.error().message.find("profiles[0].runtime: missing"), std::string::npos) << variable.error().message;

  EXPECT_FALSE(parse("{\"format\": 2, \"profiles\": []}", "t"));
  EXPECT_FALSE(parse("not json", "t"));
  EXPECT_TRUE(parse(one_profile(""), "t"));
}

TEST(Profiles, TheUsersFileComesFirstAndReplacesByName) {
  TempDir dir;
  test::write_file(dir / "app-profiles.json",
                   R"({"format": 1, "profiles": [{"name": "blender", "title": "My Blender", "family": "upstream", "launch": "direct",
                       "recognise": [{"program": ["blender.exe"], "why": "my Blender"}]}]})");
  auto profiles = load(dir / "app-profiles.json");
  ASSERT_TRUE(profiles) << profiles.error().message;
  EXPECT_EQ(profiles->front().name, "blender");
  EXPECT_EQ(profiles->front().title, "My Blender");
  EXPECT_EQ(std::count_if(profiles->begin(), profiles->end(), [](const Profile& p) { return p.name == "blender"; }), 1);
  EXPECT_TRUE(find(*profiles, "comfyui-zluda"));

  test::write_file(dir / "broken.json", R"({"format": 1, "profiles": [{"name": "x"}]})");
  auto broken = load(dir / "broken.json");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("broken.json"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::apps
