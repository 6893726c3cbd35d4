// The views' text and colour helpers (svg.h); the views themselves are drawn by the figure room (figure/views.h).
#include "ascviz/render/svg.h"

#include "ascviz/base/error.h"
#include "ascviz/render/sequence.h"
#include "render_util.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ascviz {

std::string svgNumber(double x)
{
    return detail::fmt(x);
}

std::string svgColour(Rgb c)
{
    return detail::hex(c);
}

std::string valueText(double v)
{
    return detail::formatValue(v);
}

std::string displayText(std::string_view s)
{
    return detail::displayText(s);
}

std::string truncateChars(std::string_view s, std::size_t maxChars)
{
    return detail::truncateChars(s, maxChars);
}

double estimatedTextWidth(std::string_view s, double fontSize)
{
    return detail::textWidth(s, fontSize);
}

WhitespaceTokens parseWhitespaceTokens(const std::string& s)
{
    if (s == "faint")
        return WhitespaceTokens::Faint;
    if (s == "none")
        return WhitespaceTokens::None;
    if (s == "full")
        return WhitespaceTokens::Full;
    throw InputError("unknown whitespace mode '" + s + "' (faint, none or full)");
}

bool isWhitespaceToken(const ScoredText& s, std::size_t t)
{
    const auto& tok = s.tokens.at(t);
    if (tok.end <= tok.start || tok.end > s.text.size())
        return false;
    for (std::size_t b = tok.start; b < tok.end; ++b)
        if (std::string_view(" \t\r\n\f\v").find(s.text[b]) == std::string_view::npos)
            return false;
    return true;
}

std::optional<Rgb> tokenFill(const ScoredText& s, std::size_t t, WhitespaceTokens ws)
{
    const Rgb full = ascColor(s.tokens.at(t).ntp);
    if (ws == WhitespaceTokens::Full || !isWhitespaceToken(s, t))
        return full;
    if (ws == WhitespaceTokens::None)
        return std::nullopt;
    auto faint = [](unsigned char c) { return static_cast<unsigned char>(255 - (255 - c) / 8); };
    return Rgb{faint(full.r), faint(full.g), faint(full.b)};
}

} // namespace ascviz
