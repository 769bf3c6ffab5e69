#pragma once
// Environment variables for the test process itself, set and restored around one test. Windows:
// _wputenv_s, which changes the C runtime's copy and the process's (GetEnvironmentVariableW) alike.
#include <cstdlib>
#include <optional>
#include <string>

#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::test {

inline void set_env(const std::string& name, const std::optional<std::string>& value) {
#ifdef _WIN32
  // An empty value removes the variable (as unsetenv does); path_from_utf8 serves to widen the text.
  _wputenv_s(path_from_utf8(name).c_str(), value ? path_from_utf8(*value).c_str() : L"");
#else
  if (value) {
    setenv(name.c_str(), value->c_str(), 1);
  } else {
    unsetenv(name.c_str());
  }
#endif
}

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)), old_(platform::get_env(name_)) {
    set_env(name_, value);
  }
  ~ScopedEnv() { set_env(name_, old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace zcuda::test
