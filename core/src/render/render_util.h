// Internal helpers shared by layout.cpp and svg.cpp (not part of the public contract).
#pragma once
#include "ascviz/base/utf8.h"
#include "ascviz/base/xml.h"
#include "ascviz/render/layout.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ascviz::detail {

// Node label metrics, in points (the SVG renderer and the Graphviz node sizes use the same numbers).
inline constexpr double kLabelFontSize = 10.0;
inline constexpr double kLabelLineHeight = 12.5;
inline constexpr double kLabelPadX = 7.0;
inline constexpr double kLabelPadY = 4.5;

// Code points are decoded and encoded by base/utf8.h, the one codec.
using ascviz::appendUtf8;
using ascviz::nextCodePoint;

// Makes text displayable on one line: control characters become their Control Pictures symbol
// (U+2400 + c; "\n" -> U+21B5), XML-forbidden code points become U+FFFD.
std::string displayText(std::string_view s);
// The code points of s, at most maxChars, with "…" when cut.
std::string truncateChars(std::string_view s, std::size_t maxChars);
using ascviz::xmlEscape; // base/xml.h, the one escaper

// Estimated advance width of a line of sans-serif text (DejaVu Sans-like) at fontSize points; errs wide.
double textWidth(std::string_view s, double fontSize);
// Terminal columns of a code point (0 for combining marks, 2 for wide CJK/emoji), via utf8proc.
int charColumns(char32_t cp);

std::string hex(Rgb c);
// Relative luminance in [0, 1], to pick black or white text over a fill.
double luminance(Rgb c);
std::string formatValue(std::optional<double> v); // "0.63" or "n/a"
std::string fmt(double x);                        // compact number for SVG coordinates
// nodeLabel with `options` applied (collapse.cpp): the code text of a non-terminal (options.nodeText) and a last
// line "…(n)" when hidden > 0 nodes below it are not shown (collapsedCounts).
std::string labelWithHidden(const EvalResult& r, int node, AstView view, const LayoutOptions& options, int hidden);

} // namespace ascviz::detail
