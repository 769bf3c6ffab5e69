#pragma once
// `zcuda apps`' advice for a ZLUDA-based PyTorch application on a GPU that native ROCm PyTorch
// serves (docs/backends.md): the exact steps for a ROCm venv beside the application's own, and
// --setup-native / --undo-native, which run and undo them.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/backends/backends.hpp>

#include "command.hpp"

namespace zcuda::cli {

struct NativeFlags {
  std::optional<std::string> gfx;               // --gfx: the GPU to advise for (default: detected)
  std::optional<std::filesystem::path> setup;   // --setup-native DIR
  std::optional<std::filesystem::path> undo;    // --undo-native DIR
  std::optional<std::filesystem::path> python;  // --python: the interpreter that makes the venv
  std::optional<std::string> index_url;         // --index-url
};

// The advice for each AMD GPU (or --gfx's) on this OS; an error only when the data cannot be read.
Result<std::vector<backends::Advice>> gpu_advice(const NativeFlags& flags);

// For a match whose torch is a CUDA build (a ZLUDA-based PyTorch application): the steps text and
// JSON for the first GPU native ROCm serves; nullopt when none does or the match is not one.
struct NativeAdvice {
  std::string text;
  nlohmann::json json;
};
std::optional<NativeAdvice> advise_native(const apps::Match& match, const apps::Setup& setup, const std::vector<backends::Advice>& advice,
                                          const NativeFlags& flags, const Context& context);

// --setup-native DIR and --undo-native DIR (APP optional: its venv's Python makes the new one).
Result<CommandOutput> setup_native(const NativeFlags& flags, const std::optional<apps::Match>& match, Context& context);
Result<CommandOutput> undo_native(const NativeFlags& flags, const Context& context);

}  // namespace zcuda::cli
