// install --adopt: a folder an application's installer made is registered by receipt, found by
// name, checked for changes, and forgotten without touching it.
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/install/adopt.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/verify/verify.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::install {
namespace {

namespace fs = std::filesystem;
using platform::Os;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

std::string read(const fs::path& file) { return platform::read_file(file, 1u << 20).value(); }

// A file that starts as a shared library does: adoption refuses a driver that is not one.
std::string elf_like(const std::string& text) {
  return std::string(
             "\x7f"
             "ELF") +
         std::string(60, '\x02') + text;
}

// An application's ZLUDA folder as SD.Next leaves it (.zluda), Linux names.
struct AdoptFixture {
  test::TempDir dir;
  home::Home home;
  fs::path app_zluda;

  AdoptFixture() {
    home = home::Home{dir / "home", dir / "home" / "cache", dir / "home" / "state", dir / "home" / "logs", home::ChosenBy::flag};
    app_zluda = dir / "sdnext" / ".zluda";
    write(app_zluda / "libcuda.so.1", elf_like("driver bytes"));
    write(app_zluda / "libcublas.so.12", "cublas bytes");
    write(app_zluda / "trace" / "libcuda.so.1", "trace shim");
  }

  std::map<std::string, std::string> contents() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(app_zluda)) {
      if (e.is_regular_file()) out[e.path().lexically_relative(app_zluda).generic_string()] = read(e.path());
    }
    return out;
  }
};

TEST(Adopt, WritesAnAdoptedReceiptWithEveryFileAndTheFamily) {
  AdoptFixture f;
  auto adopted = adopt(f.app_zluda, "sdnext", f.home, Os::linux);
  ASSERT_TRUE(adopted) << adopted.error().message;
  EXPECT_EQ(adopted->name, "sdnext");
  EXPECT_EQ(adopted->dir, fs::absolute(f.app_zluda));
  EXPECT_EQ(adopted->identity.family, family::Family::unknown);  // stand-in bytes tell nothing

  auto receipt = read_receipt(f.home, "zluda", "sdnext");
  ASSERT_TRUE(receipt);
  ASSERT_TRUE(receipt->adopted_dir);
  EXPECT_EQ(*receipt->adopted_dir, fs::absolute(f.app_zluda).string());
  EXPECT_EQ(receipt->family.at("family"), "unknown");
  EXPECT_EQ(receipt->source, "adopted");
  std::map<std::string, archive::WrittenEntry> by_path;
  for (const auto& e : receipt->files) by_path[e.path] = e;
  ASSERT_TRUE(by_path.contains("libcuda.so.1"));
  EXPECT_EQ(by_path["libcuda.so.1"].size, elf_like("driver bytes").size());
  EXPECT_EQ(by_path["libcuda.so.1"].sha256, sha256_file(f.app_zluda / "libcuda.so.1").value());
  EXPECT_TRUE(by_path.contains("trace/libcuda.so.1"));
  EXPECT_EQ(by_path["trace"].type, archive::WrittenEntry::Type::directory);
  // Nothing copied: the installs folder holds the receipt only.
  EXPECT_FALSE(fs::exists(f.home.installs() / "zluda" / "sdnext"));
}

TEST(Adopt, DefaultNameComesFromTheFolder) {
  AdoptFixture f;
  auto adopted = adopt(f.app_zluda, "", f.home, Os::linux);
  ASSERT_TRUE(adopted) << adopted.error().message;
  EXPECT_EQ(adopted->name, "sdnext-zluda");  // a folder called .zluda or zluda: the application's folder names it
  family::Identity known;
  known.family = family::Family::lshqqytiger;
  known.release = "v3.9.5";
  EXPECT_EQ(default_adoption_name("/x/zluda", known), "lshqqytiger-v3.9.5");
  EXPECT_EQ(default_adoption_name("/x/My ZLUDA", family::Identity{}), "My-ZLUDA");
  EXPECT_EQ(default_adoption_name("/apps/ComfyUI/zluda", family::Identity{}), "ComfyUI-zluda");
}

TEST(Adopt, RefusesAFolderWithoutZludaAndATakenName) {
  AdoptFixture f;
  write(f.dir / "empty" / "readme.txt", "no driver");
  auto none = adopt(f.dir / "empty", "x", f.home, Os::linux);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("holds no ZLUDA library"), std::string::npos) << none.error().message;
  EXPECT_FALSE(none.error().hint.empty());

  ASSERT_TRUE(adopt(f.app_zluda, "app", f.home, Os::linux));
  auto again = adopt(f.app_zluda, "app", f.home, Os::linux);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::usage);
  // An installed version's name is taken too.
  fs::create_directories(f.home.installs() / "zluda" / "v6-preview.69");
  auto installed = adopt(f.app_zluda, "v6-preview.69", f.home, Os::linux);
  ASSERT_FALSE(installed);
  EXPECT_EQ(installed.error().kind, ErrorKind::usage);
  auto reserved = adopt(f.app_zluda, "native", f.home, Os::linux);
  ASSERT_FALSE(reserved);
  EXPECT_EQ(reserved.error().kind, ErrorKind::usage);
}

// A driver that is no library (empty, or a link to a file outside the folder such as
// /etc/passwd) is no runtime whatever its name; an application's whole tree is not a ZLUDA folder.
TEST(Adopt, RefusesADriverThatIsNoLibraryALinkOutsideAndAHugeTree) {
  AdoptFixture f;
  write(f.dir / "empty" / "libcuda.so.1", "");
  auto empty = adopt(f.dir / "empty", "empty", f.home, Os::linux);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(empty.error().message.find("not a shared library"), std::string::npos) << empty.error().message;

#ifndef _WIN32
  write(f.dir / "linked" / "libcublas.so.12", elf_like("cublas"));
  write(f.dir / "secret", elf_like("not yours"));
  fs::create_symlink(f.dir / "secret", f.dir / "linked" / "libcuda.so.1");
  auto linked = adopt(f.dir / "linked", "linked", f.home, Os::linux);
  ASSERT_FALSE(linked);
  EXPECT_EQ(linked.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(linked.error().message.find("outside the folder"), std::string::npos) << linked.error().message;
#endif

  write(f.dir / "huge" / "libcuda.so.1", elf_like("driver"));
  for (int i = 0; i < 5100; ++i) write(f.dir / "huge" / "data" / std::to_string(i / 100) / std::to_string(i), "x");
  auto huge = adopt(f.dir / "huge", "huge", f.home, Os::linux);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(huge.error().message.find("more than 5000 entries"), std::string::npos) << huge.error().message;
  EXPECT_FALSE(fs::exists(f.home.installs() / "zluda" / "huge.receipt.json"));
}

TEST(Adopt, UsableByNameInBenchAndVerifyAndChangesAreNoticed) {
  AdoptFixture f;
  ASSERT_TRUE(adopt(f.app_zluda, "comfy", f.home, Os::linux));
  auto spec = launch::locate_runtime_spec(std::string("comfy"), f.home);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(*spec);
  EXPECT_EQ((*spec)->dir, fs::absolute(f.app_zluda));
  EXPECT_EQ((*spec)->version, "comfy");

  auto verified = verify::resolve_runtime(std::nullopt, "comfy", f.home);
  ASSERT_TRUE(verified) << verified.error().message;
  EXPECT_EQ(verified->kind, verify::RuntimeKind::zluda);
  EXPECT_EQ(verified->dir, fs::absolute(f.app_zluda));

  auto found = find_adopted(f.home, "comfy");
  ASSERT_TRUE(found && *found);
  EXPECT_TRUE((*found)->changed.empty());
  write(f.app_zluda / "libcublas.so.12", "a longer, updated cublas");
  found = find_adopted(f.home, "comfy");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->changed, std::vector<std::string>{"libcublas.so.12"});
  EXPECT_NE(changed_warning(**found).find("libcublas.so.12"), std::string::npos);
  EXPECT_NE(changed_warning(**found).find("re-adopt"), std::string::npos);

  EXPECT_FALSE(*find_adopted(f.home, "nobody"));
  fs::rename(f.app_zluda, f.dir / "moved");
  auto gone = launch::locate_runtime_spec(std::string("comfy"), f.home);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().kind, ErrorKind::not_found);
  EXPECT_NE(gone.error().hint.find("--adopt"), std::string::npos);
}

TEST(Adopt, RemoveForgetsButLeavesEveryFileByteForByte) {
  AdoptFixture f;
  const auto before = f.contents();
  ASSERT_TRUE(adopt(f.app_zluda, "comfy", f.home, Os::linux));
  EXPECT_EQ(f.contents(), before);  // adopting changes nothing either
  auto removed = remove("comfy", f.home, Options{});
  ASSERT_TRUE(removed) << removed.error().message;
  ASSERT_EQ(removed->outcomes.size(), 1u);
  EXPECT_EQ(removed->outcomes[0].state, State::removed);
  EXPECT_FALSE(removed->first_error);
  EXPECT_FALSE(fs::exists(f.home.installs() / "zluda" / "comfy.receipt.json"));
  EXPECT_EQ(f.contents(), before);
  EXPECT_EQ(f.contents().size(), 3u);
  EXPECT_FALSE(*find_adopted(f.home, "comfy"));
}

TEST(Adopt, OldReceiptsWithoutTheNewFieldsStillRead) {
  Receipt r;
  r.id = "zluda-v1";
  r.component = "zluda";
  r.version = "v1";
  r.archive = "zip";
  r.entry = nlohmann::json::object();
  const nlohmann::json written = r;
  EXPECT_FALSE(written.contains("adopted"));
  EXPECT_FALSE(written.contains("family"));
  Receipt back = written.get<Receipt>();
  EXPECT_EQ(back, r);
  Receipt adopted = r;
  adopted.adopted_dir = "/apps/comfy/zluda";
  adopted.family = {{"family", "upstream"}};
  EXPECT_EQ(nlohmann::json(adopted).get<Receipt>(), adopted);
}

}  // namespace
}  // namespace zcuda::install
