// MXFP4 (the OCP microscaling format gpt-oss ships its expert weights in), dequantised at load. Torch tensors, so
// inside the model room only.
#pragma once
#include <ATen/ATen.h>

namespace ascviz::model {

// `blocks` uint8 [..., G, 16] hold 32 FP4 (E2M1) values per group, two per byte (the low nibble first);
// `scales` uint8 [..., G] one shared exponent per group, biased by 127. Returns float32 [..., G · 32]:
// value = fp4(nibble) · 2^(scale − 127), fp4 = ±{0, 0.5, 1, 1.5, 2, 3, 4, 6} (nibble bit 3 the sign), as
// transformers' convert_moe_packed_tensors computes before its transpose. Throws ModelError naming `what` when
// the shapes or dtypes disagree.
at::Tensor dequantizeMxfp4(const at::Tensor& blocks, const at::Tensor& scales, const std::string& what);

} // namespace ascviz::model
