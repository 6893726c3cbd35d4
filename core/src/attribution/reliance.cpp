#include "ascviz/attribution/reliance.h"

#include "ascviz/base/error.h"

#include <algorithm>

namespace ascviz {

RelianceMatrix relianceMatrix(const LanguageModel& model, const std::vector<RelianceText>& texts,
                              const RelianceOptions& opts)
{
    RelianceMatrix m;
    m.method = toString(opts.attribution.method);
    std::map<std::string, CategoryMap> tables;
    std::map<std::string, std::map<std::string, double>> sums;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const auto& t = texts[i];
        auto it = tables.find(t.language);
        if (it == tables.end())
            it = tables.emplace(t.language, CategoryMap::forLanguage(t.language)).first;
        const CategoryMap& table = it->second;
        if (m.categories.empty())
            m.categories = table.categories();
        // The prompt: the first half of the lines.
        const auto lines = std::count(t.code.begin(), t.code.end(), '\n');
        const long half = std::max<long>(1, static_cast<long>(lines) / 2);
        std::size_t cut = std::string::npos, from = 0;
        for (long k = 0; k < half; ++k) {
            cut = t.code.find('\n', from);
            if (cut == std::string::npos)
                break;
            from = cut + 1;
        }
        try {
            if (cut == std::string::npos || cut + 1 >= t.code.size())
                throw InputError("too short to split into a prompt and a completion");
            const std::size_t promptBytes = cut + 1;
            const SyntaxTree tree =
                parseForEval(t.language, t.code, opts.attribution.maxAstDepth, opts.attribution.maxAstNodes);
            int taken = 0;
            for (const auto& n : tree.nodes()) {
                if (taken >= opts.targetsPerText)
                    break;
                const auto category = table.categoryOf(n.type);
                if (!category || n.start < promptBytes || n.end <= n.start)
                    continue;
                AttributionTargetSpec spec;
                spec.kind = AttributionTargetSpec::Kind::Node;
                spec.index = n.id;
                const AttributionResult r =
                    attribute(model, t.code, promptBytes, t.language, spec, opts.attribution, &table);
                for (const auto& a : r.nodes)
                    if (a.category) {
                        sums[*category][*a.category] += a.attribution;
                        ++m.cells[*category][*a.category].n;
                    }
                ++taken;
                ++m.targets;
            }
            ++m.texts;
        } catch (const InputError&) {
            ++m.skipped;
        }
        if (opts.progress)
            opts.progress(i + 1, texts.size());
    }
    for (auto& [x, row] : m.cells)
        for (auto& [y, cell] : row)
            cell.mean = cell.n ? sums[x][y] / static_cast<double>(cell.n) : 0.0;
    return m;
}

nlohmann::json relianceJson(const RelianceMatrix& m)
{
    nlohmann::json cells = nlohmann::json::object();
    for (const auto& [x, row] : m.cells)
        for (const auto& [y, cell] : row)
            cells[x][y] = {{"mean", cell.mean}, {"n", cell.n}};
    return {{"method", m.method},   {"texts", m.texts},           {"skipped", m.skipped},
            {"targets", m.targets}, {"categories", m.categories}, {"cells", std::move(cells)}};
}

} // namespace ascviz
