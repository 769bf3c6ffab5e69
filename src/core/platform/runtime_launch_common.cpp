#include <zcuda/platform/runtime_launch.hpp>

#include <system_error>

#include <zcuda/base/enum_words.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::platform {

std::string_view to_string(LaunchMethod method) {
  switch (method) {
    case LaunchMethod::system:
      return "system";
    case LaunchMethod::library_path:
      return "LD_LIBRARY_PATH";
    case LaunchMethod::copy_beside_dlls:
      return "copy beside DLLs";
    case LaunchMethod::zluda_exe:
      return "zluda.exe";
  }
  return "system";
}

std::optional<LaunchMethod> launch_method_from(std::string_view word) {
  return enum_from_word(word, {LaunchMethod::system, LaunchMethod::library_path, LaunchMethod::copy_beside_dlls, LaunchMethod::zluda_exe});
}

RuntimeLaunch::RuntimeLaunch(RuntimeLaunch&& other) noexcept
    : program_(std::move(other.program_)),
      prefix_args_(std::move(other.prefix_args_)),
      target_(std::move(other.target_)),
      encoder_(std::move(other.encoder_)),
      environment_(std::move(other.environment_)),
      temp_dir_(std::move(other.temp_dir_)),
      method_(other.method_) {
  other.temp_dir_.reset();
}

RuntimeLaunch& RuntimeLaunch::operator=(RuntimeLaunch&& other) noexcept {
  if (this != &other) {
    if (temp_dir_) {
      std::error_code ec;
      std::filesystem::remove_all(*temp_dir_, ec);
    }
    program_ = std::move(other.program_);
    prefix_args_ = std::move(other.prefix_args_);
    target_ = std::move(other.target_);
    encoder_ = std::move(other.encoder_);
    environment_ = std::move(other.environment_);
    temp_dir_ = std::move(other.temp_dir_);
    other.temp_dir_.reset();
    method_ = other.method_;
  }
  return *this;
}

RuntimeLaunch::~RuntimeLaunch() {
  if (temp_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(*temp_dir_, ec);  // best effort: a leftover temp folder is harmless
  }
}

ProcessSpec RuntimeLaunch::spec(const std::vector<std::string>& args) const {
  ProcessSpec spec;
  spec.program = program_;
  if (target_ && encoder_) {
    spec.args = {"--"};
    auto encoded = encoder_(path_to_utf8(*target_), args);
    spec.args.insert(spec.args.end(), encoded.begin(), encoded.end());
  } else {
    spec.args = prefix_args_;
    spec.args.insert(spec.args.end(), args.begin(), args.end());
  }
  spec.environment = environment_;
  return spec;
}

}  // namespace zcuda::platform
