#pragma once
// A name for a record file or folder made now: "<time to the second>-<nanoseconds>"
// (20261204T071300-123456789), so that names sort by time and two made in one second differ.
#include <string>

namespace zcuda {

std::string time_ordered_name();

}  // namespace zcuda
