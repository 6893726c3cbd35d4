// Helpers for the eval tests: hand-made scored texts and a strict, minimal XML well-formedness checker.
#pragma once
#include "ascviz/base/scored.h"
#include "ascviz/base/utf8.h"

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evaltest {

// A text made of consecutive token pieces, each with its NtP (nullopt = not scored).
inline ascviz::ScoredText scoredFromPieces(const std::vector<std::pair<std::string, std::optional<double>>>& pieces,
                                           const std::string& model = "hand-made")
{
    ascviz::ScoredText s;
    s.model = model;
    int id = 100;
    for (const auto& [piece, ntp] : pieces) {
        ascviz::ScoredToken t;
        t.id = id++;
        t.start = s.text.size();
        s.text += piece;
        t.end = s.text.size();
        t.ntp = ntp;
        s.tokens.push_back(t);
    }
    s.promptBytes = s.text.size();
    s.promptTokens = s.tokens.size();
    return s;
}

struct XmlElement {
    std::string name;
    std::map<std::string, std::string> attrs; // raw (still escaped) values
    std::string text;                         // character data directly inside, unescaped entities kept raw
};

struct XmlCheck {
    bool ok = false;
    std::string error;
    std::vector<XmlElement> elements; // in document order
    int count(const std::string& name) const
    {
        int n = 0;
        for (const auto& e : elements)
            n += e.name == name ? 1 : 0;
        return n;
    }
};

namespace detail {
inline bool nameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
inline bool nameChar(char c)
{
    return nameStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}
// Checks an entity or character reference at s[i] == '&'; returns its length or 0.
inline std::size_t reference(std::string_view s, std::size_t i)
{
    const auto semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12)
        return 0;
    const auto body = s.substr(i + 1, semi - i - 1);
    if (body == "amp" || body == "lt" || body == "gt" || body == "quot" || body == "apos")
        return semi - i + 1;
    if (body.size() >= 2 && body[0] == '#') {
        const bool hexa = body[1] == 'x';
        const auto digits = body.substr(hexa ? 2 : 1);
        if (digits.empty())
            return 0;
        for (char c : digits)
            if (!(hexa ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
                return 0;
        const long v = std::stol(std::string(digits), nullptr, hexa ? 16 : 10);
        if (v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) ||
            (v >= 0x10000 && v <= 0x10FFFF))
            return semi - i + 1;
    }
    return 0;
}
// Character data: no '<', valid references, no forbidden control characters or U+FFFE/U+FFFF.
inline std::optional<std::string> checkChars(std::string_view s, bool attribute)
{
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '<')
            return "'<' in character data";
        if (c == '&' && reference(s, i) == 0)
            return "bad reference at '" + std::string(s.substr(i, 10)) + "'";
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return "control character " + std::to_string(c);
        if (attribute && c == '"')
            return "'\"' inside an attribute value";
        if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
            (static_cast<unsigned char>(s[i + 2]) == 0xBE || static_cast<unsigned char>(s[i + 2]) == 0xBF))
            return "U+FFFE/U+FFFF";
    }
    return std::nullopt;
}
} // namespace detail

// Well-formedness: valid UTF-8, optional XML declaration, one root element, balanced and properly nested
// tags, quoted attributes without duplicates, valid references, comments, no forbidden characters.
inline XmlCheck checkXml(std::string_view doc)
{
    XmlCheck r;
    auto fail = [&](const std::string& why, std::size_t at) {
        r.ok = false;
        r.error = why + " at byte " + std::to_string(at);
        return r;
    };
    if (auto bad = ascviz::findInvalidUtf8(doc))
        return fail("invalid UTF-8", *bad);
    std::size_t i = 0;
    if (doc.substr(0, 5) == "<?xml") {
        const auto e = doc.find("?>");
        if (e == std::string_view::npos)
            return fail("unterminated XML declaration", 0);
        i = e + 2;
    }
    std::vector<std::string> stack;
    std::vector<std::size_t> openIndex;
    int roots = 0;
    while (i < doc.size()) {
        if (doc[i] != '<') {
            const auto next = doc.find('<', i);
            const auto text = doc.substr(i, next == std::string_view::npos ? std::string_view::npos : next - i);
            if (stack.empty()) {
                for (char c : text)
                    if (!std::isspace(static_cast<unsigned char>(c)))
                        return fail("text outside the root element", i);
            } else {
                if (auto e = detail::checkChars(text, false))
                    return fail(*e, i);
                r.elements[openIndex.back()].text += std::string(text);
            }
            if (next == std::string_view::npos)
                break;
            i = next;
            continue;
        }
        if (doc.substr(i, 4) == "<!--") {
            const auto e = doc.find("-->", i + 4);
            if (e == std::string_view::npos)
                return fail("unterminated comment", i);
            i = e + 3;
            continue;
        }
        if (doc.substr(i, 2) == "</") {
            std::size_t j = i + 2;
            while (j < doc.size() && detail::nameChar(doc[j]))
                ++j;
            const std::string name(doc.substr(i + 2, j - i - 2));
            while (j < doc.size() && std::isspace(static_cast<unsigned char>(doc[j])))
                ++j;
            if (j >= doc.size() || doc[j] != '>')
                return fail("malformed end tag", i);
            if (stack.empty() || stack.back() != name)
                return fail("end tag </" + name + "> does not match <" + (stack.empty() ? "" : stack.back()) + ">", i);
            stack.pop_back();
            openIndex.pop_back();
            i = j + 1;
            continue;
        }
        // start tag
        std::size_t j = i + 1;
        if (j >= doc.size() || !detail::nameStart(doc[j]))
            return fail("bad tag name", i);
        while (j < doc.size() && detail::nameChar(doc[j]))
            ++j;
        XmlElement el;
        el.name = std::string(doc.substr(i + 1, j - i - 1));
        if (stack.empty() && ++roots > 1)
            return fail("more than one root element", i);
        bool selfClosing = false;
        for (;;) {
            const std::size_t ws = j;
            while (j < doc.size() && std::isspace(static_cast<unsigned char>(doc[j])))
                ++j;
            if (j >= doc.size())
                return fail("unterminated start tag", i);
            if (doc[j] == '>') {
                ++j;
                break;
            }
            if (doc.substr(j, 2) == "/>") {
                selfClosing = true;
                j += 2;
                break;
            }
            if (j == ws)
                return fail("missing space before an attribute", j);
            const std::size_t a = j;
            if (!detail::nameStart(doc[j]))
                return fail("bad attribute name", j);
            while (j < doc.size() && detail::nameChar(doc[j]))
                ++j;
            const std::string attr(doc.substr(a, j - a));
            if (j >= doc.size() || doc[j] != '=')
                return fail("attribute without '='", j);
            ++j;
            if (j >= doc.size() || (doc[j] != '"' && doc[j] != '\''))
                return fail("unquoted attribute value", j);
            const char q = doc[j];
            const auto e = doc.find(q, j + 1);
            if (e == std::string_view::npos)
                return fail("unterminated attribute value", j);
            const auto value = doc.substr(j + 1, e - j - 1);
            if (auto err = detail::checkChars(value, q == '"'))
                return fail(*err, j);
            if (!el.attrs.emplace(attr, std::string(value)).second)
                return fail("duplicate attribute " + attr, a);
            j = e + 1;
        }
        r.elements.push_back(std::move(el));
        if (!selfClosing) {
            stack.push_back(r.elements.back().name);
            openIndex.push_back(r.elements.size() - 1);
        }
        i = j;
    }
    if (!stack.empty())
        return fail("unclosed element <" + stack.back() + ">", doc.size());
    if (roots != 1)
        return fail("no root element", 0);
    r.ok = true;
    return r;
}

} // namespace evaltest
