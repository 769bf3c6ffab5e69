/* A DLL whose .nv_fatb section holds a fat binary, where NVCC's Windows output puts one: the
   FatbinHeader, then two images (FatbinFileHeader, 80 bytes as NVIDIA's fatbinary writes it, and
   a 16-byte payload), laid out as upstream ZLUDA's cuda_types/src/dark_api.rs reads them. */
#include <stdint.h>

struct image {
  uint16_t kind, version;
  uint32_t header_size, payload_size, unknown0, compressed_size, unknown1, unknown2, sm_version, bit_width, unknown3;
  uint64_t flags, unknown5, uncompressed_payload;
  uint8_t rest_of_header[16];
  char payload[16];
};

struct fatbin {
  uint32_t magic;
  uint16_t version, header_size;
  uint64_t files_size;
  struct image images[2];
};

__attribute__((section(".nv_fatb"), used, aligned(8)))
const struct fatbin kernels = {0xBA55ED50u,
                               1,
                               16,
                               sizeof(struct image) * 2,
                               {{1, 0x101, 80, 16, 0, 0, 0, 0, 75, 0, 0, 0x41, 0, 14, {0}, ".target sm_75"},
                                {2, 0x101, 80, 16, 0, 0, 0, 0, 86, 0, 0, 0x41, 0, 16, {0}, "machine code.."}}};

__declspec(dllexport) int kernels_size(void) { return (int)sizeof kernels; }
