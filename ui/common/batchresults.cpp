#include "common/batchresults.h"

#include "common/textpos.h"

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

std::vector<double> snippetValues(const BatchResultSet& s)
{
    std::vector<double> out;
    for (const auto& v : s.stats.snippetAscEval)
        if (v)
            out.push_back(*v);
    return out;
}

} // namespace ascviz::ui
