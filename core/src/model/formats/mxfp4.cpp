#include "formats/mxfp4.h"

#include "ascviz/base/error.h"

#include <string>

namespace ascviz::model {

at::Tensor dequantizeMxfp4(const at::Tensor& blocks, const at::Tensor& scales, const std::string& what)
{
    if (blocks.scalar_type() != at::kByte || scales.scalar_type() != at::kByte)
        throw ModelError(what + ": MXFP4 blocks and scales must be uint8 tensors");
    if (blocks.dim() < 2 || blocks.size(-1) != 16 ||
        scales.sizes().vec() != blocks.sizes().slice(0, blocks.dim() - 1).vec())
        throw ModelError(what + ": MXFP4 blocks [..., G, 16] and scales [..., G] do not match");
    static const float kFp4[16] = {+0.0f, +0.5f, +1.0f, +1.5f, +2.0f, +3.0f, +4.0f, +6.0f,
                                   -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    const auto f32 = at::TensorOptions().dtype(at::kFloat).device(blocks.device());
    const at::Tensor lut = at::tensor(at::ArrayRef<float>(kFp4, 16), at::kFloat).to(blocks.device());
    const at::Tensor b = blocks.to(at::kLong);
    const at::Tensor lo = lut.index_select(0, at::remainder(b, 16).reshape({-1})).view(b.sizes());
    const at::Tensor hi = lut.index_select(0, at::div(b, 16, "floor").reshape({-1})).view(b.sizes());
    auto outSizes = blocks.sizes().vec();
    outSizes.back() = 32;
    const at::Tensor values = at::stack({lo, hi}, -1).view(outSizes); // [..., G, 32]: byte i gives values 2i, 2i+1
    const at::Tensor exponent = scales.to(at::kInt) - 127;
    const at::Tensor scaled = values * at::pow(at::scalar_tensor(2.0, f32), exponent.to(at::kFloat)).unsqueeze(-1);
    auto flat = blocks.sizes().vec();
    flat.pop_back();
    flat.back() *= 32;
    return scaled.reshape(flat);
}

} // namespace ascviz::model
