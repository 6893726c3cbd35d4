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

// Quartiles and Tukey whiskers (1.5 IQR, clipped to the data) of a set of values, for box plots.
struct BoxStats {
    double lowerWhisker = 0, q1 = 0, median = 0, q3 = 0, upperWhisker = 0;
    int n = 0;
};
BoxStats boxStats(std::vector<double> values); // n = 0 when empty

// The snippet AsC-Eval values (non-null) of a set.
std::vector<double> snippetValues(const BatchResultSet& s);

} // namespace ascviz::ui
