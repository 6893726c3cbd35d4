// A small vector drawing layer for paper figures (docs/figures.md): a Figure is a page (width and height in
// points, 1 pt = 1/72 in) holding primitives in drawing order — text as text, rectangles, lines and paths —
// written out as SVG (the page's width and height in mm, a viewBox in points) or as PDF through Cairo. Text
// is measured with Cairo's text extents of DejaVu Sans, so labels are laid out at their drawn width.
#pragma once
#include "ascviz/render/layout.h"

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ascviz {

constexpr double kPointsPerMm = 72.0 / 25.4;
// The smallest font a figure draws (labels stay legible in print).
constexpr double kMinFigureFontPt = 6.0;
// The page widths a figure takes: below 30 mm its labels do not fit (at 1 mm they were drawn off a 2.8 pt
// page), above 2000 mm it is not a figure for print.
constexpr double kMinFigureWidthMm = 30.0;
constexpr double kMaxFigureWidthMm = 2000.0;

enum class LegendPlacement { Right, Bottom, None };
// "right" | "bottom" | "none"; parseLegendPlacement throws InputError for any other text.
std::string toString(LegendPlacement p);
LegendPlacement parseLegendPlacement(const std::string& s);

// The options every figure takes (CLI: --width-mm/--width-pt, --font-pt, --no-title, --legend).
struct FigureStyle {
    double widthPt = 85.0 * kPointsPerMm; // one-column width
    double fontPt = 8.0;                  // labels; the title is 1.2x, tick labels never below kMinFigureFontPt
    bool title = true;
    LegendPlacement legend = LegendPlacement::Right;
    // Throws InputError when the width is not within [kMinFigureWidthMm, kMaxFigureWidthMm] or the font is below
    // kMinFigureFontPt or over 72.
    void validate() const;
};

enum class TextAnchor { Start, Middle, End };
struct FigText {
    double x = 0, y = 0; // the baseline's anchor point
    std::string text;    // one line, UTF-8
    double sizePt = 8;
    Rgb color{17, 17, 17};
    TextAnchor anchor = TextAnchor::Start;
    bool bold = false;
    bool mono = false; // DejaVu Sans Mono (code)
    double rotate = 0; // degrees, clockwise, about (x, y)
};
struct FigRect {
    double x = 0, y = 0, w = 0, h = 0;
    std::optional<Rgb> fill;
    std::optional<Rgb> stroke;
    double strokeWidth = 0.5;
    double radius = 0;
    bool dashed = false;
    std::string tooltip; // SVG <title> (not drawn in PDF)
    // A left-to-right colour gradient through these stops (evenly spaced) instead of `fill` (legend colour bars).
    std::vector<Rgb> gradient;
};
struct FigLine {
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    Rgb stroke{68, 68, 68};
    double width = 0.5;
    bool dashed = false;
};
// A path of straight and cubic segments: M x y, L x y, C x1 y1 x2 y2 x y, Z.
struct FigPathOp {
    char op = 'M';
    std::vector<double> xy;
};
struct FigPath {
    std::vector<FigPathOp> ops;
    std::optional<Rgb> fill;
    std::optional<Rgb> stroke;
    double width = 0.5;
    bool dashed = false;
};
// Attributes written on the SVG group of the items that follow (data-node="3"); an empty list closes it.
struct FigGroup {
    FigGroup() = default;
    FigGroup(std::vector<std::pair<std::string, std::string>> attrs, std::string tip = {})
        : attributes(std::move(attrs)), tooltip(std::move(tip))
    {
    }
    std::vector<std::pair<std::string, std::string>> attributes;
    std::string tooltip; // SVG <title> of the group (not drawn in PDF)
};
using FigItem = std::variant<FigText, FigRect, FigLine, FigPath, FigGroup>;

// An axis-aligned box on the page, in points (y downwards).
struct FigBox {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    double width() const { return x1 - x0; }
    double height() const { return y1 - y0; }
    bool overlaps(const FigBox& o, double tolerance = 0) const;
};

struct Figure {
    double widthPt = 0, heightPt = 0;
    std::string title; // the document title (SVG <title>, PDF metadata)
    // The SVG's width and height in CSS pixels (the GUI's views at screen size) rather than in mm; the
    // viewBox and every coordinate stay the same numbers.
    bool pixelUnits = false;
    std::vector<FigItem> items;
    // The plot areas the layout reserved (bars, boxes, cells, the treemap): not drawn, kept so that a check can
    // see that no legend or label squeezed them below a legible size.
    std::vector<FigBox> plotAreas;
    void text(double x, double y, std::string s, double sizePt, TextAnchor a = TextAnchor::Start, bool bold = false,
              Rgb color = {17, 17, 17});
    void rect(double x, double y, double w, double h, std::optional<Rgb> fill, std::optional<Rgb> stroke = {},
              double strokeWidth = 0.5);
    // The one builder of a text item and of a rectangle: text() and rect() add what these make; a caller that
    // puts the item into a FigGroup (the views' node groups) takes it from here.
    static FigText makeText(double x, double y, std::string s, double sizePt, TextAnchor a = TextAnchor::Start,
                            bool bold = false, Rgb color = {17, 17, 17}, bool mono = false);
    static FigRect makeRect(double x, double y, double w, double h, std::optional<Rgb> fill,
                            std::optional<Rgb> stroke = {}, double strokeWidth = 0.5, double radius = 0);
    void line(double x1, double y1, double x2, double y2, Rgb stroke = {68, 68, 68}, double width = 0.5);
    // Moves every item by (dx, dy) (used to place a sub-figure on a page).
    void append(const Figure& other, double dx, double dy);
};

// The advance width in points of one line of text in DejaVu Sans (Mono) at sizePt (Cairo text extents).
double measureText(const std::string& text, double sizePt, bool bold = false, bool mono = false);
// Splits text at spaces (and after '_', '-', '/') into lines no wider than maxWidthPt; a single word wider
// than that stays whole on its own line (never cut).
std::vector<std::string> wrapText(const std::string& text, double sizePt, double maxWidthPt, bool bold = false);

// The ink box of every text item as the layout placed it: the advance width (measureText) by the font's ascent
// (0.76 em) above and descent (0.24 em) below the baseline, rotated texts by the box of their turned rectangle.
// In drawing order of the FigText items. The figure sweep asserts on these (no overlap, inside the page).
struct TextBox {
    FigBox box;
    std::string text;
    double sizePt = 0;
};
std::vector<TextBox> textBoxes(const Figure& f);
// Pairs (i, j), i < j, of textBoxes(f) that overlap by more than `tolerance` points in both directions.
std::vector<std::pair<std::size_t, std::size_t>> overlappingText(const std::vector<TextBox>& boxes,
                                                                 double tolerance = 0.2);

// The SVG document: width="Wmm" height="Hmm" viewBox="0 0 Wpt Hpt"; text as <text>, no raster images.
std::string figureToSvg(const Figure& f);
// The PDF document (Cairo; fonts embedded as subsets, text stays text). Throws Error when Cairo fails.
std::string figureToPdf(const Figure& f);
// A raster preview (PNG at `dpi`) drawn by the PDF's painter: for looking at a figure as printed, never
// written into an SVG or PDF.
std::string figureToPng(const Figure& f, double dpi = 300);
// Writes the SVG or PDF (by `pdf`) to `file`; throws InputError naming the file when it cannot be written.
void writeFigure(const Figure& f, const std::filesystem::path& file, bool pdf);

} // namespace ascviz
