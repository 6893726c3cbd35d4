#include "ascviz/base/scored.h"

#include <cmath>
#include <limits>

namespace ascviz {

std::optional<double> ScoredToken::crossEntropy() const
{
    if (!ntp)
        return std::nullopt;
    return -std::log(*ntp);
}

double ScoredText::crossEntropy() const
{
    double sum = 0.0;
    int n = 0;
    for (const auto& t : tokens) {
        if (auto ce = t.crossEntropy()) {
            sum += *ce;
            ++n;
        }
    }
    return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

} // namespace ascviz

namespace ascviz {

const char* stopReasonName(StopReason r)
{
    switch (r) {
    case StopReason::Eos:
        return "eos";
    case StopReason::Length:
        return "length";
    case StopReason::Cancelled:
        return "cancelled";
    case StopReason::Context:
        return "context";
    case StopReason::None:
        break;
    }
    return "";
}

} // namespace ascviz
