// The test hooks compiled as a release build compiles them (ZCUDA_TEST_HOOKS=0), every one
// called, for tests/CMakeLists.txt's check that no hook's name is left in such a binary.
#include <cstdio>

#include <zcuda/platform/test_hooks.hpp>

int main() {
  namespace hooks = zcuda::platform::test_hooks;
  hooks::pause_at("locked", nullptr);
  hooks::crash_point();
  const auto probe = hooks::probe_override();
  std::printf("test hooks %s, probe override %s\n", hooks::enabled() ? "on" : "off", probe ? probe->c_str() : "none");
  return hooks::enabled() ? 1 : 0;
}
