// SVG export of the AST and sequence views (method.md §8), drawn from the same GraphLayout as the GUI.
#pragma once
#include "ascviz/render/layout.h"

#include <string>
#include <string_view>

namespace ascviz {

// XML character data / attribute value escaping (& < > " ' and control characters); code points XML 1.0
// forbids become U+FFFD. Every SVG writer of the project escapes with it.
std::string xmlEscape(std::string_view s);
std::string svgNumber(double x); // a coordinate: at most 2 decimals, no trailing zeros ("12.5", "0")
std::string svgColour(Rgb c);    // "#rrggbb"
std::string valueText(double v); // "0.63"

// Standalone SVG documents (title line, the view, legend). Node groups carry id="node-<id>" and
// data-node/data-type/data-start/data-end; token groups carry data-token (sequence view).
// Beyond options.maxGraphvizNodes shown nodes the tree layout is used and the title line says so.
std::string renderAstSvg(const EvalResult& r, AstView view, const LayoutOptions& options = {});
// Whitespace-only tokens (indentation, line breaks) in the sequence view: Faint (default: their NtP colour at
// an eighth of its strength, so indentation does not read as large saturated bars), None (not coloured) or Full
// (like every other token; `render --whitespace full`).
enum class WhitespaceTokens { Faint, None, Full };
WhitespaceTokens parseWhitespaceTokens(const std::string& s); // "faint" | "none" | "full"; InputError else
// Whether token `t`'s bytes are all whitespace (space, tab, CR, LF, FF, VT) — false for an empty span.
bool isWhitespaceToken(const ScoredText& s, std::size_t t);
// The fill of token `t` under the whitespace mode; nullopt: not coloured.
std::optional<Rgb> tokenFill(const ScoredText& s, std::size_t t, WhitespaceTokens ws);
std::string renderSequenceSvg(const EvalResult& r, WhitespaceTokens ws = WhitespaceTokens::Faint);

} // namespace ascviz
