// Helpers shared by the tokenizer.json components (normalizers.cpp, pretokenizers.cpp,
// decoders_postprocessors.cpp): reading component JSON and the Metaspace prepend scheme. Private to the
// tokenizer room.
#pragma once
#include "internal.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ascviz::tok {

inline std::string typeOf(const Json& j, const char* component)
{
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw TokenizerError(std::string("malformed ") + component + ": " + j.dump().substr(0, 200));
    return j["type"].get<std::string>();
}

template <class T> T getOr(const Json& j, const char* key, T fallback)
{
    if (!j.contains(key) || j[key].is_null())
        return fallback;
    try {
        return j[key].get<T>();
    } catch (const nlohmann::json::exception&) {
        throw TokenizerError(std::string("bad value for '") + key + "': " + j[key].dump());
    }
}

inline char32_t singleChar(const std::string& s, const char* what)
{
    std::size_t len = 0;
    if (s.empty())
        throw TokenizerError(std::string(what) + " must be one character");
    const char32_t c = decodeUtf8(s, 0, &len);
    if (len != s.size())
        throw TokenizerError(std::string(what) + " must be one character, got '" + s + "'");
    return c;
}

inline std::vector<char32_t> chars(std::string_view s)
{
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t l = 0;
        out.push_back(decodeUtf8(s, i, &l));
        i += l;
    }
    return out;
}

enum class PrependScheme { Always, Never, First };

inline PrependScheme parseScheme(const Json& j)
{
    if (j.contains("prepend_scheme") && j["prepend_scheme"].is_string()) {
        const auto s = j["prepend_scheme"].get<std::string>();
        if (s == "always")
            return PrependScheme::Always;
        if (s == "never")
            return PrependScheme::Never;
        if (s == "first")
            return PrependScheme::First;
        throw TokenizerError("Metaspace: unsupported prepend_scheme '" + s + "'");
    }
    return getOr<bool>(j, "add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
}

} // namespace ascviz::tok
