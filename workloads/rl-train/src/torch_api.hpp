// The parts of LibTorch's C++ API that rl-train uses, in one place: every file includes this
// header rather than <torch/torch.h> (which pulls in far more and costs ~40 s per file on a small
// machine), and the build precompiles it. Only the stable API that LibTorch 1.13 through 2.x share.
#pragma once

#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>
