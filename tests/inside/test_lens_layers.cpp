// AsC-Eval per layer (lens/layers.h) and the layer matrix (lens/matrix.h) on hand-made NtP_ℓ: node values by the
// same δ and θ as AsC-Eval, the first layer reaching a fraction, Table I's category rule at every layer, JSON and
// LaTeX.
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/lens/layers.h"
#include "ascviz/lens/matrix.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using ascviz::BootstrapResult;

// "x = 1\n" in four tokens: "x" (no prediction), " =", " 1", "\n"; NtP_ℓ for L = 2.
const std::vector<std::vector<double>> kLayers = {{}, {0.1, 0.2, 0.3}, {0.5, 0.6, 0.9}, {0.2, 0.2, 0.4}};

ascviz::EvalResult evalFixture()
{
    ascviz::ScoredText s;
    s.model = "hand";
    s.text = "x = 1\n";
    const std::vector<std::pair<std::size_t, std::size_t>> spans = {{0, 1}, {1, 3}, {3, 5}, {5, 6}};
    for (std::size_t i = 0; i < spans.size(); ++i) {
        ascviz::ScoredToken t;
        t.id = static_cast<int32_t>(i);
        t.start = spans[i].first;
        t.end = spans[i].second;
        if (!kLayers[i].empty())
            t.ntp = kLayers[i].back();
        s.tokens.push_back(t);
    }
    s.promptBytes = s.text.size();
    s.promptTokens = s.tokens.size();
    return ascviz::evaluate(s, "python", ascviz::Aggregation::Median, ascviz::CategoryMap::forLanguage("python"));
}

int nodeOf(const ascviz::EvalResult& r, const std::string& type)
{
    for (const auto& n : r.tree.nodes())
        if (n.type == type)
            return n.id;
    return -1;
}

TEST(LayerEval, NodesAggregateTheirTokensAtEveryLayer)
{
    const auto r = evalFixture();
    const auto e = ascviz::evaluateLayers(r, kLayers, 2);
    ASSERT_EQ(e.nodes.size(), r.nodes.size());
    const auto row = [&](const std::string& type) { return e.nodes[static_cast<std::size_t>(nodeOf(r, type))]; };
    // integer "1" [4, 5): token " 1" only
    EXPECT_EQ(row("integer"), (std::vector<std::optional<double>>{0.5, 0.6, 0.9}));
    // identifier "x": only the first token, which has no prediction: n/a at every layer
    EXPECT_EQ(row("identifier"), (std::vector<std::optional<double>>{std::nullopt, std::nullopt, std::nullopt}));
    // assignment [0, 5): tokens 1 and 2 scored: medians (0.1+0.5)/2, (0.2+0.6)/2, (0.3+0.9)/2
    const auto a = row("assignment");
    EXPECT_NEAR(*a[0], 0.3, 1e-12);
    EXPECT_NEAR(*a[1], 0.4, 1e-12);
    EXPECT_NEAR(*a[2], 0.6, 1e-12);
    // module [0, 6): tokens 1, 2, 3: medians 0.2, 0.2, 0.4
    const auto m = row("module");
    EXPECT_NEAR(*m[0], 0.2, 1e-12);
    EXPECT_NEAR(*m[1], 0.2, 1e-12);
    EXPECT_NEAR(*m[2], 0.4, 1e-12);
    // the last layer is AsC-Eval itself
    for (std::size_t k = 0; k < r.nodes.size(); ++k)
        EXPECT_EQ(e.nodes[k].back(), r.nodes[k].value) << r.tree.nodes()[k].type;

    nlohmann::json j = {{"tokens", nlohmann::json::array({{}, {}, {}, {}})}, {"nodes", nlohmann::json::array()}};
    for (std::size_t k = 0; k < r.nodes.size(); ++k)
        j["nodes"].push_back(nlohmann::json::object());
    ascviz::addLayerFields(j, kLayers, e);
    EXPECT_EQ(j["layers"], 2);
    EXPECT_TRUE(j["tokens"][0]["ntp_layers"].is_null());
    EXPECT_EQ(j["tokens"][2]["ntp_layers"], nlohmann::json({0.5, 0.6, 0.9}));
    EXPECT_TRUE(j["nodes"][static_cast<std::size_t>(nodeOf(r, "identifier"))]["asc_eval_layers"][1].is_null());
}

TEST(LayerEval, MismatchedLensIsRefused)
{
    const auto r = evalFixture();
    EXPECT_THROW(ascviz::evaluateLayers(r, {{}, {0.1, 0.2, 0.3}}, 2), ascviz::InputError);
    EXPECT_THROW(ascviz::evaluateLayers(r, {{}, {0.1, 0.2}, {0.5, 0.6}, {0.2, 0.2}}, 2), ascviz::InputError);
}

TEST(LayerMatrix, FirstLayerReachingAFraction)
{
    const auto v = [](double m) { return std::optional<BootstrapResult>(BootstrapResult{m, 0, m, m, 5}); };
    const std::vector<std::optional<BootstrapResult>> rising = {v(0.1), v(0.5), v(0.85), v(0.9), v(1.0)};
    EXPECT_EQ(ascviz::firstLayerReaching(rising, 0.9), 3);  // 0.9 >= 0.9 x 1.0
    EXPECT_EQ(ascviz::firstLayerReaching(rising, 0.85), 2); // 0.85 >= 0.85
    EXPECT_EQ(ascviz::firstLayerReaching(rising, 0.05), 0);
    EXPECT_EQ(ascviz::firstLayerReaching({v(0.2), std::nullopt}, 0.9), std::nullopt);
    EXPECT_EQ(ascviz::firstLayerReaching({std::nullopt, v(0.3), v(0.2)}, 1.0), 1);
}

TEST(LayerMatrix, CategoriesPerLayerFollowTableI)
{
    const auto r = evalFixture();
    const auto e = ascviz::evaluateLayers(r, kLayers, 2);
    ascviz::LayerMatrixBuilder b("hand", 2, ascviz::CategoryMap::forLanguage("python").categories());
    b.add(r, e);
    b.add(r, e);
    ascviz::BootstrapOptions o;
    o.resamples = 50;
    const auto m = b.finish(o, 0.9);
    EXPECT_EQ(m.snippets, 2);
    EXPECT_EQ(m.layers, 2);
    // Types = {integer}: its pooled values are 0.5 twice at layer 0 ... so every resample median is exact.
    const ascviz::LayerMatrixRow* types = nullptr;
    for (const auto& row : m.categories)
        if (row.name == "Types")
            types = &row;
    ASSERT_NE(types, nullptr);
    ASSERT_EQ(types->values.size(), 3u);
    EXPECT_DOUBLE_EQ(types->values[0]->median, 0.5);
    EXPECT_DOUBLE_EQ(types->values[1]->median, 0.6);
    EXPECT_DOUBLE_EQ(types->values[2]->median, 0.9);
    EXPECT_EQ(types->values[2]->n, 2);
    EXPECT_EQ(types->reaches, 2); // 0.6 < 0.81 <= 0.9
    // Natural Language = {identifier}: n/a everywhere, so no row
    for (const auto& row : m.categories)
        EXPECT_NE(row.name, "Natural Language");
    // Global = mean of the categorized concepts' medians (integer only)
    EXPECT_DOUBLE_EQ(*m.global[1], 0.6);

    const auto j = ascviz::layerMatrixJson(m);
    EXPECT_EQ(j["categories"]["Types"]["median"], nlohmann::json({0.5, 0.6, 0.9}));
    EXPECT_EQ(j["categories"]["Types"]["reaches"], 2);
    EXPECT_EQ(j["concepts"]["integer"]["category"], "Types");
    const std::string tex = ascviz::layerMatrixLatex(m);
    EXPECT_NE(tex.find("Types & 0.50 & 0.60 & 0.90 & 2 & -- \\\\"), std::string::npos) << tex; // no commitment given
    EXPECT_NE(tex.find("\\bottomrule"), std::string::npos);
    const auto [heatRows, heatCols] = ascviz::layerMatrixHeatmap(m);
    const std::string svg = ascviz::renderHeatmapSvg(heatRows, heatCols, ascviz::layerMatrixTitle(m));
    EXPECT_NE(svg.find(">L2<"), std::string::npos);
    EXPECT_NE(svg.find(">Types<"), std::string::npos);
    EXPECT_NE(svg.find(">0.90<"), std::string::npos) << "the Types cell at L2";
}

// method.md §14.3 on a made-up lens: per token, the logits of a 4-id vocabulary at layers 0 … 3; the top-1 of each
// layer is read off by hand, then the commitment layer.
TEST(CommitLayer, FirstLayerFromWhichTheTopOneStaysTheFinalOne)
{
    using Row = std::vector<std::vector<double>>; // [ℓ][id]
    auto argmax = [](const std::vector<double>& v) {
        return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin()); // the first maximum
    };
    auto top1 = [&](const Row& r) {
        std::vector<int32_t> out;
        for (const auto& l : r)
            out.push_back(argmax(l));
        return out;
    };
    // top-1 per layer 2, 1, 1, 1: committed at layer 1
    const Row a = {{0, 1, 3, 0}, {0, 5, 1, 0}, {0, 2, 1, 1}, {-1, 9, 0, 0}};
    EXPECT_EQ(top1(a), (std::vector<int32_t>{2, 1, 1, 1}));
    EXPECT_EQ(ascviz::commitLayer(top1(a)), 1);
    // top-1 3, 0, 3, 3: layer 0 agrees with the final one but layer 1 does not, so it commits at 2
    const Row b = {{0, 0, 0, 4}, {2, 1, 0, 0}, {0, 0, 1, 2}, {0, 0, 0, 1}};
    EXPECT_EQ(ascviz::commitLayer(top1(b)), 2);
    // only the last layer has it: L = 3
    const Row c = {{1, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    EXPECT_EQ(ascviz::commitLayer(top1(c)), 3);
    // the embeddings already predict it: 0; a tie takes the first maximum (id 0 at every layer)
    const Row d = {{2, 2, 0, 0}, {3, 3, 3, 3}, {1, 1, 0, 0}, {5, 0, 5, 0}};
    EXPECT_EQ(top1(d), (std::vector<int32_t>{0, 0, 0, 0}));
    EXPECT_EQ(ascviz::commitLayer(top1(d)), 0);
    // no prediction: none
    EXPECT_EQ(ascviz::commitLayer({}), std::nullopt);
    EXPECT_EQ(ascviz::commitLayer({7}), 0); // L = 0
}

// Tokens of evalFixture commit at: - (no prediction), 2, 0, 1.
const std::vector<std::optional<int>> kCommit = {std::nullopt, 2, 0, 1};

TEST(CommitLayer, NodesTakeTheMedianOfTheirTokens)
{
    const auto r = evalFixture();
    const auto e = ascviz::evaluateLayers(r, kLayers, 2, kCommit);
    ASSERT_EQ(e.commit.size(), r.nodes.size());
    EXPECT_EQ(e.tokenCommit, kCommit);
    const auto commit = [&](const std::string& type) { return e.commit[static_cast<std::size_t>(nodeOf(r, type))]; };
    EXPECT_EQ(commit("integer"), 0.0);    // token " 1"
    EXPECT_EQ(commit("assignment"), 1.0); // tokens 1, 2: (2 + 0) / 2
    EXPECT_EQ(commit("module"), 1.0);     // tokens 1, 2, 3: median of 2, 0, 1
    EXPECT_EQ(commit("identifier"), std::nullopt);
    // without the tokens' commitment layers, none
    EXPECT_TRUE(ascviz::evaluateLayers(r, kLayers, 2).commit.empty());

    nlohmann::json j = {{"tokens", nlohmann::json::array({{}, {}, {}, {}})}, {"nodes", nlohmann::json::array()}};
    for (std::size_t k = 0; k < r.nodes.size(); ++k)
        j["nodes"].push_back(nlohmann::json::object());
    ascviz::addLayerFields(j, kLayers, e);
    EXPECT_TRUE(j["tokens"][0]["commit_layer"].is_null());
    EXPECT_EQ(j["tokens"][1]["commit_layer"], 2);
    EXPECT_EQ(j["tokens"][2]["commit_layer"], 0);
    EXPECT_EQ(j["nodes"][static_cast<std::size_t>(nodeOf(r, "assignment"))]["asc_commit"], 1.0);
    EXPECT_TRUE(j["nodes"][static_cast<std::size_t>(nodeOf(r, "identifier"))]["asc_commit"].is_null());

    EXPECT_THROW(ascviz::evaluateLayers(r, kLayers, 2, {std::nullopt, 1}), ascviz::InputError);
    EXPECT_THROW(ascviz::evaluateLayers(r, kLayers, 2, {std::nullopt, 3, 0, 0}), ascviz::InputError); // > L
}

TEST(CommitLayer, MatrixRowsPoolTheirNodes)
{
    const auto r = evalFixture();
    ascviz::LayerMatrixBuilder b("hand", 2, ascviz::CategoryMap::forLanguage("python").categories());
    b.add(r, ascviz::evaluateLayers(r, kLayers, 2, kCommit));
    b.add(r, ascviz::evaluateLayers(r, kLayers, 2, {std::nullopt, 2, 2, 2}));
    ascviz::BootstrapOptions o;
    o.resamples = 20;
    const auto m = b.finish(o, 0.9);
    const ascviz::LayerMatrixRow* types = nullptr;
    for (const auto& row : m.categories)
        if (row.name == "Types")
            types = &row;
    ASSERT_NE(types, nullptr);
    EXPECT_EQ(types->commit, 1.0); // integer: 0 and 2
    EXPECT_EQ(types->commitN, 2);
    const auto j = ascviz::layerMatrixJson(m);
    EXPECT_EQ(j["categories"]["Types"]["commit"], 1.0);
    EXPECT_EQ(j["concepts"]["integer"]["commit"], 1.0);
    EXPECT_EQ(j["concepts"]["module"]["commit"], 1.5); // 1 and 2
    EXPECT_EQ(j["concepts"]["module"]["commit_n"], 2);
    ASSERT_TRUE(m.globalCommit.has_value());
    const std::string tex = ascviz::layerMatrixLatex(m);
    EXPECT_NE(tex.find("Types & 0.50 & 0.60 & 0.90 & 2 & 1.0 \\\\"), std::string::npos) << tex;
}

} // namespace
