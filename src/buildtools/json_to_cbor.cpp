// Build tool: writes a JSON file's CBOR form (nlohmann::json::to_cbor). The build embeds the CBOR
// of each compiled-in knowledge file beside its text, so a launch reads its profiles and family
// facts without lexing JSON text (src/core/CMakeLists.txt, knowledge::parsed).
// Usage: zcuda-json-to-cbor IN.json OUT.cbor
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: zcuda-json-to-cbor IN.json OUT.cbor\n", stderr);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  in.seekg(0);
  if (size < 0 || !in.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    std::fprintf(stderr, "zcuda-json-to-cbor: cannot read %s\n", argv[1]);
    return 1;
  }
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) {
    std::fprintf(stderr, "zcuda-json-to-cbor: %s is not valid JSON\n", argv[1]);
    return 1;
  }
  const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(parsed);
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(cbor.data()), static_cast<std::streamsize>(cbor.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "zcuda-json-to-cbor: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
