#include <zcuda/base/ascii.hpp>

namespace zcuda {

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::string ascii_upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

bool ascii_icontains(std::string_view text, std::string_view lowered) {
  if (lowered.size() > text.size()) return false;
  for (std::size_t at = 0; at + lowered.size() <= text.size(); ++at) {
    std::size_t i = 0;
    while (i < lowered.size() && ascii_lower(text[at + i]) == lowered[i]) ++i;
    if (i == lowered.size()) return true;
  }
  return false;
}

}  // namespace zcuda
