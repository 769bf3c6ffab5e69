#pragma once
// The probe only ever writes JSON, and only flat values, objects and arrays: this small writer is
// enough and keeps zcuda-probe free of third-party libraries.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace zcuda::probe::json {

inline std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

inline std::string number(double value) {
  if (!std::isfinite(value)) return "null";  // JSON has no NaN or infinity
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

// Builds `{"k":v,...}` in insertion order.
class Object {
 public:
  Object& raw(std::string_view key, std::string_view json_text) {
    body_ += body_.empty() ? "" : ",";
    body_ += quote(key);
    body_ += ':';
    body_ += json_text;
    return *this;
  }
  Object& str(std::string_view key, std::string_view value) { return raw(key, quote(value)); }
  Object& num(std::string_view key, double value) { return raw(key, number(value)); }
  Object& integer(std::string_view key, long long value) { return raw(key, std::to_string(value)); }
  Object& boolean(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  bool empty() const { return body_.empty(); }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

class Array {
 public:
  Array& raw(std::string_view json_text) {
    body_ += body_.empty() ? "" : ",";
    body_ += json_text;
    return *this;
  }
  Array& str(std::string_view value) { return raw(quote(value)); }
  std::string text() const { return "[" + body_ + "]"; }

 private:
  std::string body_;
};

}  // namespace zcuda::probe::json
