#pragma once

namespace zcuda::platform {

// This process's id, for temporary names and lock holders.
long current_process_id();

}  // namespace zcuda::platform
