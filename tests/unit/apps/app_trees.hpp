#pragma once
// Application trees as their installers leave them, built from MinGW's PE test files under the
// applications' real file names. Each copy gets a tag appended (PE overlay data) so that every
// file has bytes of its own, as the real ones do.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {

inline std::filesystem::path pe_dir() { return std::filesystem::path(ZCUDA_TEST_PE_DIR); }

inline bool have_pe_files() {
  std::error_code ec;
  return std::filesystem::exists(pe_dir() / "x86_64" / "nvcuda.dll", ec) && std::filesystem::exists(pe_dir() / "i686" / "app.exe", ec);
}

// `source` ("x86_64/nvcuda.dll") copied to `target` with `tag` appended.
inline void pe_copy(const std::string& source, const std::filesystem::path& target, const std::string& tag) {
  write_file(target, read_file(pe_dir() / source) + tag);
}

// The lshqqytiger nightly as ComfyUI-Zluda's installer unpacks it into .\zluda.
inline void lshqqytiger_runtime(const std::filesystem::path& dir) {
  for (const char* name : {"nvcuda.dll", "cublas.dll", "cusparse.dll", "nvrtc.dll", "cufft.dll", "cufftw.dll", "nvml.dll"}) {
    pe_copy("x86_64/nvcuda.dll", dir / name, std::string("lshqqytiger ") + name);
  }
  pe_copy("x86_64/app.exe", dir / "zluda.exe", "lshqqytiger zluda.exe");
}

// torch's own CUDA libraries (torch 2.7.0+cu118) in a Windows venv.
inline std::filesystem::path windows_venv(const std::filesystem::path& root, const std::string& torch_version, const std::string& cuda) {
  write_file(root / "venv" / "pyvenv.cfg", "home = C:\\Python311\ninclude-system-site-packages = false\nversion = 3.11.9\n");
  pe_copy("x86_64/app.exe", root / "venv" / "Scripts" / "python.exe", "venv redirector");
  const auto torch = root / "venv" / "Lib" / "site-packages" / "torch";
  write_file(torch / "version.py",
             "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n__version__ = '" + torch_version +
                 "'\ndebug = False\ncuda: Optional[str] = '" + cuda + "'\ngit_version = '0000'\nhip: Optional[str] = None\n");
  write_file(torch / "__init__.py", "");
  for (const char* name : {"cublas64_11.dll", "cublasLt64_11.dll", "cusparse64_11.dll", "nvrtc64_112_0.dll", "cufft64_10.dll", "cufftw64_10.dll",
                           "cudnn64_9.dll", "torch_cuda.dll"}) {
    pe_copy("x86_64/nvcuda.dll", torch / "lib" / name, std::string("NVIDIA original ") + name);
  }
  return root / "venv" / "Scripts" / "python.exe";
}

// ComfyUI-Zluda's folder after install-n.bat, before it patched torch\lib.
inline std::filesystem::path comfyui_tree(const std::filesystem::path& root) {
  write_file(root / "comfy" / "customzluda" / "zluda.py", "# patientx/ComfyUI-Zluda\n");
  write_file(root / "comfyui-n.bat", "@echo off\n.\\zluda\\zluda.exe -- venv\\Scripts\\python.exe main.py %*\n");
  write_file(root / "main.py", "print('ComfyUI')\n");
  lshqqytiger_runtime(root / "zluda");
  return windows_venv(root, "2.7.0+cu118", "11.8");
}

}  // namespace zcuda::test
