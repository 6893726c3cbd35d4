// LaTeX text (latex.h).
#include "ascviz/base/latex.h"

#include <array>
#include <utility>

namespace ascviz {

std::string latexEscape(std::string_view s)
{
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kMath = {{
        {"\xCE\xB8", "$\\theta$"},
        {"\xCE\xB4", "$\\delta$"},
        {"\xE2\x84\x93", "$\\ell$"},
        {"\xC3\x97", "$\\times$"},
        {"\xC2\xB1", "$\\pm$"},
        {"\xE2\x89\xA4", "$\\leq$"},
        {"\xE2\x89\xA5", "$\\geq$"},
        {"\xE2\x86\x92", "$\\rightarrow$"},
    }};
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            bool matched = false;
            for (const auto& [utf8, tex] : kMath)
                if (s.substr(i, utf8.size()) == utf8) {
                    out += tex;
                    i += utf8.size();
                    matched = true;
                    break;
                }
            if (!matched)
                out += s[i++];
            continue;
        }
        switch (c) {
        case '\\':
            out += "\\textbackslash{}";
            break;
        case '~':
            out += "\\textasciitilde{}";
            break;
        case '^':
            out += "\\textasciicircum{}";
            break;
        case '<':
            out += "\\textless{}";
            break;
        case '>':
            out += "\\textgreater{}";
            break;
        case '|':
            out += "\\textbar{}";
            break;
        case '&':
        case '%':
        case '$':
        case '#':
        case '_':
        case '{':
        case '}':
            out += '\\';
            out += c;
            break;
        default:
            out += c;
        }
        ++i;
    }
    return out;
}

} // namespace ascviz
