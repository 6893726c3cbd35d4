#include "ascviz/lens/matrix.h"

#include "ascviz/base/error.h"
#include "ascviz/base/latex.h"
#include "ascviz/render/heatmap.h"

#include <cstdio>
#include <sstream>

namespace ascviz {

std::optional<int> firstLayerReaching(const std::vector<std::optional<BootstrapResult>>& values, double fraction)
{
    if (values.empty() || !values.back())
        return std::nullopt;
    const double target = fraction * values.back()->median;
    for (std::size_t l = 0; l < values.size(); ++l)
        if (values[l] && values[l]->median >= target)
            return static_cast<int>(l);
    return std::nullopt;
}

LayerMatrixBuilder::LayerMatrixBuilder(std::string model, int layers, std::vector<std::string> categoryOrder)
    : m_model(std::move(model)), m_layers(layers), m_categoryOrder(std::move(categoryOrder)),
      m_values(static_cast<std::size_t>(layers) + 1)
{
}

void LayerMatrixBuilder::add(const EvalResult& r, const LayerEval& layers)
{
    if (layers.layers != m_layers)
        throw InputError("a snippet's layer lens has " + std::to_string(layers.layers) + " layers, the matrix " +
                         std::to_string(m_layers));
    const auto& astNodes = r.tree.nodes();
    for (std::size_t k = 0; k < r.nodes.size() && k < layers.commit.size(); ++k)
        if (const auto& c = layers.commit[k]) {
            m_commit.byConcept[astNodes[k].type].push_back(*c);
            if (const auto& category = r.nodes[k].category)
                m_commit.byCategory[*category].push_back(*c);
        }
    for (std::size_t k = 0; k < r.nodes.size() && k < layers.nodes.size(); ++k) {
        const std::string& type = astNodes[k].type;
        const auto& category = r.nodes[k].category;
        for (std::size_t l = 0; l < layers.nodes[k].size(); ++l) {
            const auto& v = layers.nodes[k][l];
            if (!v)
                continue;
            auto& values = m_values[l];
            values.byConcept[type].push_back(*v);
            if (category) {
                values.byCategory[*category].push_back(*v);
                values.categoryOf[type] = *category;
            }
        }
    }
    ++m_snippets;
}

LayerMatrix LayerMatrixBuilder::finish(const BootstrapOptions& opts, double fraction) const
{
    LayerMatrix m;
    m.model = m_model;
    m.layers = m_layers;
    m.snippets = m_snippets;
    m.fraction = fraction;
    m.resamples = opts.resamples;
    m.seed = opts.seed;
    const auto width = static_cast<std::size_t>(m_layers) + 1;
    std::map<std::string, LayerMatrixRow> concepts, categories;
    for (std::size_t l = 0; l < width; ++l) {
        const CorpusStats s = computeStats(m_values[l], opts);
        m.global.push_back(s.globalAscEval);
        for (const auto& [name, r] : s.concepts) {
            auto& row = concepts[name];
            row.name = name;
            row.values.resize(width);
            row.values[l] = r;
            if (const auto c = s.categoryOf.find(name); c != s.categoryOf.end())
                row.category = c->second;
        }
        for (const auto& [name, r] : s.categories) {
            auto& row = categories[name];
            row.name = name;
            row.values.resize(width);
            row.values[l] = r;
        }
    }
    for (const auto& name : m_categoryOrder)
        if (auto it = categories.find(name); it != categories.end()) {
            m.categories.push_back(it->second);
            categories.erase(it);
        }
    for (auto& [name, row] : categories)
        m.categories.push_back(row);
    for (auto& [name, row] : concepts)
        m.concepts.push_back(row);
    std::vector<double> everyCommit;
    for (const auto& [name, values] : m_commit.byCategory)
        everyCommit.insert(everyCommit.end(), values.begin(), values.end());
    m.globalCommit = aggregate(everyCommit, Aggregation::Median);
    for (auto* rows : {&m.categories, &m.concepts})
        for (auto& row : *rows) {
            row.reaches = firstLayerReaching(row.values, fraction);
            const auto& pool = rows == &m.categories ? m_commit.byCategory : m_commit.byConcept;
            if (const auto it = pool.find(row.name); it != pool.end()) {
                row.commit = aggregate(it->second, Aggregation::Median);
                row.commitN = static_cast<int>(it->second.size());
            }
        }
    return m;
}

namespace {

nlohmann::json rowJson(const LayerMatrixRow& row)
{
    nlohmann::json median = nlohmann::json::array(), se = nlohmann::json::array(), n = nlohmann::json::array();
    for (const auto& v : row.values) {
        median.push_back(v ? nlohmann::json(v->median) : nlohmann::json(nullptr));
        se.push_back(v ? nlohmann::json(v->se) : nlohmann::json(nullptr));
        n.push_back(v ? nlohmann::json(v->n) : nlohmann::json(nullptr));
    }
    nlohmann::json j = {{"median", std::move(median)},
                        {"se", std::move(se)},
                        {"n", std::move(n)},
                        {"reaches", row.reaches ? nlohmann::json(*row.reaches) : nlohmann::json(nullptr)},
                        {"commit", row.commit ? nlohmann::json(*row.commit) : nlohmann::json(nullptr)},
                        {"commit_n", row.commitN}};
    if (row.category)
        j["category"] = *row.category;
    return j;
}

std::string fixed(double v, int digits)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace

nlohmann::json layerMatrixJson(const LayerMatrix& m)
{
    nlohmann::json global = nlohmann::json::array();
    for (const auto& g : m.global)
        global.push_back(g ? nlohmann::json(*g) : nlohmann::json(nullptr));
    nlohmann::json categories = nlohmann::json::object(), concepts = nlohmann::json::object();
    nlohmann::json order = nlohmann::json::array();
    for (const auto& row : m.categories) {
        categories[row.name] = rowJson(row);
        order.push_back(row.name);
    }
    for (const auto& row : m.concepts)
        concepts[row.name] = rowJson(row);
    return {{"model", m.model},
            {"layers", m.layers},
            {"snippets", m.snippets},
            {"fraction", m.fraction},
            {"resamples", m.resamples},
            {"seed", m.seed},
            {"global", std::move(global)},
            {"global_commit", m.globalCommit ? nlohmann::json(*m.globalCommit) : nlohmann::json(nullptr)},
            {"category_order", std::move(order)},
            {"categories", std::move(categories)},
            {"concepts", std::move(concepts)}};
}

std::string layerMatrixLatex(const LayerMatrix& m)
{
    const auto width = static_cast<std::size_t>(m.layers) + 1;
    std::ostringstream t;
    t << "% AsC-Eval per layer (layer lens, method.md 13): " << latexEscape(m.model) << ", " << m.snippets
      << " snippets, bootstrapped medians (" << m.resamples << " resamples, seed " << m.seed << ")\n";
    t << "\\begin{tabular}{l" << std::string(width, 'r') << "rr}\n\\toprule\n";
    t << "Category";
    for (std::size_t l = 0; l < width; ++l)
        t << " & " << (l == 0 ? std::string("emb") : std::to_string(l));
    t << " & $\\ell_{" << fixed(m.fraction, 2) << "}$ & commit \\\\\n\\midrule\n";
    for (const auto& row : m.categories) {
        t << latexEscape(row.name);
        for (const auto& v : row.values)
            t << " & " << (v ? fixed(v->median, 2) : std::string("--"));
        t << " & " << (row.reaches ? std::to_string(*row.reaches) : std::string("--")) << " & "
          << (row.commit ? fixed(*row.commit, 1) : std::string("--")) << " \\\\\n";
    }
    t << "\\midrule\nGlobal";
    for (const auto& g : m.global)
        t << " & " << (g ? fixed(*g, 2) : std::string("--"));
    t << " & -- & " << (m.globalCommit ? fixed(*m.globalCommit, 1) : std::string("--"))
      << " \\\\\n\\bottomrule\n\\end{tabular}\n";
    return t.str();
}

std::pair<std::vector<std::string>, std::vector<HeatmapColumn>> layerMatrixHeatmap(const LayerMatrix& m)
{
    std::vector<std::string> rows;
    for (const auto& row : m.categories)
        rows.push_back(row.name);
    rows.push_back("Global");
    std::vector<HeatmapColumn> cols;
    for (int l = 0; l <= m.layers; ++l) {
        HeatmapColumn c;
        c.name = l == 0 ? "emb" : "L" + std::to_string(l);
        for (const auto& row : m.categories)
            if (const auto& v = row.values[static_cast<std::size_t>(l)]) {
                c.values[row.name] = v->median;
                c.counts[row.name] = v->n;
            }
        c.values["Global"] = m.global[static_cast<std::size_t>(l)];
        cols.push_back(std::move(c));
    }
    return {rows, cols};
}

std::string layerMatrixTitle(const LayerMatrix& m)
{
    return "AsC-Eval by category and layer (" + m.model + ")";
}

} // namespace ascviz
