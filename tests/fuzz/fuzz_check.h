// Shared by the fuzz targets: what a target may do with an input, and how it reports a broken invariant.
// A target passes any bytes to a core parser; the documented errors (ascviz::Error and its subclasses)
// are the expected answer to bad input and are swallowed. Anything else — another exception, a crash, a
// sanitizer report, a broken invariant (FUZZ_CHECK) — is a finding.
#pragma once
#include "ascviz/base/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", #cond, __FILE__, __LINE__);                    \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (0)

namespace fuzz {

__extension__ typedef unsigned __int128 uint128; // for checks that must not overflow (-Wpedantic-clean)

inline std::string_view bytes(const uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

// Runs `body`, swallowing the typed errors core documents for bad input.
template <class F> int expectingErrors(F&& body)
{
    try {
        body();
    } catch (const ascviz::Error&) {
    }
    return 0;
}

} // namespace fuzz
