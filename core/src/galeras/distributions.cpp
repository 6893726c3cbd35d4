// Outcome values per treatment (distributions.h).
#include "ascviz/galeras/distributions.h"

#include "ascviz/base/error.h"

#include <algorithm>

namespace ascviz {
namespace {

std::vector<std::string> outcomesAsked(const std::string& outcome)
{
    const auto& known = galerasOutcomes();
    if (outcome.empty())
        return known;
    if (std::find(known.begin(), known.end(), outcome) == known.end()) {
        std::string list;
        for (const auto& k : known)
            list += (list.empty() ? "" : ", ") + k;
        throw InputError("unknown outcome '" + outcome + "' (known: " + list + ")");
    }
    return {outcome};
}

} // namespace

OutcomeDistributions outcomeDistributions(const std::vector<GalerasRow>& rows, const std::string& outcome)
{
    OutcomeDistributions d;
    d.outcomes = outcomesAsked(outcome);
    if (rows.empty())
        throw InputError("the runs database has no rows: no distribution to draw");
    for (const auto& row : rows)
        if (std::find(d.treatments.begin(), d.treatments.end(), row.treatment) == d.treatments.end()) {
            if (row.isControl)
                d.treatments.insert(d.treatments.begin(), row.treatment);
            else
                d.treatments.push_back(row.treatment);
        }
    d.values.assign(d.outcomes.size(), std::vector<std::vector<double>>(d.treatments.size()));
    for (const auto& row : rows) {
        const auto t = static_cast<std::size_t>(std::find(d.treatments.begin(), d.treatments.end(), row.treatment) -
                                                d.treatments.begin());
        for (std::size_t o = 0; o < d.outcomes.size(); ++o) {
            const auto it = row.values.find(d.outcomes[o]);
            if (!row.error.empty() || it == row.values.end() || !it->second)
                ++d.leftOut;
            else
                d.values[o][t].push_back(*it->second);
        }
    }
    return d;
}

OutcomeDistributions outcomeDistributions(const GalerasDb& db, const std::string& outcome)
{
    outcomesAsked(outcome);
    const auto rows = db.rows();
    if (rows.empty())
        throw InputError(db.path().string() + " has no rows: no distribution to draw",
                         ErrorContext(db.path().string()));
    return outcomeDistributions(rows, outcome);
}

} // namespace ascviz
