#include "ascviz/base/utf8.h"

#include "ascviz/base/error.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace ascviz {

std::optional<std::size_t> findInvalidUtf8(std::string_view s)
{
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        uint32_t cp = 0;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        // overlong forms, surrogates, out of range
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
            return i;
        i += len;
    }
    return std::nullopt;
}

std::string readUtf8File(const std::filesystem::path& path)
{
    std::string data;
    if (path == "-") {
        std::ostringstream ss;
        ss << std::cin.rdbuf();
        data = ss.str();
    } else {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
            throw InputError("file not found: " + path.string());
        if (std::filesystem::is_directory(path, ec))
            throw InputError("expected a file but got a folder: " + path.string());
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw InputError("cannot read file: " + path.string());
        data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (auto bad = findInvalidUtf8(data))
        throw InputError((path == "-" ? std::string("standard input") : path.string()) +
                         " is not valid UTF-8 (first invalid byte at offset " + std::to_string(*bad) + ")");
    return data;
}

} // namespace ascviz
