// The corpus layer matrix (method.md §13): per concept and per category, the bootstrapped AsC-Eval at every
// layer ℓ = 0 … L of the layer lens (§6's rules at each layer: a concept's value is the bootstrapped median of its
// pooled node values, a category's the mean of its concepts' medians), and the first layer at which each reaches
// a stated fraction of its final (ℓ = L) value: at which depth does the model know each syntax concept?
#pragma once
#include "ascviz/lens/layers.h"
#include "ascviz/render/heatmap.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

struct LayerMatrixRow {
    std::string name;
    std::optional<std::string> category;                // concepts: their category, if any
    std::vector<std::optional<BootstrapResult>> values; // ℓ = 0 … L; nullopt: no value at that layer
    std::optional<int> reaches; // first ℓ whose median is >= fraction × the median at L (nullopt: none / n/a)
    // method.md §14.3: the median of the pooled asc_commit of its nodes (nullopt: none had one), and their count.
    std::optional<double> commit;
    int commitN = 0;
};

struct LayerMatrix {
    std::string model;
    int layers = 0; // L
    int snippets = 0;
    double fraction = 0.9;
    int resamples = 0;
    uint64_t seed = 0;
    std::vector<LayerMatrixRow> categories;    // in category-table order
    std::vector<LayerMatrixRow> concepts;      // by name
    std::vector<std::optional<double>> global; // Global AsC-Eval (categorized concepts) per layer
    std::optional<double> globalCommit;        // the median asc_commit of every categorized node
    int skipped = 0;                           // texts left out (layerMatrixOfTexts: past the AST limits)
};

// The first ℓ with values[ℓ].median >= fraction × values[L].median (nullopt when the final value is missing).
std::optional<int> firstLayerReaching(const std::vector<std::optional<BootstrapResult>>& values, double fraction);

// Pools the node values of evaluated snippets per layer.
class LayerMatrixBuilder {
public:
    LayerMatrixBuilder(std::string model, int layers, std::vector<std::string> categoryOrder);
    // One snippet: its evaluation (categories from r.nodes) and its per-layer values (evaluateLayers of r).
    void add(const EvalResult& r, const LayerEval& layers);
    int snippets() const { return m_snippets; }
    LayerMatrix finish(const BootstrapOptions& opts, double fraction) const;

private:
    std::string m_model;
    int m_layers;
    std::vector<std::string> m_categoryOrder;
    std::vector<ResultsDb::NodeValues> m_values; // per ℓ
    ResultsDb::NodeValues m_commit;              // asc_commit per concept and category
    int m_snippets = 0;
};

struct LayerText {
    std::string code;
    std::string language; // a registry id; its bundled category table is used
};

struct LayerRunOptions {
    Aggregation aggregation = Aggregation::Median;
    BootstrapOptions bootstrap;
    double fraction = 0.9;
    const CancelFlag* cancel = nullptr;                                     // polled between texts (Cancelled)
    std::function<void(std::size_t done, std::size_t total)> progress;      // after each text
    std::function<void(std::size_t index, const std::string& why)> skipped; // a text left out, and why
};

// The layer lens on every text (model/lens.h; a text longer than the context windowed as in scoring), AsC-Eval per
// layer, pooled into the matrix. A text past the AST limits is left out (an InputError of that text; counted in
// `skipped`). InputError when no text is left.
LayerMatrix layerMatrixOfTexts(const LanguageModel& model, const std::vector<LayerText>& texts,
                               const LayerRunOptions& opts = {});

// The texts `analyze layers --db` evaluates: a results database's status-ok snippets, each in its snippet's language
// (else the run's), with the run's model folder and θ (the defaults of the analysis).
struct ResultsLayerTexts {
    std::vector<LayerText> texts;
    std::string modelDir;
    Aggregation aggregation = Aggregation::Median;
};
ResultsLayerTexts layerTextsOfResults(const std::filesystem::path& db);

// The document of `analyze layers --json` (the CLI and Python): layerMatrixJson plus "skipped" (m.skipped) and
// "aggregation".
nlohmann::json layerAnalysisJson(const LayerMatrix& m, Aggregation aggregation);

// {"model", "layers", "snippets", "fraction", "resamples", "seed", "global": [..],
//  "categories": {name: {"median": [..], "se": [..], "n": [..], "reaches": ℓ|null, "commit": median asc_commit|null,
//  "commit_n": nodes}}, "concepts": {same + "category"}, "global_commit"} — per-layer arrays, null where a layer has
//  no value.
nlohmann::json layerMatrixJson(const LayerMatrix& m);
// A booktabs table: one row per category (and Global), one column per layer, plus the layer that reaches the
// fraction and the median commitment layer.
std::string layerMatrixLatex(const LayerMatrix& m);
// The category × layer heat map's data: rows the categories and Global, one column per layer ("emb", "L1" …),
// each category cell with its pooled count (heat-map cells over fewer than the minimum count are marked).
std::pair<std::vector<std::string>, std::vector<HeatmapColumn>> layerMatrixHeatmap(const LayerMatrix& m);
// The category × layer heat map's title ("AsC-Eval by category and layer (MODEL)"): the GUI's Layers tab draws
// layerMatrixHeatmap with it (figure/charts.h renderHeatmapSvg).
std::string layerMatrixTitle(const LayerMatrix& m);

} // namespace ascviz
