// Immutable data the Batch tab shows: one results database's statistics and snippet rows, loaded off the
// GUI thread (loadResultSet) and shared as std::shared_ptr<const BatchResultSet>.
#pragma once
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/stats.h"

#include <QMetaType>
#include <QString>

#include <memory>
#include <vector>

namespace ascviz::ui {

struct BatchResultSet {
    QString path;     // the results DB
    QString label;    // model name shown in charts/tables (made unique by the tab)
    QString modelDir; // from the run row
    CorpusStats stats;
    std::vector<SnippetRow> snippets;
};
using BatchResultPtr = std::shared_ptr<const BatchResultSet>;

// Reads a results DB and computes its statistics (blocking; call it from a worker thread). Throws
// ascviz::Error subclasses with a message for the user.
BatchResultPtr loadResultSet(const QString& path, const BootstrapOptions& opts = {});

// The snippet AsC-Eval values (non-null) of a set.
std::vector<double> snippetValues(const BatchResultSet& s);

} // namespace ascviz::ui
