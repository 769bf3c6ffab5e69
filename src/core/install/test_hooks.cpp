#include "test_hooks.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process_id.hpp>


namespace zcuda::install::test_hooks {

void pause_at(std::string_view step, const std::atomic<bool>* cancel) {
  auto wanted = platform::get_env("ZCUDA_TEST_PAUSE_AT");
  if (!wanted || *wanted != step) return;
  double seconds = 3600;
  if (auto limit = platform::get_env("ZCUDA_TEST_PAUSE_SECONDS")) seconds = std::atof(limit->c_str());
  std::fprintf(stderr, "zcuda-test: paused at %s (pid %ld)\n", std::string(step).c_str(), platform::current_process_id());
  std::fflush(stderr);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (cancel != nullptr && cancel->load()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace zcuda::install::test_hooks
