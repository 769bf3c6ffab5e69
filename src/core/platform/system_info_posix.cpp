#include <zcuda/platform/system_info.hpp>

#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <zcuda/platform/os.hpp>

namespace zcuda::platform {

namespace {
std::string value_after(const std::string& line, char separator) {
  auto pos = line.find(separator);
  if (pos == std::string::npos) return {};
  std::string v = line.substr(pos + 1);
  auto b = v.find_first_not_of(" \t\"");
  auto e = v.find_last_not_of(" \t\"\r");
  return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
}
}  // namespace

SystemInfo system_info() {
  SystemInfo info;
  std::ifstream os_release("/etc/os-release");
  for (std::string line; std::getline(os_release, line);) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) info.os_name = value_after(line, '=');
  }
  if (info.os_name.empty()) info.os_name = "Linux";
  utsname u{};
  if (uname(&u) == 0) {
    info.os_version = u.release;
    info.architecture = u.machine;
    info.host_name = u.nodename;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      info.cpu = value_after(line, ':');
      break;
    }
  }
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemTotal:", 0) == 0) {
      std::istringstream in(line.substr(9));
      std::uint64_t kib = 0;
      if (in >> kib) info.ram_bytes = kib * 1024;
      break;
    }
  }
  if (passwd* pw = getpwuid(getuid())) {
    info.user_name = pw->pw_name;
    info.home_folder = pw->pw_dir;
  }
  if (auto user = get_env("USER"); user && info.user_name.empty()) info.user_name = *user;
  if (auto home = get_env("HOME"); home && !home->empty()) info.home_folder = *home;
  return info;
}

}  // namespace zcuda::platform
