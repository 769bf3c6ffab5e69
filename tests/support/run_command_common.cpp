#include "support/run_command.hpp"

#include <chrono>
#include <thread>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {

CommandResult run_zcuda(const std::vector<std::string>& args, CommandOptions options) {
  std::vector<std::string> argv = {ZCUDA_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  options.set_env.try_emplace("NO_COLOR", "1");
  return run_command(argv, options);
}

std::string BackgroundProcess::out() const { return options_.out ? read_file(*options_.out) : std::string(); }
std::string BackgroundProcess::err() const { return options_.err ? read_file(*options_.err) : std::string(); }

namespace {
// Polls `ready` every 10 ms until it holds or `seconds` pass.
template <class Ready>
bool poll_until(Ready ready, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ready();
}
}  // namespace

bool BackgroundProcess::wait_for_err(const std::string& text, double seconds) const {
  return poll_until([&] { return err().find(text) != std::string::npos; }, seconds);
}

bool BackgroundProcess::wait_for_out(const std::string& text, double seconds) const {
  return poll_until([&] { return out().find(text) != std::string::npos; }, seconds);
}

bool wait_for_file(const std::filesystem::path& file, double seconds) {
  return poll_until([&] { return std::filesystem::exists(file); }, seconds);
}

}  // namespace zcuda::test
