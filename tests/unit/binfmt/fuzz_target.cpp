// The fuzz entry point, with libFuzzer's signature: parse any bytes as PE and as ELF, and walk
// their fat binaries. It must return (a value or an Error) for every input; ASan/UBSan catch
// anything else.
#include <cstddef>
#include <cstdint>
#include <span>

#include <zcuda/binfmt/binfmt.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace zcuda::binfmt;
  MemorySource source(std::as_bytes(std::span(data, size)));
  auto pe = parse_pe(source);
  auto elf = parse_elf(source);
  auto any = parse(source);
  // Touch the results so nothing is optimised away.
  std::size_t names = 0;
  for (auto* r : {&pe, &elf, &any}) {
    if (*r) names += (*r)->needed.size() + (*r)->delay_needed.size() + (*r)->runpath.size();
  }
  auto images = fatbin_images(source);
  if (images) names += images->size();
  return names > SIZE_MAX - 1 ? 1 : 0;
}
