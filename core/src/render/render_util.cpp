#include "render_util.h"

#include <utf8proc.h>

#include <cmath>
#include <cstdio>

namespace ascviz::detail {

std::string displayText(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = nextCodePoint(s, i);
        if (cp == '\n')
            cp = 0x21B5; // ↵
        else if (cp < 0x20)
            cp = 0x2400 + cp; // Control Pictures (␉ for tab, ␍ for CR, ...)
        else if (cp == 0x7F)
            cp = 0x2421;
        else if (!xmlAllowed(cp))
            cp = 0xFFFD;
        appendUtf8(out, cp);
    }
    return out;
}

std::string truncateChars(std::string_view s, std::size_t maxChars)
{
    std::size_t i = 0, n = 0;
    while (i < s.size() && n < maxChars) {
        nextCodePoint(s, i);
        ++n;
    }
    if (i >= s.size())
        return std::string(s);
    return std::string(s.substr(0, i)) + "\u2026";
}

int charColumns(char32_t cp)
{
    if (cp > 0x10FFFF)
        return 1;
    const int w = utf8proc_charwidth(static_cast<utf8proc_int32_t>(cp));
    return w < 0 ? 1 : w;
}

double textWidth(std::string_view s, double fontSize)
{
    double em = 0.0;
    for (std::size_t i = 0; i < s.size();) {
        const char32_t cp = nextCodePoint(s, i);
        if (cp < 0x80) {
            const char c = static_cast<char>(cp);
            if (c == ' ' || c == 'i' || c == 'l' || c == 'j' || c == '.' || c == ',' || c == ':' || c == ';' ||
                c == '\'' || c == '|' || c == '!')
                em += 0.34;
            else if (c == 'f' || c == 't' || c == 'r' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' ||
                     c == '}' || c == '"' || c == '`')
                em += 0.45;
            else if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '@' || c == '%')
                em += 0.92;
            else if (c >= 'A' && c <= 'Z')
                em += 0.72;
            else
                em += 0.63;
        } else {
            const int cols = charColumns(cp);
            em += cols == 0 ? 0.0 : (cols >= 2 ? 1.05 : 0.7);
        }
    }
    return em * fontSize;
}

std::string hex(Rgb c)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

double luminance(Rgb c)
{
    auto lin = [](unsigned char v) {
        const double x = v / 255.0;
        return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

std::string formatValue(std::optional<double> v)
{
    if (!v || !std::isfinite(*v))
        return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", *v);
    return buf;
}

std::string fmt(double x)
{
    if (!std::isfinite(x))
        x = 0.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    std::string s = buf;
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    if (s == "-0")
        s = "0";
    return s;
}

} // namespace ascviz::detail
