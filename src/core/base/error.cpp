#include <zcuda/base/error.hpp>

namespace zcuda {

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
      return 2;
    case ErrorKind::not_found:
      return 3;
    case ErrorKind::invalid_input:
      return 4;
    case ErrorKind::network:
      return 5;
    case ErrorKind::integrity:
      return 6;
    case ErrorKind::incomplete:
      return 7;
    case ErrorKind::io:
      return 8;
    case ErrorKind::locked:
      return 9;
    case ErrorKind::environment:
      return 10;
    case ErrorKind::conflict:
      return 11;
    case ErrorKind::interrupted:
      return 12;
    case ErrorKind::unsupported:
      return 13;
    case ErrorKind::mixed_family:
      return 14;
    case ErrorKind::internal:
      return 70;
  }
  return 70;
}

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
      return "usage";
    case ErrorKind::not_found:
      return "not_found";
    case ErrorKind::invalid_input:
      return "invalid_input";
    case ErrorKind::network:
      return "network";
    case ErrorKind::integrity:
      return "integrity";
    case ErrorKind::incomplete:
      return "incomplete";
    case ErrorKind::io:
      return "io";
    case ErrorKind::locked:
      return "locked";
    case ErrorKind::environment:
      return "environment";
    case ErrorKind::conflict:
      return "conflict";
    case ErrorKind::interrupted:
      return "interrupted";
    case ErrorKind::unsupported:
      return "unsupported";
    case ErrorKind::mixed_family:
      return "mixed_family";
    case ErrorKind::internal:
      return "internal";
  }
  return "internal";
}

}  // namespace zcuda
