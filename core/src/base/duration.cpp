// Durations as text (duration.h).
#include "ascviz/base/duration.h"

#include <cmath>
#include <cstdio>

namespace ascviz {

std::string formatDuration(double seconds)
{
    if (!(seconds >= 0) || !std::isfinite(seconds) || seconds > 1e15) // unknown, or beyond any real run
        return "?";
    const long long t = static_cast<long long>(seconds + 0.5);
    char buf[48];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", t / 3600, (t / 60) % 60);
    else if (t >= 60)
        std::snprintf(buf, sizeof buf, "%lldm%02llds", t / 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%llds", t);
    return buf;
}

} // namespace ascviz
