#pragma once
// zcuda verify --app APP: the application's own check (the torch check for PyTorch
// applications), run as `zcuda run` would launch the application (docs/apps.md).
#include <filesystem>
#include <optional>
#include <string>

#include "command.hpp"

namespace zcuda::cli {

struct VerifyAppOptions {
  std::filesystem::path app;                         // a folder, or the interpreter
  std::optional<std::string> profile;                // --profile
  std::optional<std::filesystem::path> runtime_dir;  // --runtime-dir
  std::string runtime = "auto";                      // --runtime auto|native|zluda
  int timeout = 300;
};

Result<CommandOutput> verify_app(const VerifyAppOptions& options, Context& context);

}  // namespace zcuda::cli
