// Activation checkpointing for one transformer block, as torch.utils.checkpoint does it
// (reentrant variant), which libtorch's C++ API lacks: the forward keeps only the block's
// input; the backward recomputes the block under the same autocast setting and back-propagates
// through it, accumulating its parameters' gradients.
#pragma once

#include <torch/torch.h>

namespace ironbench::train {

class gpt_block_impl;

/// block.forward(x) without saving its activations. `x` must require grad.
[[nodiscard]] torch::Tensor checkpointed_forward(gpt_block_impl& block, const torch::Tensor& x);

}  // namespace ironbench::train
