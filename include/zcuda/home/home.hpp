#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <zcuda/base/error.hpp>

namespace zcuda::home {

// What chose the home folder, strongest first.
enum class ChosenBy { flag, environment, os_default };
std::string_view to_string(ChosenBy chosen_by);  // "--home" | "ZCUDA_HOME" | "default"

// Every file zcuda writes lives under one home. With --home or ZCUDA_HOME all of it sits in that
// one folder; by default it follows the OS convention (docs/architecture.md, "Home").
struct Home {
  std::filesystem::path root;   // installs, receipts, "current" pointers
  std::filesystem::path cache;  // downloads, addressed by digest
  std::filesystem::path state;  // verify results, run records, stage journals index
  std::filesystem::path logs;   // one verbose log of every command
  ChosenBy chosen_by = ChosenBy::os_default;

  std::filesystem::path installs() const { return root / "installs"; }
  std::filesystem::path reports() const { return state / "reports"; }
};

// --home beats ZCUDA_HOME beats the OS default. Creates nothing.
Result<Home> resolve_home(const std::optional<std::filesystem::path>& flag);

// Creates the folders of `home`, reporting which one could not be made.
Status create_home_folders(const Home& home);

}  // namespace zcuda::home
