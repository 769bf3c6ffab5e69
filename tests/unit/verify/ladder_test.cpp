// The evidence ladder: each level needs its own evidence, and a higher one is never inferred.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <zcuda/verify/ladder.hpp>

namespace zcuda::verify::ladder {
namespace {

// Every check of the table with `status` and the libraries a real run would report.
std::vector<CheckOutcome> all(CheckStatus status) {
  std::vector<CheckOutcome> out;
  for (const auto& spec : verify::checks()) {
    const auto family = spec.name.substr(0, spec.name.find('.'));
    std::vector<std::string> roles{family};
    if (family != "driver" && family != "nvml") roles.push_back("driver");
    out.push_back({spec.name, spec.core, status, status == CheckStatus::missing ? std::vector<std::string>{} : roles});
  }
  return out;
}

CheckOutcome& named(std::vector<CheckOutcome>& checks, const std::string& name) {
  for (auto& c : checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no " + name);
}

TEST(Ladder, NothingFoundIsNotDetected) {
  const auto a = assess(all(CheckStatus::missing), true);
  EXPECT_EQ(a.level, Level::none);
  EXPECT_EQ(label(a.level), "not detected");
  EXPECT_EQ(assess({}, false).level, Level::none);
  // cuBLAS found but no driver: still nothing detected (the driver is what "detected" means).
  auto checks = all(CheckStatus::missing);
  named(checks, "cublas.sgemm").roles = {"cublas"};
  EXPECT_EQ(assess(checks, false).level, Level::none);
}

TEST(Ladder, ADriverThatDoesNotInitialiseIsOnlyDetected) {
  auto checks = all(CheckStatus::error);  // cuInit answered CUDA_ERROR_STUB_LIBRARY everywhere
  for (auto& c : checks) c.roles = {"driver"};
  const auto a = assess(checks, true);
  EXPECT_EQ(a.level, Level::detected);
  EXPECT_NE(a.reason.find("driver.init is error"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("cuBLAS did not load"), std::string::npos) << a.reason;
  // A driver that crashes in cuInit left no result, but something was there to crash.
  auto crashed = all(CheckStatus::crash);
  for (auto& c : crashed) c.roles.clear();
  EXPECT_EQ(assess(crashed, false).level, Level::detected);
}

TEST(Ladder, AllCoreLibrariesLoadingButACoreCheckUnsupportedIsLoadable) {
  auto checks = all(CheckStatus::pass);
  named(checks, "cusparse.spmv_csr").status = CheckStatus::unsupported;  // ZLUDA today
  const auto a = assess(checks, true);
  EXPECT_EQ(a.level, Level::loadable) << "an unsupported core check keeps the level at loadable";
  EXPECT_EQ(a.reason, "cusparse.spmv_csr is unsupported");
  // Wrong numbers, too.
  named(checks, "cusparse.spmv_csr").status = CheckStatus::fail;
  EXPECT_EQ(assess(checks, false).level, Level::loadable);
}

TEST(Ladder, ACoreLibraryThatDoesNotLoadIsOnlyDetected) {
  auto checks = all(CheckStatus::pass);
  for (const char* name : {"cublaslt.matmul", "cublaslt.matmul_bias_epilogue"}) {
    named(checks, name).status = CheckStatus::missing;
    named(checks, name).roles = {"driver"};
  }
  const auto a = assess(checks, false);
  EXPECT_EQ(a.level, Level::detected);
  EXPECT_EQ(a.reason, "cuBLASLt did not load in any check");
}

TEST(Ladder, FunctionalNeedsEveryCoreCheckAndIgnoresTheOthers) {
  auto checks = all(CheckStatus::pass);
  named(checks, "cudnn.conv_forward").status = CheckStatus::unsupported;
  named(checks, "cusolver.lu_solve").status = CheckStatus::missing;
  const auto a = assess(checks, false);
  EXPECT_EQ(a.level, Level::functional);
  EXPECT_NE(a.reason.find("no application bench"), std::string::npos);
  // A core check not run is no evidence.
  checks.erase(checks.begin() + 2);  // driver.kernel
  const auto partial = assess(checks, false);
  EXPECT_EQ(partial.level, Level::loadable);
  EXPECT_EQ(partial.reason, "driver.kernel was not run");
}

TEST(Ladder, ApplicationVerifiedNeedsTheBenchAndFunctional) {
  EXPECT_EQ(assess(all(CheckStatus::pass), true).level, Level::application_verified);
  EXPECT_EQ(assess(all(CheckStatus::pass), true).reason, "");
  EXPECT_EQ(assess(all(CheckStatus::pass), false).level, Level::functional) << "never inferred from the checks alone";
  auto broken = all(CheckStatus::pass);
  named(broken, "cublas.sgemm").status = CheckStatus::fail;
  EXPECT_EQ(assess(broken, true).level, Level::loadable) << "a bench does not lift a machine whose core checks fail";
}

TEST(Ladder, WordsAndJson) {
  const Assessment a{Level::loadable, "cusparse.spmv_csr is unsupported"};
  const auto j = to_json(a);
  EXPECT_EQ(j["id"], "loadable");
  EXPECT_EQ(j["label"], "loadable");
  EXPECT_EQ(j["reason"], "cusparse.spmv_csr is unsupported");
  EXPECT_EQ(describe(a),
            "loadable: the driver initialises and every core library loads, but not every core check passes "
            "(cusparse.spmv_csr is unsupported)");
  EXPECT_EQ(id(Level::application_verified), "application-verified");
  EXPECT_EQ(label(Level::application_verified), "application verified");
}

TEST(Ladder, OutcomesFromASavedResult) {
  const auto saved = nlohmann::json::parse(R"({"checks": [
    {"name": "driver.init", "core": true, "status": "pass", "libraries": [{"role": "driver"}]},
    {"name": "cublas.sgemm", "status": "pass", "libraries": [{"path": "/old/format/without/roles"}]},
    {"name": "cusolver.qr", "core": false, "status": "missing", "libraries": []},
    {"name": "cudnn.create", "status": "crash"}
  ]})");
  const auto o = outcomes(saved);
  ASSERT_EQ(o.size(), 4u);
  EXPECT_TRUE(o[0].core);
  EXPECT_EQ(o[0].roles, (std::vector<std::string>{"driver"}));
  EXPECT_TRUE(o[1].core) << "core from this zcuda's table when the result does not say";
  EXPECT_EQ(o[1].roles, (std::vector<std::string>{"cublas", "driver"})) << "older results: the check's own library";
  EXPECT_TRUE(o[2].roles.empty());
  EXPECT_TRUE(o[3].roles.empty()) << "a crash is no evidence that the library loaded";
}

}  // namespace
}  // namespace zcuda::verify::ladder
