// Test build tool: GNU ld 2.40 links dlltool's delay-import libraries but leaves the PE
// delay-import data directory (index 13) empty, where MSVC's linker fills it. This fills it
// from the descriptor's symbol, as link.exe would, so the parser can be tested on a real
// MinGW-built delay-importing program. Usage: set_delay_directory NM EXE
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {
std::uint64_t read_le(const std::vector<unsigned char>& b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | b.at(at + static_cast<std::size_t>(i));
  return v;
}
void write_le32(std::vector<unsigned char>& b, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) b.at(at + i) = static_cast<unsigned char>(v >> (8 * i));
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::string command = std::string("'") + argv[1] + "' '" + argv[2] + "'";
  FILE* nm = popen(command.c_str(), "r");
  if (nm == nullptr) return 3;
  char line[1024];
  std::uint64_t va = 0;
  while (fgets(line, sizeof line, nm) != nullptr) {
    std::string text(line);
    if (text.find("__DELAY_IMPORT_DESCRIPTOR_") != std::string::npos) va = std::stoull(text.substr(0, text.find(' ')), nullptr, 16);
  }
  pclose(nm);
  if (va == 0) return 4;
  std::ifstream in(argv[2], std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t pe = read_le(bytes, 0x3c, 4);
  const std::size_t opt = pe + 24;
  const bool plus = read_le(bytes, opt, 2) == 0x20b;
  const std::uint64_t base = plus ? read_le(bytes, opt + 24, 8) : read_le(bytes, opt + 28, 4);
  const std::size_t directories = opt + (plus ? 112 : 96);
  write_le32(bytes, directories + 13 * 8, static_cast<std::uint32_t>(va - base));
  write_le32(bytes, directories + 13 * 8 + 4, 32);  // one descriptor
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return out ? 0 : 5;
}
