// The MXFP4 dequantiser of gpt_oss's expert weights (core/src/model/formats/mxfp4.h) on hand-made blocks and scales,
// with the values worked out by hand from the format: two FP4 (E2M1) values per byte, the low nibble first, times
// 2^(scale − 127). The load path of whole checkpoints is covered by the live variant gpt_oss-mxfp4-top3.
#include "formats/mxfp4.h"
#include "formats/weights.h"

#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

at::Tensor bytes(const std::vector<int>& v, std::vector<int64_t> shape)
{
    std::vector<uint8_t> b(v.begin(), v.end());
    return at::tensor(at::ArrayRef<uint8_t>(b), at::kByte).view(shape).clone();
}

TEST(Mxfp4, DequantisesHandComputedGroups)
{
    // Two rows of one group each (16 bytes → 32 values), and a third row of two groups.
    std::vector<int> blocks(3 * 2 * 16, 0);
    auto at = [&](int row, int group, int byte) -> int& {
        return blocks[static_cast<std::size_t>((row * 2 + group) * 16 + byte)];
    };
    at(0, 0, 0) = 0x21;  // low 1 → 0.5, high 2 → 1.0
    at(0, 0, 1) = 0xF8;  // low 8 → -0.0, high 15 → -6.0
    at(0, 0, 15) = 0x7A; // low 10 → -1.0, high 7 → 6.0 (values 30, 31)
    at(1, 0, 0) = 0x53;  // low 3 → 1.5, high 5 → 3.0
    at(2, 1, 3) = 0xC4;  // low 4 → 2.0, high 12 → -2.0 (values 32 + 6, 32 + 7)
    // scales: row 0 → 128 (×2), row 1 → 125 (×1/4), row 2: 127 (×1) then 130 (×8); the unused group bytes are 0.
    const at::Tensor b = bytes(blocks, {3, 2, 16});
    const at::Tensor s = bytes({128, 127, 125, 127, 127, 130}, {3, 2});
    const at::Tensor out = ascviz::model::dequantizeMxfp4(b, s, "test");
    ASSERT_EQ(out.scalar_type(), at::kFloat);
    ASSERT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 64}));
    const auto v = [&](int64_t r, int64_t c) { return out[r][c].item<float>(); };
    EXPECT_EQ(v(0, 0), 1.0f);
    EXPECT_EQ(v(0, 1), 2.0f);
    EXPECT_EQ(v(0, 2), 0.0f);
    EXPECT_TRUE(std::signbit(v(0, 2)));
    EXPECT_EQ(v(0, 3), -12.0f);
    EXPECT_EQ(v(0, 30), -2.0f);
    EXPECT_EQ(v(0, 31), 12.0f);
    EXPECT_EQ(v(1, 0), 0.375f);
    EXPECT_EQ(v(1, 1), 0.75f);
    EXPECT_EQ(v(2, 38), 16.0f);
    EXPECT_EQ(v(2, 39), -16.0f);
    // Everything else is zero.
    EXPECT_EQ(out.abs().sum().item<float>(), 1 + 2 + 12 + 2 + 12 + 0.375f + 0.75f + 16 + 16);
}

TEST(Mxfp4, RefusesMismatchedShapesAndTypes)
{
    const at::Tensor b = at::zeros({2, 3, 16}, at::kByte);
    EXPECT_THROW(ascviz::model::dequantizeMxfp4(b, at::zeros({2, 4}, at::kByte), "x"), ascviz::ModelError);
    EXPECT_THROW(ascviz::model::dequantizeMxfp4(b, at::zeros({2, 3}, at::kFloat), "x"), ascviz::ModelError);
    EXPECT_THROW(ascviz::model::dequantizeMxfp4(at::zeros({2, 3, 8}, at::kByte), at::zeros({2, 3}, at::kByte), "x"),
                 ascviz::ModelError);
    EXPECT_EQ(ascviz::model::dequantizeMxfp4(b, at::zeros({2, 3}, at::kByte), "x").sizes().vec(),
              (std::vector<int64_t>{2, 96}));
}

// The memory check counts MXFP4 blocks as the values they dequantise to (two a byte in the compute dtype), not as
// nothing (they are not floating-point tensors); the blocks load as uint8.
TEST(Mxfp4, ComputeBytesCountsDequantisedBlocks)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("ascviz-mxfp4-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    nlohmann::json header = {
        {"m.gate_up_proj_blocks", {{"dtype", "U8"}, {"shape", {2, 1, 16}}, {"data_offsets", {0, 32}}}},
        {"m.gate_up_proj_scales", {{"dtype", "U8"}, {"shape", {2, 1}}, {"data_offsets", {32, 34}}}},
        {"m.bias", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {34, 50}}}}};
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i)
        file[static_cast<std::size_t>(i)] = static_cast<char>((h.size() >> (8 * i)) & 0xff);
    file += h;
    std::string data(50, '\0');
    data[0] = 0x21;
    file += data;
    std::ofstream(dir / "model.safetensors", std::ios::binary) << file;
    {
        ascviz::model::WeightStore ws(dir, at::kFloat, at::Device(at::kCPU));
        // 64 values of the blocks and 4 of the bias, 4 bytes each in float32; the scales are not weights.
        EXPECT_EQ(ws.computeBytes(), (64u + 4u) * 4u);
        const at::Tensor blocks = ws.get("m.gate_up_proj_blocks", {2, 1, 16});
        EXPECT_EQ(blocks.scalar_type(), at::kByte);
        EXPECT_EQ(blocks[0][0][0].item<int>(), 0x21);
    }
    fs::remove_all(dir);
}

} // namespace
