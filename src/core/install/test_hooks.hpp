#pragma once
// Test-only: ZCUDA_TEST_PAUSE_AT=<step> makes an install stop at a named step and announce it on
// stderr ("zcuda-test: paused at <step> (pid N)"), so a test can kill the process exactly there.
// ZCUDA_TEST_PAUSE_SECONDS=<n> resumes after n seconds instead of waiting for a signal.
// Steps: locked, fetched, extracting, extracted, renamed, receipt-written, pointer-written,
// remove-renamed. Unset (always, outside tests) it costs one environment lookup per step.
#include <atomic>
#include <string_view>

namespace zcuda::install::test_hooks {

void pause_at(std::string_view step, const std::atomic<bool>* cancel);

}  // namespace zcuda::install::test_hooks
