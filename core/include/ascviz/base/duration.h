// A duration as people read it in progress lines: "42s", "3m05s", "2h07m" (rounded to whole seconds; hours
// drop the seconds), "?" for a negative, NaN or infinite (unknown) duration such as an ETA not yet known.
#pragma once
#include <string>

namespace ascviz {

std::string formatDuration(double seconds);

} // namespace ascviz
