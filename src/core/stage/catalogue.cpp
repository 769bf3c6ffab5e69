// Names from ZLUDA's own build description (xtask, v6-preview.69; NVAPI from v7-preview.9) and the CUDA toolkit's
// redistributable DLL names; see docs/staging.md.
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/ascii.hpp>
#include <zcuda/stage/catalogue.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <span>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::stage {

namespace fs = std::filesystem;
using platform::Os;

namespace {

constexpr Family kCuda{"cuda", "CUDA driver", "HIP runtime", true, {}};
constexpr Family kNvml{"nvml", "NVML", "ROCm SMI", true, {}};
constexpr Family kNvmlStub{"nvml", "NVML", "none (stub)", true,
                           "ZLUDA's Windows NVML answers NVML_ERROR_NOT_SUPPORTED; GPU queries through NVML will fail"};
constexpr Family kCublas{"cublas", "cuBLAS", "rocBLAS", false, {}};
constexpr Family kCublasLt{"cublaslt", "cuBLASLt", "hipBLASLt", false, {}};
constexpr Family kCusparse{"cusparse", "cuSPARSE", "rocSPARSE", false, {}};
constexpr Family kCufft{"cufft", "cuFFT", "none (stub)", false, "ZLUDA's cuFFT answers CUFFT_NOT_SUPPORTED to every call; FFTs will fail"};
constexpr Family kCudnn{"cudnn", "cuDNN", "MIOpen", false, {}};
// NVIDIA's driver ships NVAPI in the system folder, loaded by name (programs ask it about the GPU):
// ZLUDA's release serves it for 64-bit and, in its 32 folder, 32-bit programs
// (zluda_windows/src/lib.rs, LIBRARIES; nvapi/Cargo.toml).
constexpr Family kNvapi{"nvapi", "NVAPI", "ZLUDA (GPU queries)", true, {}};

struct Pattern {
  const char* regex;
  const Family* family;
};

// Windows: the DLL names ZLUDA's archive holds (matched case-insensitively).
const Pattern kWindows[] = {
    {R"(nvcuda\.dll)", &kCuda},
    {R"(nvml\.dll)", &kNvmlStub},
    {R"(cublas64_\d+\.dll)", &kCublas},
    {R"(cublaslt64_\d+\.dll)", &kCublasLt},
    {R"(cusparse64_\d+\.dll)", &kCusparse},
    {R"(cufft64_\d+\.dll)", &kCufft},
    {R"(cudnn64_\d+\.dll)", &kCudnn},
    {R"(nvapi(64)?\.dll)", &kNvapi},
};

// Linux: sonames and their development aliases, as ZLUDA's Linux archive links them.
const Pattern kLinux[] = {
    {R"(lib(nv)?cuda\.so(\.\d+)*)", &kCuda},       {R"(lib(nvidia-ml|nvml)\.so(\.\d+)*)", &kNvml}, {R"(libcublas\.so(\.\d+)*)", &kCublas},
    {R"(libcublaslt\.so(\.\d+)*)", &kCublasLt},    {R"(libcusparse\.so(\.\d+)*)", &kCusparse},     {R"(libcufft\.so(\.\d+)*)", &kCufft},
    {R"(libcudnn(64_\d+)?\.so(\.\d+)*)", &kCudnn},
};

struct NvidiaPattern {
  const char* regex;
  std::string_view library;
};

// Libraries ZLUDA leaves to NVIDIA (not in its archive); zluda_redirect detours NVRTC instead.
const NvidiaPattern kNvidiaWindows[] = {
    {R"(cudart(32|64)_\d+\.dll)", "CUDA runtime (cudart)"},
    {R"(nvrtc64_\d+(_\d+)?\.dll)", "NVRTC"},
    {R"(nvrtc-builtins64_\d+\.dll)", "NVRTC"},
    {R"(curand64_\d+\.dll)", "cuRAND"},
    {R"(cusolver(mg)?64_\d+\.dll)", "cuSOLVER"},
    {R"(cufftw64_\d+\.dll)", "cuFFTW"},
    {R"(nvjitlink_\d+(_\d+)?\.dll)", "nvJitLink"},
    {R"(cupti64_.*\.dll)", "CUPTI"},
    {R"(npp\w*64_\d+\.dll)", "NPP"},
    {R"(nvjpeg64_\d+\.dll)", "nvJPEG"},
    {R"(nccl.*\.dll)", "NCCL"},
    {R"(cudnn_\w+64_\d+\.dll)", "cuDNN sub-library"},
};
const NvidiaPattern kNvidiaLinux[] = {
    {R"(libcudart\.so(\.\d+)*)", "CUDA runtime (cudart)"},
    {R"(libnvrtc(-builtins)?\.so(\.\d+)*)", "NVRTC"},
    {R"(libcurand\.so(\.\d+)*)", "cuRAND"},
    {R"(libcusolver(mg)?\.so(\.\d+)*)", "cuSOLVER"},
    {R"(libcufftw\.so(\.\d+)*)", "cuFFTW"},
    {R"(libnvjitlink\.so(\.\d+)*)", "nvJitLink"},
    {R"(libcupti\.so(\.\d+)*)", "CUPTI"},
    {R"(libnpp\w*\.so(\.\d+)*)", "NPP"},
    {R"(libnvjpeg\.so(\.\d+)*)", "nvJPEG"},
    {R"(libnccl\.so(\.\d+)*)", "NCCL"},
    {R"(libcudnn_\w+\.so(\.\d+)*)", "cuDNN sub-library"},
};

// Both OSes are matched on lower case: on Linux the names differ only in "cublasLt" casing,
// which the patterns spell in lower case too.
// Every catalogue name is a library (.dll or .so) and contains one of these; most file names in
// a folder do not, and skipping them keeps a walk over thousands of files from running (and
// compiling) every pattern.
bool may_be_cuda_name(std::string_view name) {
  if (name.find('.') == std::string_view::npos) return false;  // most of /usr/bin
  if (!ascii_icontains(name, ".dll") && !ascii_icontains(name, ".so")) return false;
  for (std::string_view part : {"cu", "nv", "npp", "nccl"}) {
    if (ascii_icontains(name, part)) return true;
  }
  return false;
}

bool matches(const char* regex, std::string_view name) {
  static std::map<const char*, std::regex> compiled;  // patterns are string literals: keyed by address
  auto it = compiled.find(regex);
  if (it == compiled.end()) it = compiled.emplace(regex, std::regex(regex, std::regex::ECMAScript | std::regex::optimize)).first;
  return std::regex_match(ascii_lower(name), it->second);
}

}  // namespace

bool same_name(std::string_view a, std::string_view b, Os os) { return os == Os::windows ? ascii_lower(a) == ascii_lower(b) : a == b; }

std::optional<Family> served_family(std::string_view name, Os os) {
  if (!may_be_cuda_name(name)) return std::nullopt;
  // Linux names are case-sensitive: the only capitals a served name has are cublasLt's.
  if (os == Os::linux) {
    std::string folded(name);
    if (auto at = folded.find("cublasLt"); at != std::string::npos) folded.replace(at, 8, "cublaslt");
    if (ascii_lower(folded) != folded) return std::nullopt;
  }
  for (const auto& p : os == Os::windows ? std::span<const Pattern>(kWindows) : std::span<const Pattern>(kLinux)) {
    if (matches(p.regex, name)) return *p.family;
  }
  return std::nullopt;
}

bool is_driver_companion(std::string_view name, Os os) { return os == Os::windows && ascii_lower(name) == "nvcudart_hybrid64.dll"; }

std::optional<std::string_view> nvidia_only_library(std::string_view name, Os os) {
  if (!may_be_cuda_name(name)) return std::nullopt;
  auto table = os == Os::windows ? std::span<const NvidiaPattern>(kNvidiaWindows) : std::span<const NvidiaPattern>(kNvidiaLinux);
  for (const auto& p : table) {
    if (matches(p.regex, name)) return p.library;
  }
  return std::nullopt;
}

Result<std::vector<RuntimeFile>> scan_runtime(const fs::path& dir, Os os) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail(ErrorKind::not_found, fmt::format("The runtime folder {} does not exist", dir),
                "Run 'zcuda install', or pass --runtime-dir with the folder that holds ZLUDA's libraries.");
  }
  std::vector<RuntimeFile> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = path_to_utf8(it->path().filename());
    auto family = served_family(name, os);
    if (!family && !is_driver_companion(name, os)) continue;
    auto real = fs::canonical(it->path(), ec);  // a symbolic link is staged as the file it names
    if (ec || !fs::is_regular_file(real, ec)) {
      ec.clear();
      continue;
    }
    files.push_back(RuntimeFile{name, real, family.value_or(kCuda)});
  }
  if (ec) return std::unexpected(io_error("list", dir, ec));
  if (std::none_of(files.begin(), files.end(), [](const RuntimeFile& f) { return f.family.id == "cuda"; })) {
    return fail(ErrorKind::not_found, fmt::format("{} holds no CUDA driver library ({})", dir, os == Os::windows ? "nvcuda.dll" : "libcuda.so.1"),
                "Point --runtime-dir at the folder with ZLUDA's files (the one holding nvcuda.dll or libcuda.so.1).");
  }
  std::sort(files.begin(), files.end(), [](const RuntimeFile& a, const RuntimeFile& b) { return a.name < b.name; });
  return files;
}

Backends backends_from_detection(const detect::Profile& profile) {
  Backends backends;
  const detect::HipInstall* hip = profile.selected_hip();
  if (hip == nullptr) {
    backends.miopen_evidence = "no HIP SDK / ROCm install was found (zcuda detect)";
    return backends;
  }
  for (const auto& library : hip->libraries) {
    if (library.component != "miopen") continue;
    backends.miopen = library.found;
    backends.miopen_evidence = library.found ? library.path : fmt::format("not in {}", hip->root);
  }
  return backends;
}

bool has_backend(const Family& family, const Backends& backends) { return family.id != "cudnn" || backends.miopen; }

}  // namespace zcuda::stage
