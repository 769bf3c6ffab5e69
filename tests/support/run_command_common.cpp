#include "support/run_command.hpp"

#include <chrono>
#include <thread>

#include "support/temp_dir.hpp"

namespace zcuda::test {

CommandResult run_zcuda(const std::vector<std::string>& args, CommandOptions options) {
  std::vector<std::string> argv = {ZCUDA_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  options.set_env.try_emplace("NO_COLOR", "1");
  return run_command(argv, options);
}

std::string BackgroundProcess::out() const { return options_.out ? read_file(*options_.out) : std::string(); }
std::string BackgroundProcess::err() const { return options_.err ? read_file(*options_.err) : std::string(); }

bool BackgroundProcess::wait_for_err(const std::string& text, double seconds) const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (err().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace zcuda::test
