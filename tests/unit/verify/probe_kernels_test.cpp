// What zcuda-probe hands the driver without a GPU to check it here: its PTX must assemble with
// NVIDIA's ptxas, its fat binary must be what NVIDIA's fatbinary tool writes, and the image it
// expects the driver to run must follow CUDA's rule. The tools are used when the CUDA toolkit is
// installed (the tests say so when they skip).
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include <zcuda/platform/process.hpp>

#include "fatbin.hpp"
#include "ptx_kernels.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::probe {
namespace {

std::vector<PtxImage> target_images() {
  std::vector<PtxImage> images;
  for (const auto& image : ptx::kTargetImages) images.push_back({image.sm, image.ptx_major, image.ptx_minor, ptx::which_ptx_text(image)});
  return images;
}

platform::ProcessResult run_tool(const std::string& tool, const std::vector<std::string>& args) {
  platform::ProcessSpec spec;
  spec.program = tool;
  spec.args = args;
  spec.streams = platform::StreamMode::capture;
  spec.timeout = std::chrono::seconds(120);
  auto done = platform::run_process(spec);
  EXPECT_TRUE(done) << done.error().message;
  return done ? *done : platform::ProcessResult{};
}

TEST(ProbeKernels, FatBinaryLayout) {
  const auto images = target_images();
  const auto bytes = build_ptx_fatbin(images, false);
  // The container header: magic, version 1, header size 16, then the size of what follows.
  ASSERT_GE(bytes.size(), 16u + 80u);
  EXPECT_EQ(std::vector<unsigned char>(bytes.begin(), bytes.begin() + 8), (std::vector<unsigned char>{0x50, 0xED, 0x55, 0xBA, 1, 0, 16, 0}));
  std::uint64_t rest = 0;
  for (int i = 7; i >= 0; --i) rest = rest << 8 | bytes[8 + static_cast<std::size_t>(i)];
  EXPECT_EQ(rest, bytes.size() - 16);
  // Walk the entries the way a loader does: each names its architecture and PTX version.
  std::size_t at = 16;
  for (const auto& image : images) {
    ASSERT_LE(at + 80, bytes.size());
    EXPECT_EQ(bytes[at], 1) << "kind PTX";
    EXPECT_EQ(bytes[at + 4], 80) << "entry header size";
    EXPECT_EQ(bytes[at + 0x1C], image.sm);
    EXPECT_EQ(bytes[at + 0x1A], image.ptx_major);
    EXPECT_EQ(bytes[at + 0x18], image.ptx_minor);
    const std::size_t payload = bytes[at + 8] | static_cast<std::size_t>(bytes[at + 9]) << 8;
    EXPECT_EQ(payload % 8, 0u);
    EXPECT_GT(payload, image.text.size()) << "room for the terminating NUL";
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + at + 80)), image.text);
    at += 80 + payload;
  }
  EXPECT_EQ(at, bytes.size());
  EXPECT_EQ(build_ptx_fatbin(images, true)[16 + 0x28], 0x41) << "Windows host flag";
}

TEST(ProbeKernels, FatBinaryIsByteForByteNvidias) {
  if (std::string(ZCUDA_FATBINARY_TOOL).empty()) GTEST_SKIP() << "NVIDIA's fatbinary tool is not installed here";
  test::TempDir dir;
  std::vector<std::string> args{"-64", "--compress=false", "--create=" + (dir / "nvidia.fatbin").string()};
  for (const auto& image : target_images()) {
    const auto file = dir / ("sm_" + std::to_string(image.sm) + ".ptx");
    std::ofstream(file, std::ios::binary) << image.text;
    args.push_back("--image3=kind=ptx,sm=" + std::to_string(image.sm) + ",file=" + file.string());
  }
  const auto done = run_tool(ZCUDA_FATBINARY_TOOL, args);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  std::ifstream in(dir / "nvidia.fatbin", std::ios::binary);
  const std::vector<unsigned char> nvidia((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(build_ptx_fatbin(target_images(), false), nvidia);
}

TEST(ProbeKernels, EveryPtxAssemblesWithNvidiasPtxas) {
  if (std::string(ZCUDA_PTXAS_TOOL).empty()) GTEST_SKIP() << "NVIDIA's ptxas is not installed here";
  test::TempDir dir;
  std::vector<std::pair<std::string, std::string>> texts;  // file name, PTX
  for (const auto& header : ptx::kHeaders) {
    const auto sm = std::to_string(header.sm);
    texts.push_back({"vadd_" + sm + ".ptx", std::string(header.text) + ptx::kVadd});
    texts.push_back({"features_" + sm + ".ptx", std::string(header.text) + ptx::kFeatures});
    texts.push_back({"tex_fetch_" + sm + ".ptx", std::string(header.text) + ptx::kTexFetch});
  }
  for (const auto& image : target_images()) texts.push_back({"which_" + std::to_string(image.sm) + ".ptx", image.text});
  for (const auto& [name, text] : texts) {
    const auto file = dir / name;
    std::ofstream(file, std::ios::binary) << text;
    // sm_90 runs every image but sm_100's, which needs its own architecture.
    const std::string arch = name == "which_100.ptx" ? "sm_100" : "sm_90";
    const auto done = run_tool(ZCUDA_PTXAS_TOOL, {"-arch=" + arch, file.string(), "-o", (dir / (name + ".cubin")).string()});
    EXPECT_EQ(done.exit_code, 0) << name << ": " << done.err;
  }
}

TEST(ProbeKernels, TheImageCudaRunsIsTheHighestNotAboveTheDevice) {
  std::vector<int> targets;
  for (const auto& image : ptx::kTargetImages) targets.push_back(image.sm);
  EXPECT_EQ(ptx_target_for(90, targets), 90);  // H100/H200
  EXPECT_EQ(ptx_target_for(89, targets), 80);  // Ada
  EXPECT_EQ(ptx_target_for(88, targets), 80);  // ZLUDA's default identity
  EXPECT_EQ(ptx_target_for(75, targets), 75);
  EXPECT_EQ(ptx_target_for(61, targets), 50);
  EXPECT_EQ(ptx_target_for(120, targets), 100);
  EXPECT_EQ(ptx_target_for(37, targets), 0);
  // The order is chosen so that no shortcut (first, last, lowest, highest) gives the right
  // answer on common GPUs.
  EXPECT_NE(targets.front(), 90);
  EXPECT_NE(targets.front(), 80);
  EXPECT_NE(targets.back(), 90);
}

TEST(ProbeKernels, SharedMemoryPatternIsTheKernelsArithmetic) {
  EXPECT_EQ(ptx::shared_pattern(0), 12345u);
  EXPECT_EQ(ptx::shared_pattern(1), 2654435761u + 12345u);
  EXPECT_EQ(ptx::shared_pattern(2), static_cast<unsigned>(2ull * 2654435761ull + 12345ull));  // wraps at 2^32
}

}  // namespace
}  // namespace zcuda::probe
