// The named-intermediates observer (ascviz/model/observer.h) on the tiny fixture checkpoints: which names come
// with which shapes, causal attention rows that sum to 1, logits that reproduce score()'s NtP, embeddings and
// final norm recomputed from the checkpoint's weights, batches and windows cut per sequence, and an observer
// that wants nothing getting nothing.
#include "model_test_util.h"

#include "ascviz/model/observer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <string_view>

using namespace modeltest;
namespace im = ascviz::intermediate;

namespace {

struct Recorded {
    std::string name;
    int layer = -1;
    std::size_t sequence = 0;
    int64_t position = 0;
    std::vector<int64_t> shape;
    std::vector<float> data;

    // Element [i][j] of a 2-D value, [h][i][j] of a 3-D one.
    float at(int64_t i, int64_t j) const { return data[static_cast<std::size_t>(i * shape.back() + j)]; }
    float at(int64_t h, int64_t i, int64_t j) const
    {
        return data[static_cast<std::size_t>((h * shape[1] + i) * shape[2] + j)];
    }
};

// Keeps a copy of everything it is given; `filter` (default: everything) answers wants().
class Recorder : public ascviz::IntermediateObserver {
public:
    std::function<bool(std::string_view, int)> filter;
    mutable int asked = 0;
    std::vector<Recorded> seen;

    bool wants(std::string_view name, int layer) const override
    {
        ++asked;
        return !filter || filter(name, layer);
    }
    void observe(const ascviz::Intermediate& v) override
    {
        seen.push_back({std::string(v.name), v.layer, v.sequence, v.position, v.shape, {v.data.begin(), v.data.end()}});
    }

    std::vector<const Recorded*> all(std::string_view name, int layer) const
    {
        std::vector<const Recorded*> out;
        for (const auto& r : seen)
            if (r.name == name && r.layer == layer)
                out.push_back(&r);
        return out;
    }
    // The one value of a name and layer (fails the test and returns an empty one otherwise).
    const Recorded& one(std::string_view name, int layer) const
    {
        static const Recorded none;
        const auto v = all(name, layer);
        EXPECT_EQ(v.size(), 1u) << name << " layer " << layer;
        return v.size() == 1 ? *v.front() : none;
    }
};

ascviz::ScoreOptions observedBy(Recorder& r)
{
    ascviz::ScoreOptions o;
    o.observer = &r;
    return o;
}

std::string referenceText(const std::string& model, std::size_t k)
{
    return readJson(fixtureModel(model) / "reference.json").at("cases").at(k).at("text").get<std::string>();
}

int64_t headsOf(const std::string& model)
{
    const auto c = readJson(fixtureModel(model) / "config.json");
    for (const char* k : {"n_head", "num_attention_heads", "num_heads"})
        if (c.contains(k))
            return c.at(k).get<int64_t>();
    return 0;
}

// The model's input ids of a scored text: BOS where the tokenizer adds one, then the text's tokens.
std::vector<int32_t> inputIds(const ascviz::LanguageModel& m, const ascviz::ScoredText& s)
{
    std::vector<int32_t> ids;
    if (m.tokenizer().addsBos())
        ids.push_back(*m.tokenizer().bosId());
    for (const auto& t : s.tokens)
        ids.push_back(t.id);
    return ids;
}

// Probability of `id` under the softmax of row `row` of a [T, vocab] value, in double.
double softmaxAt(const Recorded& logits, int64_t row, int32_t id)
{
    const int64_t V = logits.shape[1];
    double mx = -1e300, sum = 0;
    for (int64_t v = 0; v < V; ++v)
        mx = std::max(mx, static_cast<double>(logits.at(row, v)));
    for (int64_t v = 0; v < V; ++v)
        sum += std::exp(logits.at(row, v) - mx);
    return std::exp(logits.at(row, id) - mx) / sum;
}

// Every position p >= 1 of `ids` whose NtP the score gives, checked against softmax(logits row p - 1 - position).
void expectLogitsGiveNtp(const Recorded& logits, const std::vector<int32_t>& ids, const ascviz::ScoredText& s,
                         std::size_t prefix, int64_t from, int64_t end, double tol)
{
    for (int64_t p = std::max<int64_t>(from, 1); p < end; ++p) {
        const auto& tok = s.tokens[static_cast<std::size_t>(p) - prefix];
        ASSERT_TRUE(tok.ntp.has_value()) << "position " << p;
        EXPECT_NEAR(softmaxAt(logits, p - 1 - logits.position, ids[static_cast<std::size_t>(p)]), *tok.ntp, tol)
            << "position " << p;
    }
}

class PerArch : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override { m_model = ascviz::LanguageModel::load(fixtureModel(GetParam()), cpuFloat32()); }
    const ascviz::LanguageModel& model() const { return *m_model; }

private:
    std::unique_ptr<ascviz::LanguageModel> m_model;
};

TEST_P(PerArch, EveryNameOnceWithItsShape)
{
    const auto& m = model();
    Recorder rec;
    const auto s = m.score(referenceText(GetParam(), 0), observedBy(rec));
    const auto T = static_cast<int64_t>(inputIds(m, s).size());
    const int64_t H = m.info().hidden, V = m.info().vocabSize, heads = headsOf(GetParam());
    const int L = m.info().layers;
    ASSERT_GT(T, 10);
    // Mixtures of experts also deliver their routing (kExperts [T, 2, k]) after the attention of each sparse layer.
    const auto& sparse = m.info().expertLayers;
    const auto isSparse = [&](int l) { return std::find(sparse.begin(), sparse.end(), l) != sparse.end(); };
    ASSERT_EQ(rec.seen.size(), static_cast<std::size_t>(3 + 2 * L) + sparse.size())
        << "embeddings, final_norm, logits + 2 per layer (+ experts per sparse layer)";
    for (int l : sparse) {
        EXPECT_EQ(rec.one(im::kExperts, l).shape, (std::vector<int64_t>{T, 2, m.info().expertsPerToken}));
        const auto& d = rec.one(im::kExperts, l).data;
        for (int64_t t = 0; t < T; ++t)
            for (int64_t k = 0; k < m.info().expertsPerToken; ++k) {
                const float id = d[static_cast<std::size_t>(t * 2 * m.info().expertsPerToken + k)];
                EXPECT_TRUE(id >= 0 && id < static_cast<float>(m.info().experts) && id == std::floor(id)) << id;
            }
    }
    EXPECT_EQ(rec.one(im::kEmbeddings, -1).shape, (std::vector<int64_t>{T, H}));
    for (int l = 0; l < L; ++l) {
        EXPECT_EQ(rec.one(im::kHidden, l).shape, (std::vector<int64_t>{T, H})) << "layer " << l;
        EXPECT_EQ(rec.one(im::kAttention, l).shape, (std::vector<int64_t>{heads, T, T})) << "layer " << l;
    }
    EXPECT_EQ(rec.one(im::kFinalNorm, -1).shape, (std::vector<int64_t>{T, H}));
    EXPECT_EQ(rec.one(im::kLogits, -1).shape, (std::vector<int64_t>{T, V}));
    for (const auto& r : rec.seen) {
        EXPECT_EQ(r.sequence, 0u) << r.name;
        EXPECT_EQ(r.position, 0) << r.name;
        const auto n = std::accumulate(r.shape.begin(), r.shape.end(), int64_t(1), std::multiplies<>());
        ASSERT_EQ(static_cast<int64_t>(r.data.size()), n) << r.name;
        EXPECT_TRUE(std::all_of(r.data.begin(), r.data.end(), [](float x) { return std::isfinite(x); })) << r.name;
    }
    // Forward order: embeddings; per layer attention then hidden; final_norm; logits.
    std::vector<std::string> order;
    for (const auto& r : rec.seen)
        order.push_back(r.name + (r.layer >= 0 ? std::to_string(r.layer) : ""));
    std::vector<std::string> want = {"embeddings"};
    for (int l = 0; l < L; ++l) {
        want.push_back("attention" + std::to_string(l));
        if (isSparse(l))
            want.push_back("experts" + std::to_string(l));
        want.push_back("hidden" + std::to_string(l));
    }
    want.insert(want.end(), {"final_norm", "logits"});
    EXPECT_EQ(order, want);
    // The residual stream changes through every block.
    EXPECT_NE(rec.one(im::kHidden, 0).data, rec.one(im::kEmbeddings, -1).data);
    EXPECT_NE(rec.one(im::kHidden, L - 1).data, rec.one(im::kHidden, 0).data);
}

TEST_P(PerArch, AttentionIsCausalAndRowsSumToOne)
{
    const auto& m = model();
    Recorder rec;
    rec.filter = [](std::string_view name, int) { return name == im::kAttention; };
    m.score(referenceText(GetParam(), 1), observedBy(rec));
    // GPT-Neo's local layers see only the last window_size keys.
    const auto config = readJson(fixtureModel(GetParam()) / "config.json");
    std::vector<int64_t> window(static_cast<std::size_t>(m.info().layers), 0);
    if (config.contains("attention_layers"))
        for (std::size_t l = 0; l < window.size(); ++l)
            if (config.at("attention_layers").at(l) == "local")
                window[l] = config.at("window_size").get<int64_t>();
    // Attention sinks (gpt_oss, docs/architectures.md): the sink's share of each softmax is dropped, as
    // transformers' eager attention reports it, so a row sums to 1 − p(sink), in (0, 1].
    const bool sinks = config.value("model_type", std::string()) == "gpt_oss";
    ASSERT_EQ(rec.seen.size(), static_cast<std::size_t>(m.info().layers));
    for (int l = 0; l < m.info().layers; ++l) {
        const auto& a = rec.one(im::kAttention, l);
        ASSERT_EQ(a.shape.size(), 3u);
        const int64_t T = a.shape[1];
        const int64_t w = window[static_cast<std::size_t>(l)];
        bool spread = false; // some query attends to more than one key
        for (int64_t h = 0; h < a.shape[0]; ++h)
            for (int64_t q = 0; q < T; ++q) {
                double sum = 0;
                for (int64_t k = 0; k < T; ++k) {
                    const float p = a.at(h, q, k);
                    EXPECT_GE(p, 0.0f);
                    if (k > q || (w > 0 && q - k >= w)) {
                        ASSERT_EQ(p, 0.0f) << "layer " << l << " head " << h << " query " << q << " key " << k;
                    }
                    sum += p;
                    spread |= p > 0.0f && p < 0.999f;
                }
                if (sinks) {
                    EXPECT_GT(sum, 0.0) << "layer " << l << " head " << h << " query " << q;
                    EXPECT_LT(sum, 1.0) << "the sink takes a share: layer " << l << " head " << h << " query " << q;
                } else {
                    ASSERT_NEAR(sum, 1.0, 1e-5) << "layer " << l << " head " << h << " query " << q;
                }
            }
        EXPECT_TRUE(spread) << "layer " << l;
        if (sinks)
            EXPECT_LT(a.at(0, 0, 0), 1.0f) << "the first query shares its softmax with the sink only";
        else
            EXPECT_FLOAT_EQ(a.at(0, 0, 0), 1.0f) << "the first query sees only itself";
    }
}

TEST_P(PerArch, LogitsReproduceScoredNtp)
{
    const auto& m = model();
    Recorder rec;
    rec.filter = [](std::string_view name, int) { return name == im::kLogits; };
    const auto s = m.score(referenceText(GetParam(), 0), observedBy(rec));
    const auto ids = inputIds(m, s);
    const auto& logits = rec.one(im::kLogits, -1);
    ASSERT_EQ(logits.shape, (std::vector<int64_t>{static_cast<int64_t>(ids.size()), m.info().vocabSize}));
    const std::size_t prefix = ids.size() - s.tokens.size();
    expectLogitsGiveNtp(logits, ids, s, prefix, static_cast<int64_t>(prefix), static_cast<int64_t>(ids.size()), 1e-5);
    // The most likely alternative is the row's maximum; the rows are logits() of the same ids.
    const auto& t = s.tokens.back();
    ASSERT_FALSE(t.top.empty());
    const int64_t row = static_cast<int64_t>(ids.size()) - 2, V = logits.shape[1];
    const float* r = logits.data.data() + row * V;
    EXPECT_EQ(t.top.front().id, static_cast<int32_t>(std::max_element(r, r + V) - r));
    const auto direct = m.logits(ids);
    ASSERT_EQ(direct.size(), logits.data.size());
    for (std::size_t i = 0; i < direct.size(); ++i)
        ASSERT_NEAR(logits.data[i], direct[i], 1e-4) << "element " << i;
}

TEST_P(PerArch, ObservingLeavesScoresUnchanged)
{
    const auto& m = model();
    const std::string text = referenceText(GetParam(), 1);
    const auto plain = m.score(text);
    Recorder rec;
    const auto observed = m.score(text, observedBy(rec));
    ASSERT_FALSE(rec.seen.empty());
    ASSERT_EQ(observed.tokens.size(), plain.tokens.size());
    for (std::size_t j = 0; j < plain.tokens.size(); ++j) {
        ASSERT_EQ(observed.tokens[j].ntp.has_value(), plain.tokens[j].ntp.has_value());
        if (plain.tokens[j].ntp) {
            EXPECT_NEAR(*observed.tokens[j].ntp, *plain.tokens[j].ntp, 1e-6) << "token " << j;
        }
    }
}

TEST_P(PerArch, WantingNothingYieldsNothing)
{
    const auto& m = model();
    Recorder rec;
    rec.filter = [](std::string_view, int) { return false; };
    const auto s = m.scoreBatch({referenceText(GetParam(), 0), referenceText(GetParam(), 1)}, observedBy(rec));
    EXPECT_TRUE(rec.seen.empty());
    EXPECT_EQ(rec.asked, 3 + 3 * m.info().layers) << "wants() is asked once per name and layer per call";
    ASSERT_EQ(s.size(), 2u);
    EXPECT_FALSE(s[1].tokens.empty());
}

TEST_P(PerArch, OnlyWhatIsWanted)
{
    const auto& m = model();
    const int last = m.info().layers - 1;
    Recorder rec;
    rec.filter = [&](std::string_view name, int layer) {
        return (name == im::kAttention && layer == last) || (name == im::kHidden && layer == 0);
    };
    m.score(referenceText(GetParam(), 0), observedBy(rec));
    ASSERT_EQ(rec.seen.size(), 2u);
    EXPECT_EQ(rec.seen[0].name, "hidden");
    EXPECT_EQ(rec.seen[0].layer, 0);
    EXPECT_EQ(rec.seen[1].name, "attention");
    EXPECT_EQ(rec.seen[1].layer, last);
}

// Every architecture tests/data/fixtures/models/index.json lists.
std::vector<std::string> fixtureFolders()
{
    std::vector<std::string> out;
    for (const auto& arch : ascviz::testdata::fixtureArchitectures())
        out.push_back("tiny-" + arch);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PerArch, ::testing::ValuesIn(fixtureFolders()), [](const auto& info) {
    std::string n = info.param;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
});

// ---------- values recomputed from the checkpoint ----------

// GPT-2: embeddings = wte[id] + wpe[position]; final_norm = LayerNorm(last hidden) with ln_f.
TEST(Values, Gpt2EmbeddingsAndFinalNormFromTheWeights)
{
    const auto m = ascviz::LanguageModel::load(fixtureModel("tiny-gpt2"), cpuFloat32());
    const ascviz::model::SafetensorsFile weights(fixtureModel("tiny-gpt2") / "model.safetensors");
    const auto wte = refTensor(weights, "transformer.wte.weight");
    const auto wpe = refTensor(weights, "transformer.wpe.weight");
    const auto lnw = refTensor(weights, "transformer.ln_f.weight");
    const auto lnb = refTensor(weights, "transformer.ln_f.bias");
    const double eps = readJson(fixtureModel("tiny-gpt2") / "config.json").at("layer_norm_epsilon").get<double>();
    Recorder rec;
    rec.filter = [&](std::string_view name, int layer) {
        return name == im::kEmbeddings || name == im::kFinalNorm || (name == im::kHidden && layer == 1);
    };
    const auto s = m->score(referenceText("tiny-gpt2", 0), observedBy(rec));
    const auto ids = inputIds(*m, s);
    const auto& emb = rec.one(im::kEmbeddings, -1);
    const auto& last = rec.one(im::kHidden, 1);
    const auto& fin = rec.one(im::kFinalNorm, -1);
    const int64_t H = m->info().hidden;
    ASSERT_EQ(emb.shape, (std::vector<int64_t>{static_cast<int64_t>(ids.size()), H}));
    ASSERT_EQ(last.shape, emb.shape);
    ASSERT_EQ(fin.shape, emb.shape);
    for (int64_t t = 0; t < emb.shape[0]; ++t) {
        const auto id = static_cast<std::size_t>(ids[static_cast<std::size_t>(t)]);
        double mean = 0, var = 0;
        for (int64_t d = 0; d < H; ++d)
            mean += last.at(t, d);
        mean /= static_cast<double>(H);
        for (int64_t d = 0; d < H; ++d)
            var += (last.at(t, d) - mean) * (last.at(t, d) - mean);
        var /= static_cast<double>(H);
        for (int64_t d = 0; d < H; ++d) {
            const auto e = static_cast<std::size_t>(d), h = static_cast<std::size_t>(H);
            EXPECT_NEAR(emb.at(t, d), wte[id * h + e] + wpe[static_cast<std::size_t>(t) * h + e], 1e-6)
                << "position " << t << " dim " << d;
            EXPECT_NEAR(fin.at(t, d), (last.at(t, d) - mean) / std::sqrt(var + eps) * lnw[e] + lnb[e], 1e-4)
                << "position " << t << " dim " << d;
        }
    }
}

// ---------- batches and windows ----------

// Texts scored together come back per sequence, cut to their own length (no padding rows), with the values
// they have when scored alone.
TEST(Batches, RowsArePerSequenceWithoutPadding)
{
    const auto m = ascviz::LanguageModel::load(fixtureModel("tiny-llama"), cpuFloat32());
    const std::string longer = referenceText("tiny-llama", 1), shorter = "def add(a, b):\n    return a + b\n";
    Recorder both;
    const auto scored = m->scoreBatch({longer, shorter}, observedBy(both));
    Recorder alone;
    m->score(shorter, observedBy(alone));
    for (std::size_t seq = 0; seq < 2; ++seq) {
        const auto T = static_cast<int64_t>(inputIds(*m, scored[seq]).size());
        for (const auto& r : both.seen) {
            if (r.sequence != seq)
                continue;
            ASSERT_GE(r.shape.size(), 2u);
            EXPECT_EQ(r.position, 0);
            EXPECT_EQ(r.name == "attention" ? r.shape[1] : r.shape[0], T) << r.name << " of sequence " << seq;
            if (r.name == "attention") {
                EXPECT_EQ(r.shape[2], T);
            }
        }
    }
    ASSERT_EQ(both.seen.size(), 2 * alone.seen.size());
    for (const auto& a : alone.seen) {
        const Recorded* b = nullptr;
        for (const auto& r : both.seen)
            if (r.sequence == 1 && r.name == a.name && r.layer == a.layer)
                b = &r;
        ASSERT_NE(b, nullptr) << a.name << " " << a.layer;
        ASSERT_EQ(b->shape, a.shape) << a.name << " " << a.layer;
        for (std::size_t i = 0; i < a.data.size(); ++i)
            ASSERT_NEAR(b->data[i], a.data[i], 1e-4) << a.name << " layer " << a.layer << " element " << i;
    }
}

// A text longer than the context (128) is scored in windows of 128 tokens overlapping by 64; each window is a
// forward pass of its own, observed with its position, and the window that predicts a token gives its NtP.
TEST(Windows, EachWindowIsObservedWithItsPosition)
{
    const auto m = ascviz::LanguageModel::load(fixtureModel("tiny-gpt_neox"), cpuFloat32());
    std::string text;
    while (m->tokenizer().encode(text).ids.size() < 300)
        text += referenceText("tiny-gpt_neox", 0) + "\n" + referenceText("tiny-gpt_neox", 1) + "\n";
    Recorder rec;
    rec.filter = [](std::string_view name, int layer) {
        return name == im::kLogits || (name == im::kHidden && layer == 0);
    };
    const auto s = m->score(text, observedBy(rec));
    const auto ids = inputIds(*m, s);
    const auto n = static_cast<int64_t>(ids.size());
    const int64_t C = m->info().contextLength;
    ASSERT_GT(n, 2 * C);
    std::vector<std::pair<int64_t, int64_t>> windows; // [start, end)
    for (int64_t start = 0, done = 1; done < n; start += C / 2) {
        windows.emplace_back(start, std::min(start + C, n));
        done = windows.back().second;
    }
    auto sortedByPosition = [&](std::string_view name, int layer) {
        auto v = rec.all(name, layer);
        std::sort(v.begin(), v.end(), [](const Recorded* a, const Recorded* b) { return a->position < b->position; });
        return v;
    };
    const auto hidden = sortedByPosition(im::kHidden, 0);
    const auto logits = sortedByPosition(im::kLogits, -1);
    ASSERT_EQ(hidden.size(), windows.size());
    ASSERT_EQ(logits.size(), windows.size());
    const std::size_t prefix = ids.size() - s.tokens.size();
    int64_t done = 1;
    for (std::size_t w = 0; w < windows.size(); ++w) {
        const auto [start, end] = windows[w];
        EXPECT_EQ(hidden[w]->position, start);
        EXPECT_EQ(hidden[w]->shape, (std::vector<int64_t>{end - start, m->info().hidden}));
        EXPECT_EQ(logits[w]->position, start);
        ASSERT_EQ(logits[w]->shape, (std::vector<int64_t>{end - start, m->info().vocabSize}));
        // This window predicts the positions no earlier window did.
        expectLogitsGiveNtp(*logits[w], ids, s, prefix, done, end, 1e-5);
        done = end;
    }
}

// ---------- half precision ----------

// Values come as float32 whatever the compute dtype; attention probabilities are computed in float32.
TEST(HalfPrecision, Bfloat16ValuesAreFloat32)
{
    auto o = cpuFloat32();
    o.dtype = ascviz::Dtype::Bfloat16;
    const auto m = ascviz::LanguageModel::load(fixtureModel("tiny-qwen2"), o);
    Recorder rec;
    const auto s = m->score(referenceText("tiny-qwen2", 0), observedBy(rec));
    const auto ids = inputIds(*m, s);
    const auto T = static_cast<int64_t>(ids.size());
    ASSERT_EQ(rec.seen.size(), static_cast<std::size_t>(3 + 2 * m->info().layers));
    EXPECT_EQ(rec.one(im::kHidden, 1).shape, (std::vector<int64_t>{T, m->info().hidden}));
    const auto& a = rec.one(im::kAttention, 0);
    ASSERT_EQ(a.shape.size(), 3u);
    for (int64_t q = 0; q < T; ++q) {
        double sum = 0;
        for (int64_t k = 0; k < T; ++k) {
            sum += a.at(1, q, k);
            if (k > q) {
                ASSERT_EQ(a.at(1, q, k), 0.0f) << "query " << q << " key " << k;
            }
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "query " << q;
    }
    const std::size_t prefix = ids.size() - s.tokens.size();
    expectLogitsGiveNtp(rec.one(im::kLogits, -1), ids, s, prefix, static_cast<int64_t>(prefix), T, 1e-3);
}

} // namespace
