// Text and colour helpers of the views (method.md §8) that the figure room draws with (figure/views.h draws
// the AST and sequence views from render's layouts), and the whitespace-token rule of the sequence view.
#pragma once
#include "ascviz/base/xml.h" // xmlEscape, the one XML escaper
#include "ascviz/render/layout.h"

#include <string>
#include <string_view>

namespace ascviz {

std::string svgNumber(double x); // a coordinate: at most 2 decimals, no trailing zeros ("12.5", "0")
std::string svgColour(Rgb c);    // "#rrggbb"
std::string valueText(double v); // "0.63"
// Control characters as their Control Pictures symbol (U+2400 + c; "\n" -> U+21B5), XML-forbidden code points
// as U+FFFD: text displayable on one line.
std::string displayText(std::string_view s);
// The code points of s, at most maxChars, with "…" when cut.
std::string truncateChars(std::string_view s, std::size_t maxChars);
// The estimated advance width of a line of sans-serif text at fontSize (errs wide; the layout's metric).
double estimatedTextWidth(std::string_view s, double fontSize);

// Whitespace-only tokens (indentation, line breaks) in the sequence view: Faint (default: their NtP colour at
// an eighth of its strength, so indentation does not read as large saturated bars), None (not coloured) or Full
// (like every other token; `render --whitespace full`).
enum class WhitespaceTokens { Faint, None, Full };
WhitespaceTokens parseWhitespaceTokens(const std::string& s); // "faint" | "none" | "full"; InputError else
// Whether token `t`'s bytes are all whitespace (space, tab, CR, LF, FF, VT) — false for an empty span.
bool isWhitespaceToken(const ScoredText& s, std::size_t t);
// The fill of token `t` under the whitespace mode; nullopt: not coloured.
std::optional<Rgb> tokenFill(const ScoredText& s, std::size_t t, WhitespaceTokens ws);

} // namespace ascviz
