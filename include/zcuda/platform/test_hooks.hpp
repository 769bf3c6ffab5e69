#pragma once
// Test hooks: the one way tests steer a running zcuda, through ZCUDA_TEST_* environment
// variables. They exist only in builds configured with ZCUDA_TEST_HOOKS (dev, asan and the
// Windows test build); a release build has none: every function here does nothing there and
// the variables' names are not even in the binary (cmake/check_test_hooks.cmake checks it).
//
//   ZCUDA_TEST_PAUSE_AT=<step>         an install stops at a named step and says so on stderr
//                                      ("zcuda-test: paused at <step> (pid N)"), so a test can
//                                      kill it exactly there. Steps: locked, fetched, extracting,
//                                      extracted, renamed, receipt-written, pointer-written,
//                                      remove-renamed; a stage at stage-journaled (its journal
//                                      written, nothing placed yet); an update at knowledge-staged, knowledge-renamed, knowledge-pointer-written
//   ZCUDA_TEST_PAUSE_SECONDS=<n>       resume after n seconds instead of an hour
//   ZCUDA_TEST_CRASH_AFTER_STEP=<n>    stage and unstage exit at once (std::_Exit(99), no clean-up,
//                                      as if killed) at the n-th change to the folder or journal
//   ZCUDA_TEST_PROBE=<file>            verify runs this zcuda-probe instead of the one beside zcuda
//   ZCUDA_TEST_KNOWLEDGE_ROOT=<hex>    an Ed25519 public key trusted as a knowledge root besides the
//                                      compiled-in ones: the tests' throwaway key (docs/knowledge.md)
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace zcuda::platform::test_hooks {

// Whether this build has test hooks.
bool enabled();

// Install and stage: pause at `step` when ZCUDA_TEST_PAUSE_AT names it (until `cancel` is set or the pause
// ends).
void pause_at(std::string_view step, const std::atomic<bool>* cancel);

// Stage and unstage: call before each change; exits the process at the N-th.
void crash_point();

// Verify: the probe to run instead of the one beside zcuda.
std::optional<std::string> probe_override();

// Knowledge: a test root key to trust (hex), when ZCUDA_TEST_KNOWLEDGE_ROOT names one.
std::optional<std::string> knowledge_root();

}  // namespace zcuda::platform::test_hooks
