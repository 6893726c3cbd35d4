// UTF-8 helpers, the ByteLevel table, PCRE2 patterns and NormStr (alignment-tracking string).
#include "internal.h"

#include "ascviz/base/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <utf8proc.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace ascviz::tok {

// ---------------------------------------------------------------------------------------------- UTF-8
// Code points are decoded and encoded by base/utf8.h, the one codec (texts reach here validated).
char32_t decodeUtf8(std::string_view s, std::size_t i, std::size_t* len)
{
    const Utf8Step st = ascviz::decodeUtf8(s, i);
    *len = st.length;
    return st.codePoint;
}

std::string utf8(char32_t c)
{
    std::string s;
    appendUtf8(s, c);
    return s;
}

bool isWhiteSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool isWordChar(char32_t c)
{
    if (c < 0x80)
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (c == 0x200C || c == 0x200D)
        return true;
    // Other_Alphabetic symbols (circled and squared Latin letters) are alphabetic, so \w
    if ((c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169) ||
        (c >= 0x1F170 && c <= 0x1F189))
        return true;
    switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_PC:
        return true;
    default:
        return false;
    }
}

std::string utf8Lossy(std::string_view b)
{
    std::string out;
    out.reserve(b.size());
    std::size_t i = 0;
    const auto cont = [&](std::size_t k, unsigned char lo, unsigned char hi) {
        if (k >= b.size())
            return false;
        const auto c = static_cast<unsigned char>(b[k]);
        return c >= lo && c <= hi;
    };
    while (i < b.size()) {
        const auto c = static_cast<unsigned char>(b[i]);
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        std::size_t need = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0)
                lo = 0xA0;
            if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0)
                lo = 0x90;
            if (c == 0xF4)
                hi = 0x8F;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        std::size_t k = i + 1;
        bool ok = true;
        for (std::size_t n = 0; n < need; ++n) {
            const bool good = n == 0 ? cont(k, lo, hi) : cont(k, 0x80, 0xBF);
            if (!good) {
                ok = false;
                break;
            }
            ++k;
        }
        if (ok)
            out.append(b.substr(i, k - i));
        else
            out += "\xEF\xBF\xBD";
        i = k;
    }
    return out;
}

const ByteLevelTable& ByteLevelTable::get()
{
    static const ByteLevelTable table = [] {
        ByteLevelTable t;
        std::vector<bool> direct(256, false);
        for (int b = '!'; b <= '~'; ++b)
            direct[b] = true;
        for (int b = 0xA1; b <= 0xAC; ++b)
            direct[b] = true;
        for (int b = 0xAE; b <= 0xFF; ++b)
            direct[b] = true;
        char32_t n = 0;
        for (int b = 0; b < 256; ++b) {
            const char32_t c = direct[b] ? static_cast<char32_t>(b) : 256 + n++;
            t.byteToChar[b] = c;
            t.charToByte[c] = static_cast<unsigned char>(b);
            t.byteToUtf8[b] = utf8(c);
        }
        return t;
    }();
    return table;
}

std::optional<std::string> ByteLevelTable::decode(std::string_view token) const
{
    std::string out;
    out.reserve(token.size());
    for (std::size_t i = 0; i < token.size();) {
        std::size_t len = 0;
        const char32_t c = decodeUtf8(token, i, &len);
        const auto it = charToByte.find(c);
        if (it == charToByte.end())
            return std::nullopt;
        out.push_back(static_cast<char>(it->second));
        i += len;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------- regex
namespace {
struct MatchState {
    pcre2_match_context* ctx = nullptr;
    pcre2_jit_stack* stack = nullptr;
    MatchState()
    {
        ctx = pcre2_match_context_create(nullptr);
        stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
        if (ctx && stack)
            pcre2_jit_stack_assign(ctx, nullptr, stack);
    }
    ~MatchState()
    {
        if (stack)
            pcre2_jit_stack_free(stack);
        if (ctx)
            pcre2_match_context_free(ctx);
    }
    MatchState(const MatchState&) = delete;
    MatchState& operator=(const MatchState&) = delete;
};
MatchState& matchState()
{
    thread_local MatchState state;
    return state;
}
} // namespace

namespace {
// Oniguruma's \s (tokenizers' regex engine) is Unicode White_Space; PCRE2's also matches U+180E (MONGOLIAN
// VOWEL SEPARATOR, a format character since Unicode 6.3). \s and \S are written out as that set (\S only
// outside a character class; inside one, where a negated set cannot be written, PCRE2's stays).
constexpr const char* kWhiteSpace =
    R"(\t-\r\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

std::string onigWhiteSpace(const std::string& pattern)
{
    std::string out;
    out.reserve(pattern.size());
    bool inClass = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            const char n = pattern[++i];
            if (n == 's')
                out += inClass ? std::string(kWhiteSpace) : std::string("[") + kWhiteSpace + "]";
            else if (n == 'S' && !inClass)
                out += std::string("[^") + kWhiteSpace + "]";
            else
                out.append({c, n});
            continue;
        }
        if (!inClass && c == '[') {
            inClass = true;
            out += c;
            // a ']' first in the class (after an optional '^') is a literal
            if (i + 1 < pattern.size() && pattern[i + 1] == '^')
                out += pattern[++i];
            if (i + 1 < pattern.size() && pattern[i + 1] == ']')
                out += pattern[++i];
            continue;
        }
        if (inClass && c == ']')
            inClass = false;
        out += c;
    }
    return out;
}
} // namespace

Regex::Regex(const std::string& pattern) : m_pattern(pattern)
{
    int err = 0;
    PCRE2_SIZE errOffset = 0;
    const std::string compiled = onigWhiteSpace(pattern);
    auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(compiled.data()), compiled.size(), PCRE2_UTF | PCRE2_UCP,
                               &err, &errOffset, nullptr);
    if (!code) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(err, buf, sizeof buf);
        throw TokenizerError("cannot compile regex '" + pattern + "' at offset " + std::to_string(errOffset) + ": " +
                             reinterpret_cast<const char*>(buf));
    }
    m_code = code;
    m_jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex()
{
    pcre2_code_free(static_cast<pcre2_code*>(m_code));
}

void Regex::findAll(std::string_view s, std::vector<std::pair<std::size_t, std::size_t>>& out) const
{
    auto* code = static_cast<pcre2_code*>(m_code);
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(
        pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
    auto& state = matchState();
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(s.data());
    std::size_t start = 0;
    std::optional<std::size_t> lastEnd;
    while (start <= s.size()) {
        const int rc = m_jit ? pcre2_jit_match(code, subject, s.size(), start, 0, md.get(), state.ctx)
                             : pcre2_match(code, subject, s.size(), start, PCRE2_NO_UTF_CHECK, md.get(), state.ctx);
        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc < 0) {
            PCRE2_UCHAR buf[256];
            pcre2_get_error_message(rc, buf, sizeof buf);
            throw TokenizerError("regex '" + m_pattern + "' failed: " + reinterpret_cast<const char*>(buf));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
        const std::size_t ms = ov[0], me = ov[1];
        if (ms == me) {
            if (!(lastEnd && *lastEnd == me))
                out.emplace_back(ms, me);
            if (me >= s.size())
                break;
            start = me + utf8Len(static_cast<unsigned char>(s[me]));
            continue;
        }
        out.emplace_back(ms, me);
        lastEnd = me;
        start = me;
    }
}

std::vector<std::tuple<std::size_t, std::size_t, bool>> Pattern::findMatches(std::string_view s) const
{
    std::vector<std::tuple<std::size_t, std::size_t, bool>> res;
    if (s.empty()) {
        res.emplace_back(0, 0, invert);
        return res;
    }
    std::vector<std::pair<std::size_t, std::size_t>> ms;
    if (regex) {
        regex->findAll(s, ms);
    } else if (!literal.empty()) {
        std::size_t pos = 0;
        while ((pos = s.find(literal, pos)) != std::string_view::npos) {
            ms.emplace_back(pos, pos + literal.size());
            pos += literal.size();
        }
    }
    std::size_t prev = 0;
    for (const auto& [a, b] : ms) {
        if (prev != a)
            res.emplace_back(prev, a, invert);
        res.emplace_back(a, b, !invert);
        prev = b;
    }
    if (prev != s.size())
        res.emplace_back(prev, s.size(), invert);
    return res;
}

Pattern Pattern::fromJson(const Json& j, const char* component)
{
    Pattern p;
    if (j.is_object() && j.contains("String") && j["String"].is_string()) {
        p.literal = j["String"].get<std::string>();
    } else if (j.is_object() && j.contains("Regex") && j["Regex"].is_string()) {
        p.regex = std::make_shared<Regex>(j["Regex"].get<std::string>());
    } else if (j.is_string()) {
        p.literal = j.get<std::string>();
    } else {
        throw TokenizerError(std::string(component) + ": unsupported pattern " + j.dump());
    }
    return p;
}

SplitBehavior parseBehavior(const std::string& s, const char* component)
{
    if (s == "Removed")
        return SplitBehavior::Removed;
    if (s == "Isolated")
        return SplitBehavior::Isolated;
    if (s == "MergedWithPrevious")
        return SplitBehavior::MergedWithPrevious;
    if (s == "MergedWithNext")
        return SplitBehavior::MergedWithNext;
    if (s == "Contiguous")
        return SplitBehavior::Contiguous;
    throw TokenizerError(std::string(component) + ": unsupported split behavior '" + s + "'");
}

// ---------------------------------------------------------------------------------------------- NormStr
NormStr NormStr::fromOriginal(std::string_view text, std::size_t base)
{
    NormStr n;
    n.norm.assign(text);
    n.align.resize(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = std::min(utf8Len(static_cast<unsigned char>(text[i])), text.size() - i);
        const Align a{static_cast<uint32_t>(base + i), static_cast<uint32_t>(base + i + len)};
        for (std::size_t k = 0; k < len; ++k)
            n.align[i + k] = a;
        i += len;
    }
    n.origStart = base;
    n.origEnd = base + text.size();
    return n;
}

void NormStr::transformRange(std::size_t nStart, std::size_t nEnd, const std::vector<Change>& dest,
                             std::size_t initialOffset)
{
    std::size_t cur = nStart; // cursor over the replaced chars
    const auto takeChar = [&]() -> std::size_t {
        if (cur >= nEnd)
            return 0;
        const std::size_t l = utf8Len(static_cast<unsigned char>(norm[cur]));
        cur += l;
        return l;
    };
    std::size_t offset = nStart;
    for (std::size_t i = 0; i < initialOffset; ++i)
        offset += takeChar();
    const Align zero{static_cast<uint32_t>(origStart), static_cast<uint32_t>(origStart)};
    std::string newNorm;
    std::vector<Align> newAlign;
    newNorm.reserve(nEnd - nStart + dest.size());
    newAlign.reserve(nEnd - nStart + dest.size());
    for (const auto& [c, ch] : dest) {
        Align a;
        if (ch > 0)
            a = offset < 1 ? zero : align[offset - 1];
        else
            a = offset < align.size() ? align[offset] : (align.empty() ? zero : align.back());
        std::size_t consumed = ch > 0 ? 0 : takeChar();
        if (ch < 0)
            for (int k = 0; k < -ch; ++k)
                consumed += takeChar();
        offset += consumed;
        const std::size_t before = newNorm.size();
        appendUtf8(newNorm, c);
        newAlign.insert(newAlign.end(), newNorm.size() - before, a);
    }
    norm.replace(nStart, nEnd - nStart, newNorm);
    align.erase(align.begin() + static_cast<std::ptrdiff_t>(nStart), align.begin() + static_cast<std::ptrdiff_t>(nEnd));
    align.insert(align.begin() + static_cast<std::ptrdiff_t>(nStart), newAlign.begin(), newAlign.end());
}

NormStr NormStr::slice(std::size_t s, std::size_t e) const
{
    NormStr n;
    n.norm = norm.substr(s, e - s);
    n.align.assign(align.begin() + static_cast<std::ptrdiff_t>(s), align.begin() + static_cast<std::ptrdiff_t>(e));
    if (s < e) {
        n.origStart = align[s].start;
        n.origEnd = align[e - 1].end;
    } else {
        n.origStart = n.origEnd = s < align.size() ? align[s].start : origEnd;
    }
    return n;
}

void NormStr::prepend(std::string_view s)
{
    if (norm.empty() || s.empty())
        return;
    std::size_t firstLen = 0;
    const char32_t first = decodeUtf8(norm, 0, &firstLen);
    std::vector<Change> dest;
    bool isFirst = true;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t l = 0;
        dest.push_back({decodeUtf8(s, i, &l), isFirst ? 0 : 1});
        isFirst = false;
        i += l;
    }
    dest.push_back({first, 1});
    transformRange(0, firstLen, dest, 0);
}

void NormStr::append(std::string_view s)
{
    if (norm.empty() || s.empty())
        return;
    std::size_t b = norm.size() - 1;
    while (b > 0 && (static_cast<unsigned char>(norm[b]) & 0xC0) == 0x80)
        --b;
    std::size_t l = 0;
    std::vector<Change> dest{{decodeUtf8(norm, b, &l), 0}};
    for (std::size_t i = 0; i < s.size();) {
        dest.push_back({decodeUtf8(s, i, &l), 1});
        i += l;
    }
    transformRange(b, norm.size(), dest, 0);
}

void NormStr::replace(const Pattern& p, std::string_view content)
{
    const auto matches = p.findMatches(norm);
    bool any = false;
    for (const auto& m : matches)
        any = any || std::get<2>(m);
    if (!any)
        return;
    std::string newNorm;
    std::vector<Align> newAlign;
    newNorm.reserve(norm.size());
    newAlign.reserve(norm.size());
    const Align zero{static_cast<uint32_t>(origStart), static_cast<uint32_t>(origStart)};
    for (const auto& [s, e, isMatch] : matches) {
        if (!isMatch) {
            newNorm.append(norm, s, e - s);
            newAlign.insert(newAlign.end(), align.begin() + static_cast<std::ptrdiff_t>(s),
                            align.begin() + static_cast<std::ptrdiff_t>(e));
            continue;
        }
        const Align a = s < e ? align[e - 1] : (newAlign.empty() ? zero : newAlign.back());
        newNorm.append(content);
        newAlign.insert(newAlign.end(), content.size(), a);
    }
    norm = std::move(newNorm);
    align = std::move(newAlign);
}

void NormStr::lrstrip(bool left, bool right)
{
    std::size_t s = 0, e = norm.size();
    if (left) {
        while (s < e) {
            std::size_t l = 0;
            if (!isWhiteSpace(decodeUtf8(norm, s, &l)))
                break;
            s += l;
        }
    }
    if (right) {
        while (e > s) {
            std::size_t b = e - 1;
            while (b > s && (static_cast<unsigned char>(norm[b]) & 0xC0) == 0x80)
                --b;
            std::size_t l = 0;
            if (!isWhiteSpace(decodeUtf8(norm, b, &l)))
                break;
            e = b;
        }
    }
    if (s == 0 && e == norm.size())
        return;
    norm = norm.substr(s, e - s);
    align.erase(align.begin() + static_cast<std::ptrdiff_t>(e), align.end());
    align.erase(align.begin(), align.begin() + static_cast<std::ptrdiff_t>(s));
}

std::vector<NormStr> NormStr::split(const Pattern& p, SplitBehavior behavior) const
{
    return split(p.findMatches(norm), behavior);
}

std::vector<NormStr> NormStr::split(const std::vector<std::tuple<std::size_t, std::size_t, bool>>& matches,
                                    SplitBehavior behavior) const
{
    using M = std::tuple<std::size_t, std::size_t, bool>;
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, bool>> splits; // offsets, remove
    switch (behavior) {
    case SplitBehavior::Isolated:
        for (const auto& [s, e, m] : matches)
            splits.push_back({{s, e}, false});
        break;
    case SplitBehavior::Removed:
        for (const auto& [s, e, m] : matches)
            splits.push_back({{s, e}, m});
        break;
    case SplitBehavior::Contiguous: {
        bool prev = false;
        for (const auto& [s, e, m] : matches) {
            if (m == prev && !splits.empty())
                splits.back().first.second = e;
            else
                splits.push_back({{s, e}, false});
            prev = m;
        }
        break;
    }
    case SplitBehavior::MergedWithPrevious: {
        bool prev = false;
        for (const auto& [s, e, m] : matches) {
            if (m && !prev && !splits.empty())
                splits.back().first.second = e;
            else
                splits.push_back({{s, e}, false});
            prev = m;
        }
        break;
    }
    case SplitBehavior::MergedWithNext: {
        bool prev = false;
        for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
            const M& t = *it;
            const auto [s, e, m] = t;
            if (m && !prev && !splits.empty())
                splits.back().first.first = s;
            else
                splits.push_back({{s, e}, false});
            prev = m;
        }
        std::reverse(splits.begin(), splits.end());
        break;
    }
    }
    std::vector<NormStr> out;
    out.reserve(splits.size());
    for (const auto& [off, remove] : splits)
        if (!remove)
            out.push_back(slice(off.first, off.second));
    return out;
}

} // namespace ascviz::tok
