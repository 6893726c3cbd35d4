// Weights kept in the checkpoint's 16-bit dtype (LoadOptions::weights "checkpoint", lowp_linear.h): the decode kernel
// and the tile path against at::matmul on random bfloat16 / float16 matrices, and whole fixtures converted to
// bfloat16 (float16 for GPT-2's own fp16 fixture) scored with the weights kept 16-bit against the same checkpoint
// widened to float32 at load: both compute the same products in float32, so their NtPs agree to float32 rounding.
#include "kernels/lowp_linear.h"
#include "model_test_util.h"
#include "testdata.h"

#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace modeltest;
namespace fs = std::filesystem;
using namespace ascviz::model;

namespace {

// The kernel's and the tile path's sums run in another order than at::matmul's: float32 rounding of sums of `in`
// products of unit-scale values.
void expectClose(const at::Tensor& got, const at::Tensor& want, const std::string& what)
{
    ASSERT_EQ(got.sizes(), want.sizes()) << what;
    const double err = (got - want).abs().max().item<double>();
    const double scale = std::max(1.0, want.abs().max().item<double>());
    EXPECT_LE(err, 2e-6 * scale * std::sqrt(static_cast<double>(want.size(-1) + 1)) + 1e-6) << what;
}

at::Tensor reference(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    at::Tensor y = at::matmul(x.to(at::kDouble), w.to(at::kDouble).t());
    if (b.defined())
        y = y + b.to(at::kDouble);
    return y.to(at::kFloat);
}

TEST(LowpKernel, MatchesMatmulOnOddShapes)
{
    ASSERT_TRUE(lowpKernelAvailable()) << "this test machine has AVX2, FMA and F16C";
    at::manual_seed(3);
    for (auto dtype : {at::kBFloat16, at::kHalf})
        for (int64_t in : {1, 3, 7, 8, 9, 15, 16, 17, 23, 31, 64, 133})
            for (int64_t out : {1, 5, 37})
                for (int64_t rows : {1, 2, 3, 4, 5}) {
                    const at::Tensor x = at::randn({rows, in});
                    const at::Tensor w = at::randn({out, in}).to(dtype);
                    const at::Tensor b = out == 5 ? at::randn({out}) : at::Tensor();
                    const std::string what = std::string(dtype == at::kHalf ? "f16" : "bf16") + " in " +
                                             std::to_string(in) + " out " + std::to_string(out) + " rows " +
                                             std::to_string(rows);
                    expectClose(lowpKernelLinear(x, w, b), reference(x, w, b), "kernel " + what);
                    expectClose(lowpTiledLinear(x, w, b, 3), reference(x, w, b), "tiles of 3, " + what);
                }
}

TEST(LowpKernel, LinearDispatchKeepsShapesAndThreads)
{
    at::manual_seed(5);
    const at::Tensor w = at::randn({300, 129}).to(at::kBFloat16);
    const at::Tensor b = at::randn({300});
    for (int64_t t : {1, 3, 40}) { // the kernel (≤ 4 rows) and the tile path (one default tile; tiles of 3 rows above)
        const at::Tensor x = at::randn({2, t, 129});
        const at::Tensor y = lowpLinear(x, w, b);
        ASSERT_EQ(y.sizes(), at::IntArrayRef({2, t, 300}));
        expectClose(y.reshape({2 * t, 300}), reference(x.reshape({2 * t, 129}), w, b), "rows " + std::to_string(t));
    }
}

// ---------- whole checkpoints ----------

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A copy of a fixture whose float32 tensors are rounded to bfloat16 (a safetensors file written here).
fs::path bf16CopyOf(const std::string& model, const std::string& name)
{
    const fs::path d = ascviz::testdata::freshTempDir(name);
    for (const auto& e : fs::directory_iterator(fixtureModel(model)))
        if (e.path().filename() != "model.safetensors" && e.path().filename() != "reference.safetensors")
            fs::copy_file(e.path(), d / e.path().filename());
    SafetensorsFile src(fixtureModel(model) / "model.safetensors");
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const auto& [k, e] : src.tensors()) {
        if (e.dtype != "F32")
            throw std::runtime_error("the fixture " + model + " has a " + e.dtype + " tensor " + k);
        const at::Tensor t = at::from_blob(const_cast<void*>(e.data), e.shape, at::TensorOptions().dtype(at::kFloat))
                                 .to(at::kBFloat16)
                                 .contiguous();
        const std::string code = "BF16";
        const auto* p = static_cast<const char*>(t.data_ptr());
        const auto n = static_cast<std::size_t>(t.numel() * t.element_size());
        header[k] = {{"dtype", code}, {"shape", e.shape}, {"data_offsets", {data.size(), data.size() + n}}};
        data.append(p, n);
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    std::ofstream out(d / "model.safetensors", std::ios::binary);
    uint64_t len = h.size();
    char lenBytes[8];
    for (int i = 0; i < 8; ++i)
        lenBytes[i] = static_cast<char>((len >> (8 * i)) & 0xff);
    out.write(lenBytes, 8);
    out << h << data;
    return d;
}

ascviz::LoadOptions withWeights(const std::string& weights)
{
    auto o = cpuFloat32();
    o.weights = ascviz::requireLoadOption<ascviz::Weights>(weights);
    return o;
}

std::vector<int32_t> caseIds(const std::string& model)
{
    return ids(readJson(fixtureModel(model) / "reference.json").at("cases").at(1).at("input_ids"));
}

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

class KeptBf16 : public ::testing::TestWithParam<std::string> {};

// Same math, float32 products either way: the NtPs agree within 1e-5 (stated in docs/performance.md, "bf16 weights"),
// greedy generation (the decode kernel at one row) picks the same ids, and the files may be deleted once loaded.
TEST_P(KeptBf16, ScoresAsTheWidenedCheckpoint)
{
    const fs::path d = bf16CopyOf(GetParam(), "bf16-" + GetParam());
    auto widened = ascviz::LanguageModel::load(d, withWeights("float32"));
    auto kept = ascviz::LanguageModel::load(d, withWeights("checkpoint"));
    EXPECT_EQ(widened->info().weights, "float32");
    EXPECT_EQ(kept->info().weights, "bfloat16");
    EXPECT_EQ(kept->info().dtype, "float32");
    EXPECT_EQ(kept->info().parameters, widened->info().parameters);
    // The store is gone and the files too: the tensors keep their mapping alive.
    fs::remove_all(d);
    const auto ids = caseIds(GetParam());
    const std::vector<std::vector<int32_t>> seqs = {ids, std::vector<int32_t>(ids.begin(), ids.begin() + 3)};
    const auto a = widened->scoreIds(seqs), b = kept->scoreIds(seqs);
    EXPECT_LE(maxNtpDifference(a, b), 1e-5);
    ascviz::GenerationOptions g;
    g.greedy = true;
    g.maxNewTokens = 12;
    g.stopAtEos = false;
    const std::vector<int32_t> prompt(ids.begin(), ids.begin() + 5);
    EXPECT_EQ(kept->generateIds(prompt, g), widened->generateIds(prompt, g));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, KeptBf16,
                         ::testing::Values("tiny-qwen2", "tiny-llama", "tiny-gpt2", "tiny-gpt_bigcode", "tiny-gemma",
                                           "tiny-qwen2_moe", "tiny-mixtral", "tiny-phi3"),
                         [](const auto& info) {
                             std::string n = info.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

TEST(KeptFloat16, Gpt2Fp16FixtureScoresAsWidened)
{
    const fs::path d = fixtureModel("tiny-gpt2-fp16");
    auto widened = ascviz::LanguageModel::load(d, withWeights("float32"));
    auto kept = ascviz::LanguageModel::load(d, withWeights("checkpoint"));
    EXPECT_EQ(kept->info().weights, "float16");
    const std::vector<std::vector<int32_t>> seqs = {{5, 17, 300, 42, 9, 77, 120, 3, 64}, {8, 9}};
    EXPECT_LE(maxNtpDifference(widened->scoreIds(seqs), kept->scoreIds(seqs)), 1e-5);
}

TEST(KeptWeights, Float32CheckpointIsANoOp)
{
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-qwen2"), withWeights("checkpoint"));
    EXPECT_EQ(m->info().weights, "float32");
}

TEST(KeptWeights, AutoKeepsTheDtypeWhenFloat32DoesNotFit)
{
    const fs::path d = bf16CopyOf("tiny-qwen2", "bf16-auto");
    const auto stored = fs::file_size(d / "model.safetensors");
    auto o = withWeights("auto");
    o.maxWeightBytes = stored * 3 / 2; // the bfloat16 weights fit, their float32 copy (2×) does not
    EXPECT_EQ(ascviz::LanguageModel::load(d, o)->info().weights, "bfloat16");
    o.maxWeightBytes = stored * 4;
    EXPECT_EQ(ascviz::LanguageModel::load(d, o)->info().weights, "float32");
    o.maxWeightBytes = stored / 4; // not even the bfloat16 weights fit
    try {
        ascviz::LanguageModel::load(d, o);
        ADD_FAILURE() << "no ModelError";
    } catch (const ascviz::ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("in bfloat16"), std::string::npos) << e.what();
    }
    fs::remove_all(d);
}

TEST(KeptWeights, RefusesOtherComputeDtypesAndUnknownSettings)
{
    const fs::path d = bf16CopyOf("tiny-qwen2", "bf16-refusals");
    auto o = withWeights("checkpoint");
    o.dtype = ascviz::Dtype::Bfloat16;
    EXPECT_THROW(ascviz::LanguageModel::load(d, o), ascviz::ModelError);
    // An unknown weights setting is refused where its name is read (core's one table, model/loadoptions.h): typed,
    // it can no longer reach the load.
    EXPECT_THROW((void)withWeights("int4"), ascviz::InputError);
    fs::remove_all(d);
}

TEST(KeptWeights, TruncatedFileIsAClearError)
{
    const fs::path d = bf16CopyOf("tiny-qwen2", "bf16-truncated");
    const std::string bytes = readAll(d / "model.safetensors");
    std::ofstream(d / "model.safetensors", std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 100);
    try {
        ascviz::LanguageModel::load(d, withWeights("checkpoint"));
        ADD_FAILURE() << "no ModelError";
    } catch (const ascviz::ModelError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
        EXPECT_NE(msg.find("model.safetensors"), std::string::npos) << msg;
    }
    fs::remove_all(d);
}

// Issue 54: `batch --weights checkpoint` with the safetensors file truncated while the run went died with SIGBUS.
// The next call into the model says which file changed; a read that races past that check ends the process with the
// file named and exit status 1, not a signal.
TEST(KeptWeights, FileTruncatedWhileInUseIsAClearError)
{
    const fs::path d = bf16CopyOf("tiny-qwen2", "bf16-shrunk");
    const auto m = ascviz::LanguageModel::load(d, withWeights("checkpoint"));
    ASSERT_EQ(m->info().weights, "bfloat16") << "the weights must stay on the mapping for this test";
    (void)m->score("x = 1\n");
    fs::resize_file(d / "model.safetensors", fs::file_size(d / "model.safetensors") / 2); // the same file, shorter
    try {
        (void)m->score("x = 1\n");
        ADD_FAILURE() << "no ModelError";
    } catch (const ascviz::ModelError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("became shorter"), std::string::npos) << msg;
        EXPECT_NE(msg.find("model.safetensors"), std::string::npos) << msg;
    }
}

TEST(KeptWeightsDeathTest, AReadOfALostPageNamesTheFileAndExitsWithOne)
{
    // "fast": the child is forked at EXPECT_EXIT and runs only its statement. "threadsafe" would run the whole test
    // again in the child, whose temporary folder (made before EXPECT_EXIT) would outlive its _exit.
    GTEST_FLAG_SET(death_test_style, "fast");
    const fs::path f = ascviz::testdata::freshTempDir("lost-pages") / "lost.bin";
    std::ofstream(f, std::ios::binary) << std::string(3 * 4096, 'x');
    EXPECT_EXIT(
        {
            const ascviz::model::MappedFile m(f);
            fs::resize_file(f, 0);
            volatile unsigned char c = m.data()[2 * 4096];
            (void)c;
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(1), "lost.bin became shorter while the model was reading it");
}

} // namespace
