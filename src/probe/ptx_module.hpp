#pragma once
// Loading the probe's PTX the way the driver checks need it: the low header first, the sm_75
// header when the driver refuses that, the JIT error log captured, the module unloaded on scope
// exit.
#include <string>
#include <string_view>

#include "cuda_driver.hpp"

namespace zcuda::probe {

class PtxModule {
 public:
  // Stop (with both attempts and the JIT log in the detail) when neither header loads, or when
  // the module lacks `entry` (ZLUDA release builds load PTX they cannot parse as an empty module).
  PtxModule(const Driver& driver, std::string_view body, const char* entry);
  ~PtxModule();
  PtxModule(const PtxModule&) = delete;
  PtxModule& operator=(const PtxModule&) = delete;

  // A kernel of the module; Stop(error) when it is not there.
  CUfunction function(const char* name) const;

  std::string header() const;            // ".version 6.0 .target sm_50"
  int target_sm() const { return sm_; }  // the .target that loaded: 50 or 75
  double jit_seconds() const { return jit_seconds_; }
  const std::string& first_failure() const { return first_failure_; }  // empty when the first header loaded

 private:
  const Driver& driver_;
  CUmodule module_ = nullptr;
  const char* header_ = "";
  int sm_ = 0;
  double jit_seconds_ = 0;
  std::string first_failure_;
};

// Device 0's compute capability as major·10 + minor (9.0 -> 90).
int compute_capability(const Driver& driver);

}  // namespace zcuda::probe
