// The test hooks of include/zcuda/platform/test_hooks.hpp. Without ZCUDA_TEST_HOOKS the file
// compiles to functions that do nothing, and no hook's name is left in the binary.
#include <zcuda/platform/test_hooks.hpp>

#if ZCUDA_TEST_HOOKS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process_id.hpp>
#endif

namespace zcuda::platform::test_hooks {

#if ZCUDA_TEST_HOOKS

bool enabled() { return true; }

void pause_at(std::string_view step, const std::atomic<bool>* cancel) {
  auto wanted = get_env("ZCUDA_TEST_PAUSE_AT");
  if (!wanted || *wanted != step) return;
  double seconds = 3600;
  if (auto limit = get_env("ZCUDA_TEST_PAUSE_SECONDS")) seconds = std::atof(limit->c_str());
  std::fprintf(stderr, "zcuda-test: paused at %s (pid %ld)\n", std::string(step).c_str(), current_process_id());
  std::fflush(stderr);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (cancel != nullptr && cancel->load()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void crash_point() {
  static const long limit = [] {
    auto value = get_env("ZCUDA_TEST_CRASH_AFTER_STEP");
    return value ? std::strtol(value->c_str(), nullptr, 10) : -1L;
  }();
  static long count = 0;
  if (limit > 0 && ++count == limit) std::_Exit(99);
}

std::optional<std::string> probe_override() {
  auto value = get_env("ZCUDA_TEST_PROBE");
  if (!value || value->empty()) return std::nullopt;
  return value;
}

std::optional<std::string> knowledge_root() {
  auto value = get_env("ZCUDA_TEST_KNOWLEDGE_ROOT");
  if (!value || value->empty()) return std::nullopt;
  return value;
}

#else

bool enabled() { return false; }
void pause_at(std::string_view, const std::atomic<bool>*) {}
void crash_point() {}
std::optional<std::string> probe_override() { return std::nullopt; }
std::optional<std::string> knowledge_root() { return std::nullopt; }

#endif

}  // namespace zcuda::platform::test_hooks
