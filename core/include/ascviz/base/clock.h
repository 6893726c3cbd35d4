// Wall-clock time as stored in results and responses files.
#pragma once
#include <string>

namespace ascviz {

// Current time as ISO 8601 UTC ("2024-05-01T12:00:00Z").
std::string isoTimestampUtc();

} // namespace ascviz
