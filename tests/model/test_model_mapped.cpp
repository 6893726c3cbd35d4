// Float32 weights taken without a copy (weights.h): a float32 checkpoint computed in float32 on the CPU keeps its
// tensors on the safetensors mapping (private, copy on write), scores as the copied path (ASCVIZ_WEIGHTS_COPY=1)
// does, an in-place write never reaches the file, and the direct oneDNN path drops a mapped weight's pages once it
// has packed it without losing a write made before (dnnl_linear.cpp).
#include "formats/weights.h"
#include "kernels/dnnl_linear.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace modeltest;
namespace fs = std::filesystem;
using namespace ascviz::model;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A copy of a fixture folder, so that a test may look at its file after writing to a mapped tensor.
fs::path copyOf(const std::string& model, const std::string& name)
{
    const fs::path d = ascviz::testdata::freshTempDir(name);
    for (const auto& e : fs::directory_iterator(fixtureModel(model)))
        fs::copy_file(e.path(), d / e.path().filename());
    return d;
}

// Sets ASCVIZ_WEIGHTS_COPY for one scope.
struct CopyWeights {
    CopyWeights() { ::setenv("ASCVIZ_WEIGHTS_COPY", "1", 1); }
    ~CopyWeights() { ::unsetenv("ASCVIZ_WEIGHTS_COPY"); }
};

const char* kWeight = "model.layers.0.mlp.up_proj.weight";

std::vector<int64_t> shapeOf(const fs::path& d, const std::string& name)
{
    return SafetensorsFile(d / "model.safetensors").tensors().at(name).shape;
}

TEST(MappedWeights, Float32TensorIsTheMappingAndWritesStayPrivate)
{
    const fs::path d = copyOf("tiny-qwen2", "mapped-cow");
    const std::string before = readAll(d / "model.safetensors");
    const auto shape = shapeOf(d, kWeight);
    at::Tensor w;
    {
        WeightStore store(d, at::kFloat, at::kCPU);
        w = store.get(kWeight, shape);
        EXPECT_TRUE(store.isMapped(w)) << "a float32 tensor computed in float32 is the mapping itself";
        // Converted or transformed tensors are copies.
        EXPECT_FALSE(store.isMapped(w.t().contiguous()));
        WeightStore half(d, at::kBFloat16, at::kCPU);
        EXPECT_FALSE(half.isMapped(half.get(kWeight, shape)));
    }
    // The store is gone: the tensor keeps the file mapped, and it holds the file's values.
    const SafetensorsFile file(d / "model.safetensors");
    const TensorEntry& e = file.tensors().at(kWeight);
    ASSERT_EQ(static_cast<std::size_t>(w.numel()) * sizeof(float), e.bytes);
    EXPECT_EQ(std::memcmp(w.data_ptr(), e.data, e.bytes), 0);

    const at::Tensor old = w.clone();
    w.add_(1.0f); // copy on write: the pages written become this process's own
    EXPECT_TRUE(at::equal(w, old + 1.0f));
    EXPECT_EQ(std::memcmp(w.data_ptr(), e.data, e.bytes) == 0, false);
    EXPECT_EQ(readAll(d / "model.safetensors"), before) << "the write reached the file";
    const SafetensorsFile again(d / "model.safetensors");
    EXPECT_EQ(std::memcmp(again.tensors().at(kWeight).data, old.data_ptr(), e.bytes), 0);
    w = at::Tensor();
    fs::remove_all(d);
}

// gate_proj and up_proj lie one after the other in the file (safetensors sorts by name): the loader's fused [gate; up]
// is a view of the mapping, not a copy; parts out of order or not adjacent are joined by the caller (nullopt here).
TEST(MappedWeights, AdjacentPartsJoinWithoutACopy)
{
    const fs::path d = fixtureModel("tiny-qwen2");
    WeightStore store(d, at::kFloat, at::kCPU);
    const std::string p = "model.layers.0.mlp.";
    const at::Tensor gate = store.get(p + "gate_proj.weight", shapeOf(d, p + "gate_proj.weight"));
    const at::Tensor up = store.get(p + "up_proj.weight", shapeOf(d, p + "up_proj.weight"));
    const auto joined = store.joinMapped({gate, up});
    ASSERT_TRUE(joined.has_value());
    EXPECT_TRUE(store.isMapped(*joined));
    EXPECT_EQ(joined->data_ptr(), gate.data_ptr());
    EXPECT_TRUE(at::equal(*joined, at::cat({gate, up}, 0)));
    EXPECT_FALSE(store.joinMapped({up, gate}).has_value());
    EXPECT_FALSE(store.joinMapped({gate, gate.clone()}).has_value());
    EXPECT_FALSE(store.joinMapped({gate, up.narrow(0, 1, 2)}).has_value());
}

TEST(MappedWeights, CopyForcedByTheEnvironment)
{
    const fs::path d = fixtureModel("tiny-qwen2");
    CopyWeights copy;
    WeightStore store(d, at::kFloat, at::kCPU);
    EXPECT_FALSE(store.isMapped(store.get(kWeight, shapeOf(d, kWeight))));
}

TEST(MappedWeights, DropsPagesOnlyOfFileMappings)
{
    const fs::path d = fixtureModel("tiny-qwen2");
    const SafetensorsFile file(d / "model.safetensors");
    std::vector<float> heap(1 << 16, 3.0f);
    EXPECT_EQ(dropFileMappedPages(heap.data(), heap.size() * sizeof(float)), 0u) << "never madvise the heap";
    EXPECT_EQ(heap[12345], 3.0f);
    // The largest tensor: its pages wholly inside it are dropped, and it reads the same afterwards.
    const TensorEntry* big = nullptr;
    for (const auto& [k, e] : file.tensors())
        if (!big || e.bytes > big->bytes)
            big = &e;
    ASSERT_GT(big->bytes, 3u * 4096u);
    const std::string copy(static_cast<const char*>(big->data), big->bytes);
    const std::size_t dropped = dropFileMappedPages(big->data, big->bytes);
    EXPECT_GT(dropped, 0u);
    EXPECT_LE(dropped, big->bytes);
    EXPECT_EQ(std::string(static_cast<const char*>(big->data), big->bytes), copy);
    // A range reaching past the mapping's end is not the mapping's.
    EXPECT_EQ(dropFileMappedPages(file.mapping().data(), file.mapping().size() + 1), 0u);
}

#if ASCVIZ_TEST_EXPECTS_DNNL
TEST(MappedWeights, PackedWeightStaysCorrectAndWritesSurvive)
{
    ASSERT_TRUE(dnnlLinearAvailable()) << dnnlLinearUnavailableReason();
    const fs::path d = copyOf("tiny-qwen2", "mapped-pack");
    WeightStore store(d, at::kFloat, at::kCPU);
    at::Tensor w = store.get(kWeight, shapeOf(d, kWeight));
    ASSERT_TRUE(store.isMapped(w));
    at::manual_seed(11);
    const at::Tensor x = at::randn({20, w.size(1)});
    const at::Tensor first = dnnlLinear(x, w, {}); // packs w, then drops its pages
    ASSERT_TRUE(first.defined());
    EXPECT_LE((first - at::linear(x, w)).abs().max().item<double>(), 1e-4) << "w reads the file again";
    // A write bumps the version: the packed copy is made again from the written values, which stay.
    w.mul_(2.0f);
    const at::Tensor second = dnnlLinear(x, w, {});
    ASSERT_TRUE(second.defined());
    EXPECT_LE((second - 2 * first).abs().max().item<double>(), 1e-4);
    EXPECT_LE((second - at::linear(x, w)).abs().max().item<double>(), 1e-4) << "the written pages were dropped";
    w = at::Tensor();
    fs::remove_all(d);
}
#endif

double maxNtpDifference(const std::vector<std::vector<std::optional<double>>>& a,
                        const std::vector<std::vector<std::optional<double>>>& b)
{
    double worst = 0;
    EXPECT_EQ(a.size(), b.size());
    for (std::size_t s = 0; s < std::min(a.size(), b.size()); ++s) {
        EXPECT_EQ(a[s].size(), b[s].size());
        for (std::size_t i = 0; i < std::min(a[s].size(), b[s].size()); ++i) {
            EXPECT_EQ(a[s][i].has_value(), b[s][i].has_value());
            if (a[s][i] && b[s][i])
                worst = std::max(worst, std::abs(*a[s][i] - *b[s][i]));
        }
    }
    return worst;
}

class MappedModel : public ::testing::TestWithParam<std::string> {};

// The mapped weights score as the copied ones, twice (the second call reads the packed copies and, where LibTorch
// computes, the pages read again from the page cache), and generate the same greedy ids.
TEST_P(MappedModel, ScoresAsTheCopiedPath)
{
    std::unique_ptr<ascviz::LanguageModel> copied;
    {
        CopyWeights copy;
        copied = ascviz::LanguageModel::load(fixtureModel(GetParam()), cpuFloat32());
    }
    auto mapped = ascviz::LanguageModel::load(fixtureModel(GetParam()), cpuFloat32());
    const auto ids =
        modeltest::ids(readJson(fixtureModel(GetParam()) / "reference.json").at("cases").at(1).at("input_ids"));
    const std::vector<std::vector<int32_t>> seqs = {ids, std::vector<int32_t>(ids.begin(), ids.begin() + 3)};
    const auto want = copied->scoreIds(seqs);
    EXPECT_LE(maxNtpDifference(mapped->scoreIds(seqs), want), 1e-6);
    EXPECT_LE(maxNtpDifference(mapped->scoreIds(seqs), want), 1e-6);
    ascviz::GenerationOptions g;
    g.greedy = true;
    g.maxNewTokens = 8;
    g.stopAtEos = false;
    const std::vector<int32_t> prompt(ids.begin(), ids.begin() + 5);
    EXPECT_EQ(mapped->generateIds(prompt, g), copied->generateIds(prompt, g));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MappedModel,
                         ::testing::Values("tiny-qwen2", "tiny-llama", "tiny-gpt2", "tiny-mixtral", "tiny-qwen2_moe"),
                         [](const auto& info) {
                             std::string n = info.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

} // namespace
