#pragma once
// Where things live under <home>/installs, and the temporary siblings that make every change
// one rename. See docs/install.md.
#include <filesystem>
#include <optional>
#include <string>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>

namespace zcuda::install::layout {

std::filesystem::path component_dir(const home::Home& home, const std::string& component);
std::filesystem::path version_dir(const home::Home& home, const std::string& component, const std::string& version);
std::filesystem::path receipt_path(const home::Home& home, const std::string& component, const std::string& version);
std::filesystem::path pointer_path(const home::Home& home, const std::string& component);
std::filesystem::path lock_path(const home::Home& home);
std::filesystem::path cache_dir(const home::Home& home);

// A fresh sibling name in the component folder: ".<kind>-<version>-<pid>-<n>". Names starting
// with '.' are never versions, so a leftover is never mistaken for an install.
std::filesystem::path temp_sibling(const home::Home& home, const std::string& component, const std::string& version, const char* kind);

// Removes what a killed run left behind in every component folder: temporary extraction and
// removal folders and half-written small files. Only safe while holding the install lock.
void remove_leftovers(const home::Home& home);

// The version the "current" pointer names, if any.
std::optional<std::string> read_pointer(const home::Home& home, const std::string& component);
Status write_pointer(const home::Home& home, const std::string& component, const std::string& version);

}  // namespace zcuda::install::layout
