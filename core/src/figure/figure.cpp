// The figure model, text measurement (Cairo text extents) and wrapping (figure.h).
#include "ascviz/figure/figure.h"

#include "ascviz/base/error.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

namespace ascviz {

std::string toString(LegendPlacement p)
{
    switch (p) {
    case LegendPlacement::Right:
        return "right";
    case LegendPlacement::Bottom:
        return "bottom";
    case LegendPlacement::None:
        return "none";
    }
    return "right";
}

LegendPlacement parseLegendPlacement(const std::string& s)
{
    for (auto p : {LegendPlacement::Right, LegendPlacement::Bottom, LegendPlacement::None})
        if (toString(p) == s)
            return p;
    throw InputError("unknown legend placement '" + s + "' (right, bottom or none)");
}

void FigureStyle::validate() const
{
    // A margin of 1e-9 mm: a width given in points at the limit (85.04 pt) is not refused for its rounding.
    const double mm = widthPt / kPointsPerMm;
    if (!std::isfinite(widthPt) || mm < kMinFigureWidthMm - 1e-9 || mm > kMaxFigureWidthMm + 1e-9)
        throw InputError("the figure width must be between 30 and 2000 mm (85.04 and 5669.29 pt)");
    if (!std::isfinite(fontPt) || fontPt < kMinFigureFontPt || fontPt > 72)
        throw InputError("the font size must be between 6 and 72 pt (labels below 6 pt are illegible in print)");
}

FigText Figure::makeText(double x, double y, std::string s, double sizePt, TextAnchor a, bool bold, Rgb color,
                         bool mono)
{
    FigText t;
    t.x = x;
    t.y = y;
    t.text = std::move(s);
    t.sizePt = sizePt;
    t.anchor = a;
    t.bold = bold;
    t.color = color;
    t.mono = mono;
    return t;
}

FigRect Figure::makeRect(double x, double y, double w, double h, std::optional<Rgb> fill, std::optional<Rgb> stroke,
                         double strokeWidth, double radius)
{
    FigRect r;
    r.x = x;
    r.y = y;
    r.w = w;
    r.h = h;
    r.fill = fill;
    r.stroke = stroke;
    r.strokeWidth = strokeWidth;
    r.radius = radius;
    return r;
}

void Figure::text(double x, double y, std::string s, double sizePt, TextAnchor a, bool bold, Rgb color)
{
    items.emplace_back(makeText(x, y, std::move(s), sizePt, a, bold, color));
}

void Figure::rect(double x, double y, double w, double h, std::optional<Rgb> fill, std::optional<Rgb> stroke,
                  double strokeWidth)
{
    items.emplace_back(makeRect(x, y, w, h, fill, stroke, strokeWidth));
}

void Figure::line(double x1, double y1, double x2, double y2, Rgb stroke, double width)
{
    items.emplace_back(FigLine{x1, y1, x2, y2, stroke, width, false});
}

void Figure::append(const Figure& other, double dx, double dy)
{
    for (FigItem item : other.items) {
        std::visit(
            [&](auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, FigText> || std::is_same_v<T, FigRect>) {
                    v.x += dx;
                    v.y += dy;
                } else if constexpr (std::is_same_v<T, FigLine>) {
                    v.x1 += dx;
                    v.x2 += dx;
                    v.y1 += dy;
                    v.y2 += dy;
                } else if constexpr (std::is_same_v<T, FigPath>) {
                    for (auto& op : v.ops)
                        for (std::size_t k = 0; k + 1 < op.xy.size(); k += 2) {
                            op.xy[k] += dx;
                            op.xy[k + 1] += dy;
                        }
                }
            },
            item);
        items.push_back(std::move(item));
    }
}

double measureText(const std::string& text, double sizePt, bool bold, bool mono)
{
    if (text.empty())
        return 0;
    // One measuring context for the process; Cairo's toy font API through fontconfig (DejaVu Sans).
    static std::mutex m;
    static cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
    static cairo_t* cr = [] {
        cairo_t* c = cairo_create(surface);
        // Unhinted metrics: the advances of the vector outputs (PDF, an SVG viewer), not rounded to pixels.
        cairo_font_options_t* o = cairo_font_options_create();
        cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
        cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
        cairo_set_font_options(c, o);
        cairo_font_options_destroy(o);
        return c;
    }();
    std::lock_guard<std::mutex> lock(m);
    cairo_select_font_face(cr, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, sizePt);
    cairo_text_extents_t e;
    cairo_text_extents(cr, text.c_str(), &e);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) // invalid UTF-8 and the like: an estimate that errs wide
        return static_cast<double>(text.size()) * sizePt * 0.65;
    return std::max(e.x_advance, e.width + std::max(0.0, e.x_bearing));
}

std::vector<std::string> wrapText(const std::string& text, double sizePt, double maxWidthPt, bool bold)
{
    // Break opportunities: after a space (dropped); inside a word only when the word alone is wider than the
    // line, after '_', '-' or '/' (kept) — so for_statement is never split while it fits a line.
    std::vector<std::string> pieces;
    auto addWord = [&](const std::string& word, bool space) {
        if (measureText(word, sizePt, bold) <= maxWidthPt) {
            pieces.push_back(space ? word + ' ' : word);
            return;
        }
        std::string cur;
        for (char c : word) {
            cur += c;
            if (c == '_' || c == '-' || c == '/') {
                pieces.push_back(cur);
                cur.clear();
            }
        }
        if (!cur.empty() || space)
            pieces.push_back(space ? cur + ' ' : cur);
    };
    std::string cur;
    for (char c : text) {
        if (c == ' ') {
            addWord(cur, true);
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (!cur.empty())
        addWord(cur, false);
    auto trimmed = [](std::string s) {
        while (!s.empty() && s.back() == ' ')
            s.pop_back();
        return s;
    };
    std::vector<std::string> lines;
    std::string line;
    for (const auto& p : pieces) {
        if (!line.empty() && measureText(trimmed(line + p), sizePt, bold) > maxWidthPt) {
            lines.push_back(trimmed(line));
            line.clear();
        }
        line += p;
    }
    if (!trimmed(line).empty() || lines.empty())
        lines.push_back(trimmed(line));
    return lines;
}

} // namespace ascviz

namespace ascviz {

bool FigBox::overlaps(const FigBox& o, double tolerance) const
{
    return std::min(x1, o.x1) - std::max(x0, o.x0) > tolerance && std::min(y1, o.y1) - std::max(y0, o.y0) > tolerance;
}

std::vector<TextBox> textBoxes(const Figure& f)
{
    std::vector<TextBox> out;
    for (const auto& item : f.items) {
        const auto* t = std::get_if<FigText>(&item);
        if (!t)
            continue;
        const double w = measureText(t->text, t->sizePt, t->bold, t->mono);
        const double left = t->anchor == TextAnchor::Start ? 0 : (t->anchor == TextAnchor::Middle ? -w / 2 : -w);
        // Corners relative to the anchor before rotation.
        const double xs[2] = {left, left + w}, ys[2] = {-0.76 * t->sizePt, 0.24 * t->sizePt};
        const double a = t->rotate * M_PI / 180.0, c = std::cos(a), s = std::sin(a);
        FigBox b{1e300, 1e300, -1e300, -1e300};
        for (double x : xs)
            for (double y : ys) {
                const double rx = t->x + x * c - y * s, ry = t->y + x * s + y * c;
                b.x0 = std::min(b.x0, rx);
                b.x1 = std::max(b.x1, rx);
                b.y0 = std::min(b.y0, ry);
                b.y1 = std::max(b.y1, ry);
            }
        out.push_back({b, t->text, t->sizePt});
    }
    return out;
}

std::vector<std::pair<std::size_t, std::size_t>> overlappingText(const std::vector<TextBox>& boxes, double tolerance)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t j = i + 1; j < boxes.size(); ++j)
            if (!boxes[i].text.empty() && !boxes[j].text.empty() && boxes[i].box.overlaps(boxes[j].box, tolerance))
                out.emplace_back(i, j);
    return out;
}

} // namespace ascviz
