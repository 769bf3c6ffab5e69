#pragma once
#include <cstdint>
#include <string>

namespace zcuda {

// 1536 -> "1.5 KiB", 17163091968 -> "16.0 GiB"
std::string format_bytes(std::uint64_t bytes);

// Seconds as "1.2 s", "3 min 04 s", "1 h 02 min".
std::string format_duration(double seconds);

}  // namespace zcuda
