// Runtime behaviour on the tiny fixtures, id level: batching, long-text windows, KV cache vs recomputation,
// seeded sampling, cancellation, and load errors.
#include "model_test_util.h"
#include "testdata.h"

#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

using namespace modeltest;
namespace fs = std::filesystem;

namespace {

std::vector<int32_t> referenceIds(const std::string& model, int k)
{
    return ids(
        readJson(fixtureModel(model) / "reference.json").at("cases").at(static_cast<std::size_t>(k)).at("input_ids"));
}

// log-softmax of one row of logits, in double.
double logProb(const std::vector<float>& logits, std::size_t row, std::size_t V, int32_t id)
{
    const float* r = logits.data() + row * V;
    const double mx = *std::max_element(r, r + V);
    double sum = 0;
    for (std::size_t i = 0; i < V; ++i)
        sum += std::exp(r[i] - mx);
    return r[id] - mx - std::log(sum);
}

class PerArch : public ::testing::TestWithParam<std::string> {};

TEST_P(PerArch, BatchScoringEqualsOneByOne)
{
    auto m = ascviz::LanguageModel::load(fixtureModel(GetParam()), cpuFloat32());
    const auto a = referenceIds(GetParam(), 0), b = referenceIds(GetParam(), 1);
    const std::vector<int32_t> c(a.begin(), a.begin() + 7);
    const std::vector<std::vector<int32_t>> seqs = {a, b, c, {a[0]}, {}};
    const auto batch = m->scoreIds(seqs);
    ASSERT_EQ(batch.size(), seqs.size());
    for (std::size_t i = 0; i < seqs.size(); ++i) {
        const auto one = m->scoreIds({seqs[i]}).front();
        ASSERT_EQ(batch[i].size(), seqs[i].size());
        ASSERT_EQ(one.size(), seqs[i].size());
        for (std::size_t j = 0; j < one.size(); ++j) {
            ASSERT_EQ(one[j].has_value(), j > 0);
            ASSERT_EQ(batch[i][j].has_value(), j > 0);
            if (j > 0) {
                EXPECT_NEAR(*batch[i][j], *one[j], 1e-6) << "sequence " << i << " token " << j;
            }
        }
    }
}

// On the CPU, scoreIds packs several sequences into one forward pass without padding (projections on all
// rows, attention per sequence). Each sequence's NtP must equal a plain forward pass of that sequence alone
// (logits()), for every architecture: rotary variants, grouped-query heads, GPT-Neo's local layers (window 8,
// so most of these sequences are longer than the window), parallel residuals.
TEST_P(PerArch, PackedScoringEqualsSingleSequencePasses)
{
    auto m = ascviz::LanguageModel::load(fixtureModel(GetParam()), cpuFloat32());
    const auto a = referenceIds(GetParam(), 0), b = referenceIds(GetParam(), 1);
    std::vector<int32_t> ab = a;
    ab.insert(ab.end(), b.begin(), b.end());
    ab.resize(std::min<std::size_t>(ab.size(), static_cast<std::size_t>(m->info().contextLength)));
    const std::vector<std::vector<int32_t>> seqs = {
        b, {a[0], a[1]}, ab, a, std::vector<int32_t>(a.begin(), a.begin() + 9)};
    const auto V = static_cast<std::size_t>(m->info().vocabSize);
    const auto packed = m->scoreIds(seqs);
    ASSERT_EQ(packed.size(), seqs.size());
    for (std::size_t i = 0; i < seqs.size(); ++i) {
        const auto logits = m->logits(seqs[i]);
        ASSERT_EQ(packed[i].size(), seqs[i].size());
        for (std::size_t j = 1; j < seqs[i].size(); ++j) {
            ASSERT_TRUE(packed[i][j].has_value());
            EXPECT_NEAR(*packed[i][j], std::exp(logProb(logits, j - 1, V, seqs[i][j])), 1e-6)
                << GetParam() << " sequence " << i << " token " << j;
        }
    }
}

TEST_P(PerArch, KvCacheGenerationEqualsRecomputation)
{
    auto m = ascviz::LanguageModel::load(fixtureModel(GetParam()), cpuFloat32());
    const auto ref = referenceIds(GetParam(), 1);
    const std::vector<int32_t> prompt(ref.begin(), ref.begin() + 5);
    for (bool greedy : {true, false}) {
        ascviz::GenerationOptions g;
        g.greedy = greedy;
        g.temperature = 1.3;
        g.seed = 7;
        g.maxNewTokens = 40; // past GPT-Neo's local window of 8
        g.stopAtEos = false;
        const auto cached = m->generateIds(prompt, g);
        g.useCache = false;
        const auto recomputed = m->generateIds(prompt, g);
        EXPECT_EQ(cached.size(), 40u);
        EXPECT_EQ(cached, recomputed) << (greedy ? "greedy" : "sampled");
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PerArch,
                         ::testing::Values("tiny-gpt2", "tiny-gpt_neo", "tiny-codegen", "tiny-gpt_bigcode",
                                           "tiny-gpt_neox", "tiny-llama", "tiny-qwen2", "tiny-starcoder2"),
                         [](const auto& info) {
                             std::string n = info.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

// A text longer than the context (128) is scored in windows of 128 tokens overlapping by 64: window k starts
// at 64k and predicts the positions the previous windows did not. Checked against logits() of each window.
TEST(Windows, LongSequenceMatchesManualWindows)
{
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-gpt_neox"), cpuFloat32());
    std::vector<int32_t> seq;
    for (int r = 0; seq.size() < 300; ++r)
        for (auto id : referenceIds("tiny-gpt_neox", r % 2))
            seq.push_back(id);
    seq.resize(300);
    const std::size_t C = 128, V = 2048;
    const auto got = m->scoreIds({seq}).front();
    ASSERT_EQ(got.size(), seq.size());
    EXPECT_FALSE(got[0].has_value());
    std::vector<std::optional<double>> want(seq.size());
    std::size_t done = 1;
    for (std::size_t start = 0; done < seq.size(); start += C / 2) {
        const std::size_t end = std::min(start + C, seq.size());
        const std::vector<int32_t> window(seq.begin() + static_cast<std::ptrdiff_t>(start),
                                          seq.begin() + static_cast<std::ptrdiff_t>(end));
        const auto logits = m->logits(window);
        for (std::size_t p = done; p < end; ++p) {
            if (start > 0) {
                ASSERT_GE(p - start, C / 2) << "every position after the first window has half a context of history";
            }
            want[p] = std::exp(logProb(logits, p - 1 - start, V, seq[p]));
        }
        done = end;
    }
    for (std::size_t p = 1; p < seq.size(); ++p) {
        ASSERT_TRUE(got[p].has_value()) << p;
        EXPECT_NEAR(*got[p], *want[p], 1e-6) << "position " << p;
    }
    // Inside the first window the result is plain teacher forcing.
    const auto first = m->logits(std::vector<int32_t>(seq.begin(), seq.begin() + 128));
    EXPECT_NEAR(*got[100], std::exp(logProb(first, 99, V, seq[100])), 1e-6);
    // The whole sequence cannot go through logits() at once.
    EXPECT_THROW(m->logits(seq), ascviz::InputError);
}

TEST(Sampling, SeededSamplingIsReproducible)
{
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-llama"), cpuFloat32());
    const std::vector<int32_t> prompt = {326, 284, 1649};
    ascviz::GenerationOptions g;
    g.greedy = false;
    g.temperature = 1.0;
    g.topP = 0.9;
    g.topK = 50;
    g.maxNewTokens = 24;
    g.stopAtEos = false;
    g.seed = 1234;
    const auto a = m->generateIds(prompt, g);
    const auto b = m->generateIds(prompt, g);
    EXPECT_EQ(a, b);
    bool anyDifferent = false;
    for (uint64_t s = 1; s <= 4; ++s) {
        g.seed = s;
        anyDifferent |= m->generateIds(prompt, g) != a;
    }
    EXPECT_TRUE(anyDifferent) << "different seeds give different samples";
}

TEST(Sampling, TopKOneIsGreedy)
{
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-qwen2"), cpuFloat32());
    const std::vector<int32_t> prompt = {326, 488, 324, 84};
    ascviz::GenerationOptions greedy;
    greedy.maxNewTokens = 20;
    greedy.stopAtEos = false;
    ascviz::GenerationOptions k1 = greedy;
    k1.greedy = false;
    k1.topK = 1;
    k1.temperature = 0.7;
    k1.seed = 99;
    EXPECT_EQ(m->generateIds(prompt, greedy), m->generateIds(prompt, k1));
}

TEST(Generation, StopsAtEosAndIncludesIt)
{
    // The bundled model's third reference prompt continues greedily with EOS (<|endoftext|>, id 0) at once.
    auto m = ascviz::LanguageModel::load(resourcesDir() / "models" / "ascviz-tiny-code", cpuFloat32());
    const auto sample = readJson(resourcesDir() / "models" / "ascviz-tiny-code" / "reference.json").at("samples").at(2);
    const auto prompt = ids(sample.at("prompt_ids"));
    ascviz::GenerationOptions g;
    g.maxNewTokens = 6;
    g.stopAtEos = true;
    EXPECT_EQ(m->generateIds(prompt, g), std::vector<int32_t>{0});
    g.stopAtEos = false;
    const auto all = m->generateIds(prompt, g);
    ASSERT_EQ(all.size(), 6u);
    EXPECT_EQ(all[0], 0);
}

TEST(Generation, CancelledBeforeStartGivesNothing)
{
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-gpt2"), cpuFloat32());
    ascviz::CancelFlag cancel{true};
    ascviz::GenerationOptions g;
    g.maxNewTokens = 10;
    EXPECT_TRUE(m->generateIds({326, 488}, g, &cancel).empty());
    cancel = false;
    g.stopAtEos = false;
    EXPECT_EQ(m->generateIds({326, 488}, g, &cancel).size(), 10u);
}

TEST(Generation, StopsAtTheContext)
{
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-gpt2"), cpuFloat32());
    ascviz::GenerationOptions g;
    g.maxNewTokens = 500;
    g.stopAtEos = false;
    std::vector<int32_t> prompt(100, 326);
    // 28 generated tokens are fed back (filling the 128 positions); the 29th is predicted at the last one.
    EXPECT_EQ(m->generateIds(prompt, g).size(), 29u);
}

// ---------- load errors ----------

fs::path tempModelDir(const std::string& name)
{
    return ascviz::testdata::freshTempDir(name); // removed at exit
}

fs::path copyOf(const std::string& model, const std::string& name)
{
    const fs::path d = tempModelDir(name);
    for (const auto& e : fs::directory_iterator(fixtureModel(model)))
        fs::copy_file(e.path(), d / e.path().filename());
    for (const auto& e : fs::directory_iterator(d))
        fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
    return d;
}

std::string loadError(const fs::path& dir, ascviz::LoadOptions o = cpuFloat32())
{
    try {
        ascviz::LanguageModel::load(dir, o);
    } catch (const ascviz::ModelError& e) {
        return e.what();
    }
    return "(no ModelError)";
}

std::string readBytes(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const fs::path& p, const std::string& s)
{
    std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

// The load error of a copy of `model` whose config.json has `patch` merged in (RFC 7386).
std::string patchedConfigError(const std::string& model, const std::string& name, const nlohmann::json& patch)
{
    const auto d = copyOf(model, name);
    auto cfg = readJson(d / "config.json");
    cfg.merge_patch(patch);
    writeBytes(d / "config.json", cfg.dump());
    return loadError(d);
}

TEST(LoadErrors, MissingFolder)
{
    const auto msg = loadError("/nonexistent/ascviz-model");
    EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/ascviz-model"), std::string::npos) << msg;
}

TEST(LoadErrors, MissingConfig)
{
    const auto d = copyOf("tiny-gpt2", "noconfig");
    fs::remove(d / "config.json");
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("no config.json"), std::string::npos) << msg;
}

TEST(LoadErrors, NoWeights)
{
    const auto d = copyOf("tiny-gpt2", "noweights");
    fs::remove(d / "model.safetensors");
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("no weights"), std::string::npos) << msg;
    EXPECT_NE(msg.find("model.safetensors"), std::string::npos) << msg;
}

TEST(LoadErrors, UnknownModelTypeListsSupported)
{
    const auto d = copyOf("tiny-gpt2", "unknowntype");
    auto cfg = readJson(d / "config.json");
    cfg["model_type"] = "mamba";
    writeBytes(d / "config.json", cfg.dump());
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("\"mamba\""), std::string::npos) << msg;
    // Every family, as a whole entry of the list "(supported: a, b, …)".
    for (const char* a :
         {"gpt2",     "gpt_neo",   "codegen",   "gpt_bigcode", "gpt_neox",    "llama",    "qwen2",  "starcoder2",
          "qwen3",    "mistral",   "gemma",     "gemma2",      "gemma3_text", "phi3",     "gptj",   "phi",
          "stablelm", "granite",   "olmo2",     "smollm3",     "olmo3",       "seed_oss", "cwm",    "exaone4",
          "mixtral",  "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3", "mellum",   "gpt_oss"}) {
        const std::string name(a);
        EXPECT_TRUE(msg.find(" " + name + ",") != std::string::npos || msg.find(" " + name + ")") != std::string::npos)
            << name << ": " << msg;
    }
}

// Issue 54: a head count of 0 divided by zero (SIGFPE in the config reader of llama, gpt2, codegen, gpt_neox, phi3,
// gemma2) and a layer count of 1e9 allocated gigabytes before a bare std::bad_alloc. Every count and size the
// decoder divides by or allocates per item is refused at load outside 1 … its bound, naming the key and value.
TEST(LoadErrors, CountsAndSizesOutOfRangeNameTheKey)
{
    struct Case {
        const char* model;
        const char* key;
        nlohmann::json value;
    };
    const Case cases[] = {
        {"tiny-llama", "num_attention_heads", 0},
        {"tiny-gpt2", "n_head", 0},
        {"tiny-codegen", "n_head", 0},
        {"tiny-gpt_neox", "num_attention_heads", 0},
        {"tiny-phi3", "num_attention_heads", 0},
        {"tiny-gemma2", "num_attention_heads", 0},
        {"tiny-llama", "num_key_value_heads", 0},
        {"tiny-llama", "num_attention_heads", -4},
        {"tiny-llama", "num_hidden_layers", 1000000000},
        {"tiny-gpt2", "n_layer", 1000000000},
        {"tiny-llama", "hidden_size", 0},
        {"tiny-qwen2", "vocab_size", 0},
    };
    for (const auto& c : cases) {
        const auto d = copyOf(c.model, std::string("size-") + c.model + "-" + c.key + "-" + c.value.dump());
        auto cfg = readJson(d / "config.json");
        ASSERT_TRUE(cfg.contains(c.key)) << c.model << " has no " << c.key;
        cfg[c.key] = c.value;
        writeBytes(d / "config.json", cfg.dump());
        const auto msg = loadError(d);
        EXPECT_NE(msg.find(std::string(c.key) + " = " + c.value.dump()), std::string::npos) << c.model << ": " << msg;
        EXPECT_NE(msg.find("must be from 1 to"), std::string::npos) << c.model << ": " << msg;
        fs::remove_all(d);
    }
}

// Issue 54: values that made every NtP NaN while eval exited 0 and batch stored "ok" are refused at load, naming
// the key; a forward pass that still diverges (NaN weights) is an error for that text, never a null NtP.
TEST(LoadErrors, ValuesThatMadeNtpNanAreRefused)
{
    struct Case {
        const char* model;
        nlohmann::json patch; // merged into config.json
        const char* expected;
    };
    const Case cases[] = {
        {"tiny-llama", {{"rms_norm_eps", -1}}, "norm epsilon"},
        {"tiny-gpt2", {{"layer_norm_epsilon", 0}}, "norm epsilon"},
        {"tiny-llama", {{"rope_parameters", {{"rope_type", "default"}, {"rope_theta", 0.0}}}}, "rope_theta = 0.0"},
        {"tiny-llama", {{"rope_parameters", {{"rope_type", "default"}, {"rope_theta", -1.0}}}}, "rope_theta = -1.0"},
        {"tiny-llama",
         {{"rope_parameters", {{"rope_type", "linear"}, {"rope_theta", 10000.0}, {"factor", 0.0}}}},
         "linear rope factor"},
        {"tiny-llama",
         {{"rope_parameters", {{"rope_type", "yarn"}, {"rope_theta", 10000.0}, {"factor", 0.0}}}},
         "rope factor"},
        {"tiny-deepseek_v3", {{"routed_scaling_factor", -1e308}}, "routed_scaling_factor"},
    };
    int k = 0;
    for (const auto& c : cases) {
        const auto msg = patchedConfigError(c.model, "nan-config-" + std::to_string(k++), c.patch);
        EXPECT_NE(msg.find(c.expected), std::string::npos) << c.patch.dump() << ": " << msg;
        EXPECT_NE(msg.find("must be a finite number"), std::string::npos) << c.patch.dump() << ": " << msg;
    }

    // NaN weights: the model loads, scoring is an error naming the cause.
    const auto d = copyOf("tiny-llama", "nan-weights");
    std::string bytes = readBytes(d / "model.safetensors");
    uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i)
        headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
    const auto header = nlohmann::json::parse(bytes.substr(8, headerLen));
    const auto& norm = header.at("model.norm.weight");
    ASSERT_EQ(norm.at("dtype"), "F32");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::size_t at = 8 + headerLen + norm.at("data_offsets").at(0).get<std::size_t>();
    std::memcpy(bytes.data() + at, &nan, sizeof nan);
    writeBytes(d / "model.safetensors", bytes);
    const auto m = ascviz::LanguageModel::load(d, cpuFloat32());
    try {
        (void)m->score("def f(x):\n    return x\n");
        ADD_FAILURE() << "a NaN weight scored without an error";
    } catch (const ascviz::ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
    }
}

// Issue 54: one typed reader — a value of the wrong type, or a window of 0 or -1, is refused naming the key in every
// family (mistral's "sliding_window": "8" was silently dropped; "rms_norm_eps": "x" and a string layer_types were
// ignored; mistral took sliding_window 0 as no window where gemma2 refused it).
TEST(LoadErrors, WrongTypesAndWindowsAreRefusedNamingTheKey)
{
    struct Case {
        const char* model;
        nlohmann::json patch;
        const char* expected;
    };
    const Case cases[] = {
        {"tiny-mistral", {{"sliding_window", "8"}}, "sliding_window = \"8\" (an integer expected)"},
        {"tiny-mistral", {{"sliding_window", 0}}, "sliding_window = 0 (a count or size must be from 1"},
        {"tiny-mistral", {{"sliding_window", -1}}, "sliding_window = -1 (a count or size must be from 1"},
        {"tiny-llama", {{"rms_norm_eps", "x"}}, "rms_norm_eps = \"x\" (a number expected)"},
        {"tiny-llama", {{"tie_word_embeddings", "yes"}}, "tie_word_embeddings = \"yes\" (true or false expected)"},
        {"tiny-gemma2", {{"layer_types", "sliding_attention"}}, "layer_types = \"sliding_attention\" (a list"},
    };
    int k = 0;
    for (const auto& c : cases) {
        const auto msg = patchedConfigError(c.model, "typed-config-" + std::to_string(k++), c.patch);
        EXPECT_NE(msg.find(c.expected), std::string::npos) << c.patch.dump() << ": " << msg;
    }
    // null keeps meaning "none" (set directly: a merge patch's null removes the key)
    const auto d = copyOf("tiny-mistral", "typed-config-null-window");
    auto cfg = readJson(d / "config.json");
    cfg["sliding_window"] = nullptr;
    writeBytes(d / "config.json", cfg.dump());
    EXPECT_EQ(loadError(d), "(no ModelError)");
}

// deepseek_v2/v3 settings whose computation is not transformers' (or is ambiguous) are refused naming the key.
TEST(LoadErrors, DeepseekRefusalsNameTheKey)
{
    struct Case {
        const char* model;
        const char* key;
        nlohmann::json value;
        const char* expected;
    };
    const Case cases[] = {
        {"tiny-deepseek_v2", "moe_layer_freq", 2, "moe_layer_freq = 2"},
        {"tiny-deepseek_v2", "num_key_value_heads", 2, "num_key_value_heads = 2"},
        {"tiny-deepseek_v2", "topk_method", "noaux_tc", "topk_method = \"noaux_tc\""},
        {"tiny-deepseek_v2", "norm_topk_prob", true, "norm_topk_prob = true"},
        {"tiny-deepseek_v3", "n_group", 3, "n_group = 3"},
        {"tiny-deepseek_v3", "n_group", 8, "n_group = 8"}, // 8 experts: groups of 1 have no top-2
        {"tiny-deepseek_v3", "rope_parameters",
         nlohmann::json{{"rope_type", "yarn"}, {"rope_theta", 10000.0}, {"mscale_all_dim", 1.0}},
         "needs rope_parameters.factor"},
    };
    int k = 0;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.key);
        const auto d = copyOf(c.model, "deepseek-refusal-" + std::to_string(k++));
        auto cfg = readJson(d / "config.json");
        cfg[c.key] = c.value;
        writeBytes(d / "config.json", cfg.dump());
        const auto msg = loadError(d);
        EXPECT_NE(msg.find(c.expected), std::string::npos) << msg;
        EXPECT_NE(msg.find("config.json"), std::string::npos) << msg;
    }
}

TEST(LoadErrors, TruncatedSafetensors)
{
    const auto d = copyOf("tiny-gpt2", "truncated");
    const auto bytes = readBytes(d / "model.safetensors");
    writeBytes(d / "model.safetensors", bytes.substr(0, bytes.size() / 2));
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    EXPECT_NE(msg.find("model.safetensors"), std::string::npos) << msg;
}

TEST(LoadErrors, HeaderLengthBeyondFile)
{
    const auto d = copyOf("tiny-gpt2", "badheader");
    std::string bytes = readBytes(d / "model.safetensors");
    bytes[6] = '\x01'; // header length now ~2^48
    writeBytes(d / "model.safetensors", bytes);
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("header claims"), std::string::npos) << msg;
}

TEST(LoadErrors, WrongShapeNamesTensor)
{
    const auto d = copyOf("tiny-gpt2", "wrongshape");
    std::string bytes = readBytes(d / "model.safetensors");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
    auto header = nlohmann::json::parse(bytes.substr(8, n));
    auto& e = header["transformer.ln_f.weight"];
    const auto begin = e["data_offsets"][0].get<uint64_t>();
    // 16 float64 values in the same 128 bytes: a well-formed file (no gap, as the safetensors library requires) whose
    // tensor has another shape than the config implies.
    e["shape"] = {16};
    e["dtype"] = "F64";
    e["data_offsets"] = {begin, begin + 128};
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[static_cast<std::size_t>(i)] = static_cast<char>((h.size() >> (8 * i)) & 0xFF);
    writeBytes(d / "model.safetensors", out + h + bytes.substr(8 + n));
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("transformer.ln_f.weight"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[16]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[32]"), std::string::npos) << msg;
}

TEST(LoadErrors, MissingShard)
{
    const auto d = copyOf("tiny-gpt2-sharded", "missingshard");
    fs::remove(d / "model-00002-of-00003.safetensors");
    const auto msg = loadError(d);
    EXPECT_NE(msg.find("model-00002-of-00003.safetensors"), std::string::npos) << msg;
    EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

TEST(LoadErrors, TooBigForTheDevice)
{
    auto o = cpuFloat32();
    o.maxWeightBytes = 100000; // tiny-gpt2 needs 95104 parameters x 4 bytes (+ the ignored lm_head copy)
    const auto msg = loadError(fixtureModel("tiny-gpt2"), o);
    EXPECT_NE(msg.find("needs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("available"), std::string::npos) << msg;
}

TEST(LoadErrors, CudaWithoutCudaIsClear)
{
    if (ascviz::cudaAvailable()) {
        SUCCEED() << "CUDA is available here; the error path does not apply";
        return;
    }
    auto o = cpuFloat32();
    o.device = ascviz::Device::Cuda;
    const auto msg = loadError(fixtureModel("tiny-gpt2"), o);
    EXPECT_NE(msg.find("CUDA is not available"), std::string::npos) << msg;
}

TEST(Load, Bfloat16OnCpuIsClose)
{
    auto o = cpuFloat32();
    o.dtype = ascviz::Dtype::Bfloat16;
    auto m = ascviz::LanguageModel::load(fixtureModel("tiny-llama"), o);
    EXPECT_EQ(m->info().dtype, "bfloat16");
    const auto c = readJson(fixtureModel("tiny-llama") / "reference.json").at("cases").at(0);
    const auto got = m->scoreIds({ids(c.at("input_ids"))}).front();
    double ce = 0;
    for (std::size_t i = 1; i < got.size(); ++i)
        ce -= std::log(*got[i]);
    ce /= static_cast<double>(got.size() - 1);
    EXPECT_NEAR(ce, c.at("cross_entropy").get<double>(), 0.1) << "bfloat16 keeps the mean loss within 0.1 nats";
}

} // namespace
