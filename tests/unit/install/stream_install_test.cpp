// Installs over HTTP extract while the archive downloads (issue 17): the same result as the
// sequential path, and the same guarantees when the download or the archive turns out bad late.
#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/fetch/fetch.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/platform/os.hpp>

#include "support/archive_builder.hpp"
#include "support/file_url.hpp"
#include "support/http_server.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::install {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Enough entries and incompressible bytes (about 3.6 MB) that the download lands on disk in
// several of its 1 MiB write blocks.
std::vector<test::Spec> runtime_entries() {
  std::vector<test::Spec> entries{test::dir("zluda/")};
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 12; ++i) {
    std::string bytes(300000, '\0');
    for (auto& c : bytes) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      c = static_cast<char>(state & 0xff);
    }
    entries.push_back(test::file("zluda/lib" + std::to_string(i) + ".so", bytes));
  }
  entries.push_back(test::file("zluda/nvcuda.dll", "nvcuda bytes"));
  entries.push_back(test::file("zluda/zluda.exe", "launcher"));
  return entries;
}

struct Scene {
  test::TempDir dir;
  home::Home home;
  test::ArchiveType type;
  fs::path archive;
  std::string bytes;
  std::string sha256;
  test::HttpServer server;

  explicit Scene(test::ArchiveType t = test::ArchiveType::zip, std::vector<test::Spec> entries = runtime_entries()) : type(t) {
    home = home::Home{dir / "home", dir / "home" / "cache", dir / "home" / "state", dir / "home" / "logs", home::ChosenBy::flag};
    fs::create_directories(dir / "src");
    archive = dir / "src" / (t == test::ArchiveType::zip ? "zluda.zip" : "zluda.tar.gz");
    test::write_archive(archive, t, entries);
    bytes = test::read_file(archive);
    sha256 = zcuda::sha256_file(archive).value();
  }

  // Serves the archive in 20 pieces with a pause between them.
  void serve(std::string body = {}) {
    test::HttpResource r;
    r.body = body.empty() ? bytes : body;
    r.etag = "\"v1\"";
    r.chunk = r.body.size() / 20 + 1;
    r.chunk_delay = std::chrono::milliseconds(5);
    server.serve("/a", r);
  }

  json entry(const std::string& url) const {
    return {{"id", "zluda-test"},
            {"component", "zluda"},
            {"version", "v1"},
            {"os", "any"},
            {"url", url},
            {"sha256", sha256},
            {"size", bytes.size()},
            {"archive", type == test::ArchiveType::zip ? "zip" : "tar.gz"},
            {"root", "zluda"},
            {"license", "MIT"},
            {"expected_files", {"nvcuda.dll", "zluda.exe"}}};
  }

  Outcome install(const home::Home& h, const std::string& url, Options options = {}) const {
    options.fetch.initial_backoff = std::chrono::milliseconds(10);
    auto m = manifest::parse(json{{"schema", 1}, {"artifacts", {entry(url)}}}.dump(), "test").value();
    auto plan = make_plan(m, Selection{}, h);
    EXPECT_TRUE(plan) << plan.error().message;
    auto report = run(*plan, h, options);
    EXPECT_TRUE(report) << report.error().message;
    EXPECT_EQ(report->outcomes.size(), 1u);
    return report->outcomes.front();
  }
  Outcome install(Options options = {}) const { return install(home, server.url("/a"), std::move(options)); }

  fs::path component() const { return home.root / "installs" / "zluda"; }
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(component(), ec)) {
      auto name = e.path().filename().string();
      if (name == "current" || name == "v1" || name.ends_with(".receipt.json")) continue;
      names.push_back(name);
    }
    return names;
  }
  void expect_nothing_installed() const {
    EXPECT_FALSE(fs::exists(component() / "v1"));
    EXPECT_FALSE(fs::exists(component() / "current"));
    EXPECT_TRUE(leftovers().empty()) << ::testing::PrintToString(leftovers());
    EXPECT_FALSE(fs::exists(dir / "outside")) << "nothing was written outside the temporary folder";
  }
};

std::string receipt_files(const home::Home& h) {
  auto text = test::read_file(h.root / "installs" / "zluda" / "v1.receipt.json");
  auto doc = json::parse(text, nullptr, false);
  return doc.is_discarded() ? text : doc["files"].dump();
}

// Each format with one extraction worker, and a zip with three (each following the download with
// a reader of its own): the same results and the same guarantees.
struct StreamCase {
  test::ArchiveType type;
  std::size_t workers;
};
class Streamed : public ::testing::TestWithParam<StreamCase> {
 protected:
  Outcome install(const Scene& s, Options options = {}) const {
    options.extraction_workers = GetParam().workers;
    return s.install(std::move(options));
  }
};

TEST_P(Streamed, InstallsWhatTheSequentialPathInstalls) {
  Scene s(GetParam().type);
  s.serve();
  auto out = install(s);
  ASSERT_EQ(out.state, State::installed) << (out.error ? out.error->message : "");
  EXPECT_EQ(out.source, s.server.url("/a"));
  EXPECT_EQ(out.files, 14u);
  EXPECT_TRUE(fs::exists(s.component() / "v1" / "lib11.so"));
  EXPECT_TRUE(s.leftovers().empty());
  EXPECT_TRUE(fs::exists(s.home.cache / s.sha256)) << "the verified download is in the cache";

  // The same archive from a file (the sequential path) gives the same receipt, digest by digest.
  home::Home other{s.dir / "other", s.dir / "other" / "cache", s.dir / "other" / "state", s.dir / "other" / "logs", home::ChosenBy::flag};
  Options sequential;
  sequential.extraction_workers = GetParam().workers;
  auto local = s.install(other, test::file_url(s.archive), sequential);
  ASSERT_EQ(local.state, State::installed) << (local.error ? local.error->message : "");
  EXPECT_EQ(receipt_files(s.home), receipt_files(other));
}

TEST_P(Streamed, ExtractsWhileTheDownloadIsStillGoing) {
  if (platform::current_os() == platform::Os::windows) GTEST_SKIP() << "Windows installs sequentially (docs/install.md)";
  Scene s(GetParam().type);
  s.serve();
  // Half the archive, then two seconds of silence: extracted files must appear meanwhile.
  test::HttpFault stall;
  stall.stall_after = s.bytes.size() / 2;
  stall.stall_for = std::chrono::milliseconds(2000);
  s.server.push_fault("/a", stall);
  Outcome out;
  std::thread installing([&] { out = install(s); });
  bool seen = false;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!seen && std::chrono::steady_clock::now() < until) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(s.component(), ec)) {
      if (e.path().filename() == "lib0.so" && e.path().parent_path().filename() != "v1") seen = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(fs::exists(s.component() / "v1")) << "nothing is in place before the digest verified";
  installing.join();
  EXPECT_TRUE(seen) << "no file was extracted into the temporary folder during the download";
  ASSERT_EQ(out.state, State::installed) << (out.error ? out.error->message : "");
}

TEST_P(Streamed, ADigestMismatchFoundAtTheEndInstallsNothing) {
  Scene s(GetParam().type);
  // A valid archive of the same shape, but not the pinned bytes.
  auto entries = runtime_entries();
  entries.back() = test::file("zluda/zluda.exe", "another launcher");
  const fs::path impostor = s.dir / "impostor";
  test::write_archive(impostor, GetParam().type, entries);
  s.serve(test::read_file(impostor));
  Options options;
  options.fetch.max_attempts_per_source = 1;
  auto out = install(s, options);
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::integrity) << out.error->message;
  s.expect_nothing_installed();
  EXPECT_FALSE(fs::exists(s.home.cache / s.sha256));
}

TEST_P(Streamed, ATruncatedDownloadInstallsNothingAndKeepsThePartial) {
  Scene s(GetParam().type);
  s.serve();
  test::HttpFault cut;
  cut.cut_after = s.bytes.size() * 2 / 3;
  s.server.push_fault("/a", cut);
  Options options;
  options.fetch.max_attempts_per_source = 1;
  auto out = install(s, options);
  ASSERT_EQ(out.state, State::failed);
  EXPECT_TRUE(out.error->kind == ErrorKind::incomplete || out.error->kind == ErrorKind::network) << out.error->message;
  s.expect_nothing_installed();
  EXPECT_TRUE(fs::exists(s.home.cache / (s.sha256 + ".partial"))) << "the bytes so far are kept for a resume";

  // The next run resumes and installs.
  auto next = install(s);
  ASSERT_EQ(next.state, State::installed) << (next.error ? next.error->message : "");
  EXPECT_LT(next.bytes_transferred, s.bytes.size()) << "it resumed instead of starting over";
}

TEST_P(Streamed, ARestartFromZeroMidDownloadStillInstallsTheVerifiedBytes) {
  Scene s(GetParam().type);
  test::HttpResource r;
  r.body = s.bytes;
  r.ranges = false;  // every retry sends the whole file again: the partial is overwritten
  r.chunk = s.bytes.size() / 20 + 1;
  r.chunk_delay = std::chrono::milliseconds(5);
  s.server.serve("/a", r);
  test::HttpFault cut;
  cut.cut_after = s.bytes.size() / 2;
  s.server.push_fault("/a", cut);
  auto out = install(s);
  ASSERT_EQ(out.state, State::installed) << (out.error ? out.error->message : "");
  EXPECT_TRUE(fs::exists(s.component() / "v1" / "lib11.so"));
  EXPECT_TRUE(s.leftovers().empty());
}

TEST_P(Streamed, AHostileLinkFoundOnlyAtTheEndInstallsNothing) {
  // The link's escape is known only once the whole archive is read; by then the files before it
  // are extracted. Links are made last, so nothing ever pointed outside.
  auto entries = runtime_entries();
  entries.push_back(test::symlink("zluda/escape", "../../../outside"));
  Scene s(GetParam().type, entries);
  s.serve();
  auto out = install(s);
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::integrity) << out.error->message;
  EXPECT_NE(out.error->message.find("escape"), std::string::npos) << out.error->message;
  s.expect_nothing_installed();
}

INSTANTIATE_TEST_SUITE_P(Formats, Streamed,
                         ::testing::Values(StreamCase{test::ArchiveType::zip, 1}, StreamCase{test::ArchiveType::tar_gz, 1},
                                           StreamCase{test::ArchiveType::zip, 3}),
                         [](const ::testing::TestParamInfo<StreamCase>& p) {
                           return std::string(p.param.type == test::ArchiveType::zip ? "zip" : "tar_gz") + "_" + std::to_string(p.param.workers) +
                                  "_workers";
                         });

// A zip whose central directory names an entry differently from its local header: the streamed
// extraction read the local headers, other tools read the central directory; refused.
TEST(StreamedZip, ACentralDirectoryThatDisagreesWithTheLocalHeadersIsRefused) {
  if (platform::current_os() == platform::Os::windows)
    GTEST_SKIP() << "Windows installs sequentially, from the central directory alone (docs/install.md)";
  Scene s(test::ArchiveType::zip);
  const std::string name = "zluda/lib3.so";
  const auto last = s.bytes.rfind(name);
  ASSERT_NE(last, std::string::npos);
  ASSERT_NE(s.bytes.find(name), last) << "the name is in the local header and in the central directory";
  std::string patched = s.bytes;
  patched[last + name.size() - 1] = 'x';  // central directory: zluda/lib3.sx
  fs::path file = s.dir / "patched.zip";
  std::ofstream(file, std::ios::binary) << patched;
  s.bytes = patched;
  s.sha256 = zcuda::sha256_file(file).value();
  s.serve();
  auto out = s.install();
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::integrity) << out.error->message;
  EXPECT_NE(out.error->message.find("lib3.sx"), std::string::npos) << out.error->message;
  EXPECT_NE(out.error->message.find("central directory"), std::string::npos) << out.error->message;
  s.expect_nothing_installed();
}

}  // namespace
}  // namespace zcuda::install
