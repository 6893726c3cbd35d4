// A scatter plot with value axes and an optional fit line (charts.h).
#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ascviz {
namespace {

struct Range {
    double lo = 0, hi = 1;
};

Range paddedRange(const std::vector<double>& v)
{
    const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    if (*mx - *mn <= 0)
        return {*mn - 0.5, *mx + 0.5};
    const double pad = 0.05 * (*mx - *mn);
    return {*mn - pad, *mx + pad};
}

std::string tickText(double v, double step)
{
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::abs(v) < step * 1e-9 ? 0.0 : v);
    return buf;
}

} // namespace

std::vector<double> niceTicks(double lo, double hi, int minTicks)
{
    std::vector<double> out;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return out;
    const double span = hi - lo;
    double step = std::pow(10.0, std::ceil(std::log10(span)));
    const double factors[3] = {0.5, 0.4, 0.5}; // 10 -> 5 -> 2 -> 1 -> 0.5 ...
    for (int i = 0; std::floor(hi / step) - std::ceil(lo / step) + 1 < minTicks && i < 60; ++i)
        step *= factors[i % 3];
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1)
        out.push_back(k * step);
    return out;
}

Figure scatterFigure(const ScatterData& d, const FigureStyle& style)
{
    using namespace figparts;
    style.validate();
    if (d.x.size() != d.y.size())
        throw InputError("a scatter plot needs as many y values as x values (" + std::to_string(d.x.size()) + " x, " +
                         std::to_string(d.y.size()) + " y)");
    if (d.x.empty())
        throw InputError("a scatter plot needs at least one point");
    for (std::size_t i = 0; i < d.x.size(); ++i)
        if (!std::isfinite(d.x[i]) || !std::isfinite(d.y[i]))
            throw InputError("scatter point " + std::to_string(i + 1) + " is not a finite number");
    Figure f;
    f.widthPt = style.widthPt;
    f.title = d.title.empty() ? "Scatter plot" : d.title;
    const double top = drawTitle(f, style, d.title);
    const double tf = tickFont(style);
    const Range rx = paddedRange(d.x), ry = paddedRange(d.y);
    const std::vector<double> tx = niceTicks(rx.lo, rx.hi), ty = niceTicks(ry.lo, ry.hi);
    const double stepX = tx.size() > 1 ? tx[1] - tx[0] : 1, stepY = ty.size() > 1 ? ty[1] - ty[0] : 1;
    double tickW = 0;
    for (double v : ty)
        tickW = std::max(tickW, measureText(tickText(v, stepY), tf));
    // Left: the rotated y caption (wrapped to the plot's height, one column per line), the tick labels, 3 pt
    // ticks. Bottom: ticks, tick labels, the x caption.
    const double x1 = f.widthPt - kPad - 2;
    double plotTop = top + tf / 2;
    std::vector<std::string> yLines = {d.yLabel};
    double x0 = 0, plotH = 0;
    auto frame = [&] {
        x0 = kPad + lineHeight(style.fontPt) * static_cast<double>(yLines.size()) + tickW + 5;
        plotH = std::max(40.0, (x1 - x0) * 0.62);
    };
    for (int pass = 0; pass < 4; ++pass) {
        frame();
        auto next = wrapText(d.yLabel, style.fontPt, plotH);
        if (next.size() <= yLines.size() && pass > 0)
            break;
        yLines = std::move(next);
    }
    // More than two turned lines: the y caption goes above the plot, horizontal, wrapped to the width.
    std::vector<std::string> yAbove;
    if (yLines.size() > 2) {
        yAbove = wrapText(d.yLabel, style.fontPt, x1 - kPad);
        yLines.clear();
    }
    plotTop += lineHeight(style.fontPt) * static_cast<double>(yAbove.size());
    frame(); // the columns of the caption's final line count
    const double plotBottom = plotTop + plotH;
    f.plotAreas.push_back({x0, plotTop, x1, plotBottom});
    auto px = [&](double v) { return x0 + (v - rx.lo) / (rx.hi - rx.lo) * (x1 - x0); };
    auto py = [&](double v) { return plotBottom - (v - ry.lo) / (ry.hi - ry.lo) * plotH; };
    const Rgb grid{225, 225, 225}, ink{17, 17, 17};
    // x tick labels: every k-th when neighbours would touch.
    double xTickW = 0;
    for (double v : tx)
        xTickW = std::max(xTickW, measureText(tickText(v, stepX), tf));
    const double spacing = tx.size() > 1 ? px(tx[1]) - px(tx[0]) : x1 - x0;
    const std::size_t every = static_cast<std::size_t>(std::ceil((xTickW + 3) / std::max(spacing, 1e-6)));
    for (std::size_t i = 0; i < tx.size(); ++i) {
        const double v = tx[i];
        f.line(px(v), plotTop, px(v), plotBottom, grid, 0.4);
        f.line(px(v), plotBottom, px(v), plotBottom + 3, ink, 0.5);
        if (i % std::max<std::size_t>(every, 1) == 0)
            f.text(px(v), plotBottom + 3 + tf, tickText(v, stepX), tf, TextAnchor::Middle);
    }
    for (double v : ty) {
        f.line(x0, py(v), x1, py(v), grid, 0.4);
        f.line(x0 - 3, py(v), x0, py(v), ink, 0.5);
        f.text(x0 - 4, py(v) + tf * 0.35, tickText(v, stepY), tf, TextAnchor::End);
    }
    f.rect(x0, plotTop, x1 - x0, plotH, std::nullopt, Rgb{68, 68, 68}, 0.5);
    for (std::size_t i = 0; i < yAbove.size(); ++i)
        f.text(kPad, top + lineHeight(style.fontPt) * static_cast<double>(i) + style.fontPt, yAbove[i], style.fontPt);
    for (std::size_t i = 0; i < yLines.size(); ++i) {
        FigText yCaption;
        yCaption.x = kPad + style.fontPt * 0.8 + lineHeight(style.fontPt) * static_cast<double>(i);
        yCaption.y = plotTop + plotH / 2;
        yCaption.text = yLines[i];
        yCaption.sizePt = style.fontPt;
        yCaption.anchor = TextAnchor::Middle;
        yCaption.rotate = -90;
        f.items.emplace_back(yCaption);
    }
    double y = plotBottom + 3 + lineHeight(tf);
    for (const auto& line : wrapText(d.xLabel, style.fontPt, x1 - x0)) {
        y += lineHeight(style.fontPt);
        f.text((x0 + x1) / 2, y - style.fontPt * 0.25, line, style.fontPt, TextAnchor::Middle);
    }
    const double r = 1.6;
    const Rgb dot = runColour(0);
    for (std::size_t i = 0; i < d.x.size(); ++i) {
        FigRect c;
        c.x = px(d.x[i]) - r;
        c.y = py(d.y[i]) - r;
        c.w = c.h = 2 * r;
        c.radius = r;
        c.fill = dot;
        c.stroke = Rgb{255, 255, 255};
        c.strokeWidth = 0.3;
        c.tooltip = "(" + value2(d.x[i]) + ", " + value2(d.y[i]) + ")";
        f.items.emplace_back(c);
    }
    const Rgb fitColour = runColour(5);
    if (d.fit) {
        const auto [mn, mx] = std::minmax_element(d.x.begin(), d.x.end());
        auto fy = [&](double v) { return d.fit->intercept + d.fit->slope * v; };
        // Clipped to the plot: the line's ends are moved along it to the plot's top or bottom edge.
        double a = *mn, b = *mx;
        if (d.fit->slope != 0) {
            auto xAt = [&](double yv) { return (yv - d.fit->intercept) / d.fit->slope; };
            const double e1 = xAt(ry.lo), e2 = xAt(ry.hi);
            a = std::max(a, std::min(e1, e2));
            b = std::min(b, std::max(e1, e2));
        }
        if (a <= b)
            f.line(px(a), py(fy(a)), px(b), py(fy(b)), fitColour, 1.0);
    }
    y += kPad;
    if (style.legend != LegendPlacement::None && d.fit && !d.fit->label.empty()) {
        // Two entries, side by side when they fit the width, else one per row; the fit's label wraps.
        const double fp = style.fontPt, lh = lineHeight(fp);
        const double pointsW = 2 * r + 3 + measureText("points", fp);
        const double lineW = 15;
        const bool oneRow = x0 + pointsW + 10 + lineW + measureText(d.fit->label, fp) <= f.widthPt - kPad;
        const double lx0 = oneRow ? x0 : kPad;
        const auto fitLines = wrapText(d.fit->label, fp, f.widthPt - 2 * kPad - lineW);
        double ly = y + lh / 2;
        FigRect c;
        c.x = lx0;
        c.y = ly - r;
        c.w = c.h = 2 * r;
        c.radius = r;
        c.fill = dot;
        f.items.emplace_back(c);
        f.text(lx0 + 2 * r + 3, ly + fp * 0.35, "points", fp);
        double lx = lx0 + pointsW + 10;
        if (!oneRow) {
            lx = lx0;
            ly += lh;
            y += lh;
        }
        f.line(lx, ly, lx + 12, ly, fitColour, 1.0);
        for (const auto& l : fitLines) {
            f.text(lx + lineW, ly + fp * 0.35, l, fp);
            ly += lh;
            y += lh;
        }
        y += kPad;
    }
    f.heightPt = y + kPad;
    return f;
}

} // namespace ascviz
