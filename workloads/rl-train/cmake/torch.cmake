# Finds LibTorch. Sets TORCH_LIBRARIES (what to link), TORCH_CXX_FLAGS (flags LibTorch requires
# of everything in the program), TORCH_INSTALL_PREFIX (its folder) and rl_train_torch_target (the
# target whose include directories are LibTorch's).
#
# Normally through LibTorch's CMake package (find_package(Torch)). RL_TRAIN_TORCH_ROOT instead
# takes a LibTorch folder as it is (include/, lib/): the CUDA builds' package insists on finding a
# CUDA toolkit, which a machine that only runs CUDA programs lacks (a Radeon machine with ZLUDA,
# a GPU machine with pip torch alone), and rl-train needs none of it: it calls no CUDA API itself.

set(RL_TRAIN_TORCH_ROOT "" CACHE PATH "Use the LibTorch in this folder directly, without find_package(Torch)")
set(RL_TRAIN_TORCH_CXX_FLAGS "" CACHE STRING
  "With RL_TRAIN_TORCH_ROOT on Linux: LibTorch's ABI flag, e.g. -D_GLIBCXX_USE_CXX11_ABI=1")

if(MSVC AND NOT DEFINED CMAKE_MSVC_RUNTIME_LIBRARY)
  # LibTorch's release builds use the release DLL runtime; a debug-runtime program crossing heaps
  # with them crashes. (Build rl-train with --config Release on Windows.)
  set(CMAKE_MSVC_RUNTIME_LIBRARY MultiThreadedDLL)
endif()

if(NOT RL_TRAIN_TORCH_ROOT)
  find_package(Torch REQUIRED)
  set(rl_train_torch_target torch)
  return()
endif()

set(TORCH_INSTALL_PREFIX "${RL_TRAIN_TORCH_ROOT}")
set(rl_train_torch_lib "${RL_TRAIN_TORCH_ROOT}/lib")
find_library(RL_TRAIN_TORCH_LIBRARY torch PATHS "${rl_train_torch_lib}" NO_DEFAULT_PATH REQUIRED)
find_library(RL_TRAIN_TORCH_CPU_LIBRARY torch_cpu PATHS "${rl_train_torch_lib}" NO_DEFAULT_PATH REQUIRED)
find_library(RL_TRAIN_C10_LIBRARY c10 PATHS "${rl_train_torch_lib}" NO_DEFAULT_PATH REQUIRED)
find_library(RL_TRAIN_TORCH_CUDA_LIBRARY torch_cuda PATHS "${rl_train_torch_lib}" NO_DEFAULT_PATH)

add_library(rl_train_torch INTERFACE)
target_include_directories(rl_train_torch SYSTEM INTERFACE "${RL_TRAIN_TORCH_ROOT}/include"
  "${RL_TRAIN_TORCH_ROOT}/include/torch/csrc/api/include")
target_link_libraries(rl_train_torch INTERFACE ${RL_TRAIN_TORCH_LIBRARY} ${RL_TRAIN_TORCH_CPU_LIBRARY}
  ${RL_TRAIN_C10_LIBRARY})
if(RL_TRAIN_TORCH_CUDA_LIBRARY)
  # Nothing of ours calls into torch_cuda, yet it must be loaded: loading it is what registers the
  # CUDA device with LibTorch. Linkers drop a library nothing uses unless told not to.
  if(MSVC)
    target_link_libraries(rl_train_torch INTERFACE ${RL_TRAIN_TORCH_CUDA_LIBRARY})
    target_link_options(rl_train_torch INTERFACE "/INCLUDE:?warp_size@cuda@at@@YAHXZ")
  else()
    target_link_libraries(rl_train_torch INTERFACE -Wl,--no-as-needed ${RL_TRAIN_TORCH_CUDA_LIBRARY} -Wl,--as-needed)
  endif()
endif()
set(TORCH_LIBRARIES rl_train_torch)
set(TORCH_CXX_FLAGS "${RL_TRAIN_TORCH_CXX_FLAGS}")
set(rl_train_torch_target rl_train_torch)
message(STATUS "rl-train: LibTorch from ${RL_TRAIN_TORCH_ROOT} (torch_cuda: ${RL_TRAIN_TORCH_CUDA_LIBRARY})")
