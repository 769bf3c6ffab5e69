#pragma once
// Antivirus: runtime files the install receipt lists that are now missing or empty are most
// likely quarantined. detect (a finding), verify and run (warnings) say so with the advice.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/home/home.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/launch/runtime.hpp>

namespace zcuda::launch {

inline constexpr const char* kQuarantineFinding = "runtime-files-quarantined";

// The files of an installed runtime that look quarantined; empty for a --runtime-dir folder
// (no receipt) or when all is in place.
std::vector<std::string> quarantined_files(const RuntimeLocation& runtime, const home::Home& home);
// The same for the runtime `zcuda run` would use by default; empty when none is installed.
std::vector<std::string> quarantined_files(const home::Home& home);

// One sentence naming the files, and the exclusion advice.
std::string quarantine_message(const std::vector<std::string>& files);
std::string quarantine_advice(const home::Home& home);

// The detect finding (a warning: detect is about the machine; the runtime is zcuda's), when files are missing.
std::optional<detect::Finding> quarantine_finding(const home::Home& home);

}  // namespace zcuda::launch
