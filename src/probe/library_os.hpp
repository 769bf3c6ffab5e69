#pragma once
// What differs between Windows and POSIX in loading a library: library_posix.cpp and
// library_win32.cpp, one of which CMake builds.
#include <string>
#include <vector>

namespace zcuda::probe::os {

// Loads `name` as an application would; on failure sets `error` and whether the file itself is
// present (then a library it needs is missing).
void* load(const std::string& name, std::string& error, bool& present);
// The file the loader chose for `handle`, as UTF-8.
std::string loaded_path(void* handle);
void* symbol(void* handle, const char* name);
// The OS's file names of a CUDA library role, newest first.
std::vector<std::string> library_names(const std::string& role);
bool built_for_windows();

}  // namespace zcuda::probe::os
