// FNV-1a 64 for the Galeras fingerprints and per-record seeds (internal to the room).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ascviz::galeras_detail {

inline constexpr uint64_t kFnvBasis = 1469598103934665603ULL;

// Mixes `s` and a 0xff separator into h.
inline uint64_t fnvMix(uint64_t h, std::string_view s, bool separator = true)
{
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    if (separator) {
        h ^= 0xff;
        h *= 1099511628211ULL;
    }
    return h;
}

inline std::string hex16(uint64_t h)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

} // namespace ascviz::galeras_detail
