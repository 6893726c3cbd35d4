#include "common/batchresults.h"

#include "common/textpos.h"

#include <algorithm>

namespace ascviz::ui {

BatchResultPtr loadResultSet(const QString& path, const BootstrapOptions& opts)
{
    const auto db = ResultsDb::open(toUtf8(path));
    auto set = std::make_shared<BatchResultSet>();
    set->path = path;
    set->stats = computeStats(db, opts);
    set->snippets = db.snippets();
    set->label = toQString(set->stats.run.modelName);
    set->modelDir = toQString(set->stats.run.modelDir);
    return set;
}

BoxStats boxStats(std::vector<double> v)
{
    BoxStats b;
    if (v.empty())
        return b;
    std::sort(v.begin(), v.end());
    b.n = static_cast<int>(v.size());
    b.q1 = percentileSorted(v, 25);
    b.median = percentileSorted(v, 50);
    b.q3 = percentileSorted(v, 75);
    const double iqr = b.q3 - b.q1;
    const double lo = b.q1 - 1.5 * iqr, hi = b.q3 + 1.5 * iqr;
    b.lowerWhisker = *std::lower_bound(v.begin(), v.end(), lo);
    b.upperWhisker = *(std::upper_bound(v.begin(), v.end(), hi) - 1);
    return b;
}

std::vector<double> snippetValues(const BatchResultSet& s)
{
    std::vector<double> out;
    for (const auto& v : s.stats.snippetAscEval)
        if (v)
            out.push_back(*v);
    return out;
}

} // namespace ascviz::ui
