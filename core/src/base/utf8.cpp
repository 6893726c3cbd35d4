#include "ascviz/base/utf8.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace ascviz {

Utf8Step decodeUtf8(std::string_view s, std::size_t i)
{
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = at(0);
    if (c < 0x80)
        return {c, 1, Utf8Status::Ok};
    std::size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte (excludes overlongs, surrogates)
    char32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        cp = c & 0x0F;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        cp = c & 0x07;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return {0xFFFD, 1, Utf8Status::Invalid};
    }
    std::size_t k = 1;
    for (; k < need && i + k < s.size(); ++k) {
        const unsigned char d = at(k);
        if ((d & 0xC0) != 0x80 || (k == 1 && (d < lo || d > hi)))
            return {0xFFFD, k, Utf8Status::Invalid};
        cp = (cp << 6) | (d & 0x3F);
    }
    if (k < need)
        return {0xFFFD, k, Utf8Status::Truncated};
    return {cp, need, Utf8Status::Ok};
}

char32_t nextCodePoint(std::string_view s, std::size_t& i)
{
    const Utf8Step st = decodeUtf8(s, i);
    i += st.length;
    return st.codePoint;
}

void appendUtf8(std::string& out, char32_t c)
{
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        c = 0xFFFD;
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

std::size_t utf8Floor(std::string_view s, std::size_t b)
{
    b = std::min(b, s.size());
    while (b > 0 && b < s.size() && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80)
        --b;
    return b;
}

std::optional<std::size_t> findInvalidUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        const Utf8Step st = decodeUtf8(s, i);
        if (st.status != Utf8Status::Ok)
            return i;
        i += st.length;
    }
    return std::nullopt;
}

std::string readUtf8File(const std::filesystem::path& path)
{
    return readUtf8File(path, limits::kMaxInputFileBytes, "the file");
}

std::string readUtf8File(const std::filesystem::path& path, std::size_t maxBytes, const std::string& what)
{
    std::string data = readFileBounded(path, maxBytes, what);
    requireUtf8(data, path);
    return data;
}

std::string readFileBounded(const std::filesystem::path& path, std::size_t maxBytes, const std::string& what)
{
    const std::string name = path == "-" ? std::string("standard input") : path.string();
    const auto tooLong = [&] {
        return InputError(what + " " + name + " is over the limit of " + std::to_string(maxBytes) + " bytes",
                          ErrorContext{path.string(), maxBytes, {}});
    };
    std::string data;
    std::istream* in = &std::cin;
    std::ifstream file;
    if (path != "-") {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
            throw InputError("file not found: " + path.string(), ErrorContext{path.string(), {}, {}});
        if (std::filesystem::is_directory(path, ec))
            throw InputError("expected a file but got a folder: " + path.string(), ErrorContext{path.string(), {}, {}});
        if (std::filesystem::is_regular_file(path, ec)) {
            const auto size = std::filesystem::file_size(path, ec);
            if (!ec && size > maxBytes)
                throw tooLong();
        }
        file.open(path, std::ios::binary);
        if (!file)
            throw InputError("cannot read file: " + path.string(), ErrorContext{path.string(), {}, {}});
        in = &file;
    }
    // In pieces, up to one byte past the limit.
    char buf[65536];
    while (*in) {
        const std::size_t want = std::min(sizeof buf, maxBytes + 1 - data.size());
        in->read(buf, static_cast<std::streamsize>(want));
        data.append(buf, static_cast<std::size_t>(in->gcount()));
        if (data.size() > maxBytes)
            throw tooLong();
    }
    if (in->bad())
        throw InputError("failed reading " + name, ErrorContext{path.string(), {}, {}});
    return data;
}

void requireUtf8(std::string_view data, const std::filesystem::path& path)
{
    if (auto bad = findInvalidUtf8(data))
        throw InputError((path == "-" ? std::string("standard input") : path.string()) +
                             " is not valid UTF-8 (first invalid byte at offset " + std::to_string(*bad) + ")",
                         ErrorContext{path.string(), *bad, {}});
}

} // namespace ascviz
