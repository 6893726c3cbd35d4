// Shared chart pieces (parts.h).
#include "parts.h"

#include "ascviz/render/svg.h"

#include <algorithm>
#include <cstdio>

namespace ascviz::figparts {

double tickFont(const FigureStyle& s)
{
    return std::max(kMinFigureFontPt, s.fontPt * 0.85);
}

double lineHeight(double fontPt)
{
    return fontPt * 1.25;
}

std::string value2(double v)
{
    return valueText(v);
}

double drawTitle(Figure& f, const FigureStyle& s, const std::string& title)
{
    if (!s.title || title.empty())
        return kPad;
    const double size = s.fontPt * 1.2;
    double y = kPad;
    for (const auto& line : wrapText(title, size, f.widthPt - 2 * kPad, true)) {
        y += lineHeight(size);
        f.text(kPad, y - size * 0.25, line, size, TextAnchor::Start, true);
    }
    return y + kPad;
}

double labelWidth(const std::vector<std::string>& lines, double fontPt)
{
    double w = 0;
    for (const auto& l : lines)
        w = std::max(w, measureText(l, fontPt));
    return w;
}

void drawLabel(Figure& f, const std::vector<std::string>& lines, double x, double cy, double fontPt, TextAnchor a)
{
    const double lh = lineHeight(fontPt);
    double y = cy - lh * static_cast<double>(lines.size()) / 2 + fontPt * 0.95;
    for (const auto& l : lines) {
        f.text(x, y, l, fontPt, a);
        y += lh;
    }
}

Size scaleLegend(Figure* f, double x, double y, double maxWidth, const FigureStyle& s, const std::string& caption)
{
    const double tf = tickFont(s);
    const double barH = tf * 1.2;
    const auto capLines = wrapText(caption, tf, maxWidth);
    const double capH = lineHeight(tf) * static_cast<double>(capLines.size());
    const std::string na = "n/a";
    const double naW = barH * 1.4 + 3 + measureText(na, tf);
    const double barW = std::max(40.0, std::min(140.0, maxWidth - naW - 10));
    const double w = std::max(labelWidth(capLines, tf), barW + 10 + naW + measureText("1", tf) / 2);
    const double h = capH + 2 + barH + 2 + lineHeight(tf);
    if (!f)
        return {w, h};
    double cy = y;
    for (const auto& l : capLines) {
        cy += lineHeight(tf);
        f->text(x, cy - tf * 0.25, l, tf);
    }
    const double by = y + capH + 2;
    const int steps = 40;
    for (int i = 0; i < steps; ++i) {
        const double v = (i + 0.5) / steps;
        f->rect(x + barW * i / steps, by, barW / steps + 0.2, barH, ascColor(v));
    }
    f->rect(x, by, barW, barH, std::nullopt, Rgb{85, 85, 85}, 0.4);
    for (double v : {0.0, 0.5, 1.0}) {
        f->line(x + barW * v, by + barH, x + barW * v, by + barH + 2, Rgb{85, 85, 85}, 0.4);
        f->text(x + barW * v, by + barH + 2 + tf, v == 0.5 ? "0.5" : (v == 0 ? "0" : "1"), tf, TextAnchor::Middle);
    }
    // n/a: grey with a diagonal, so it differs from 0.5 (white) also without colour.
    const double nx = x + barW + 10;
    f->rect(nx, by, barH * 1.4, barH, ascColor(std::nullopt), Rgb{85, 85, 85}, 0.4);
    f->line(nx, by + barH, nx + barH * 1.4, by, Rgb{110, 110, 110}, 0.5);
    f->text(nx + barH * 1.4 + 3, by + barH * 0.8, na, tf);
    return {w, h};
}

Size runLegend(Figure* f, double x, double y, double maxWidth, const std::vector<std::string>& runs,
               const FigureStyle& s, bool column, const std::vector<std::string>& extra,
               const std::vector<Rgb>& colours)
{
    const double tf = tickFont(s);
    const double sw = tf * 1.1, lh = lineHeight(tf);
    double cx = x, cy = y, w = 0, rowH = 0;
    auto entry = [&](const std::string& text, std::optional<Rgb> colour) {
        const double avail = std::max(20.0, maxWidth - (colour ? sw + 3 : 0));
        const auto lines = wrapText(text, tf, avail);
        const double ew = (colour ? sw + 3 : 0) + labelWidth(lines, tf);
        const double eh = lh * static_cast<double>(lines.size());
        if (!column && cx > x && cx + ew > x + maxWidth) {
            cx = x;
            cy += rowH + 2;
            rowH = 0;
        }
        if (f) {
            if (colour)
                f->rect(cx, cy + (lh - sw) / 2, sw, sw, *colour);
            double ty = cy + tf * 0.95;
            for (const auto& l : lines) {
                f->text(cx + (colour ? sw + 3 : 0), ty, l, tf);
                ty += lh;
            }
        }
        w = std::max(w, cx - x + ew);
        rowH = std::max(rowH, eh);
        if (column) {
            cy += eh + 2;
            rowH = 0;
        } else {
            cx += ew + 8;
        }
    };
    for (std::size_t k = 0; k < runs.size(); ++k)
        entry(runs[k], colours.size() > k ? colours[k] : runColour(k));
    for (const auto& e : extra)
        entry(e, std::nullopt);
    return {w, cy + rowH - y};
}

double axis01(Figure& f, double x0, double x1, double top, double bottom, const FigureStyle& s,
              const std::string& caption)
{
    const double tf = tickFont(s);
    const Rgb guide{150, 150, 150};
    for (double v : {0.5, 0.6}) {
        FigLine l{x0 + (x1 - x0) * v, top, x0 + (x1 - x0) * v, bottom, guide, 0.4, true};
        f.items.emplace_back(l);
    }
    f.line(x0, bottom, x1, bottom, Rgb{68, 68, 68}, 0.5);
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double tx = x0 + (x1 - x0) * v;
        f.line(tx, bottom, tx, bottom + 2, Rgb{68, 68, 68}, 0.5);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        f.text(tx, bottom + 2 + tf, buf, tf, TextAnchor::Middle);
    }
    double h = 2 + lineHeight(tf);
    if (!caption.empty()) {
        f.text((x0 + x1) / 2, bottom + h + tf, caption, tf, TextAnchor::Middle);
        h += lineHeight(tf);
    }
    return h + 2;
}

double drawNote(Figure& f, const std::string& text, double x, double y, double width, const FigureStyle& s)
{
    if (text.empty())
        return 0;
    const double tf = tickFont(s);
    double cy = y;
    for (const auto& l : wrapText(text, tf, width)) {
        cy += lineHeight(tf);
        f.text(x, cy - tf * 0.25, l, tf, TextAnchor::Start, false, Rgb{85, 85, 85});
    }
    return cy - y;
}

} // namespace ascviz::figparts

namespace ascviz::figparts {

RowFrame layoutRows(Figure& f, const FigureStyle& s, double contentTop, const std::vector<std::string>& rows,
                    std::size_t slots, const std::function<Size(double)>& legendSize, double axisH)
{
    RowFrame fr;
    const double W = f.widthPt;
    double legendW = 0, legendH = 0;
    if (s.legend == LegendPlacement::Right) {
        const Size ls = legendSize(W * 0.3);
        legendW = ls.w;
        legendH = ls.h;
    } else if (s.legend == LegendPlacement::Bottom) {
        legendH = legendSize(W - 2 * kPad).h;
    }
    const double innerW = W - 2 * kPad - (legendW > 0 ? legendW + 2 * kPad : 0);
    const double maxLabel = innerW * 0.38;
    double lw = 0;
    for (const auto& r : rows) {
        fr.labels.push_back(wrapText(r, s.fontPt, maxLabel));
        lw = std::max(lw, labelWidth(fr.labels.back(), s.fontPt));
    }
    fr.labelX = kPad + lw;
    fr.plotX0 = fr.labelX + 4;
    fr.plotX1 = kPad + innerW - 4;
    fr.slotH = std::max(s.fontPt * 0.9, 4.0);
    double y = contentTop;
    fr.plotTop = y;
    for (const auto& lines : fr.labels) {
        const double h =
            std::max(fr.slotH * static_cast<double>(slots), lineHeight(s.fontPt) * lines.size()) + fr.slotH * 0.8;
        fr.rowTop.push_back(y);
        fr.rowH.push_back(h);
        y += h;
    }
    fr.plotBottom = y;
    double bottom = y + axisH;
    if (s.legend == LegendPlacement::Right) {
        fr.legendX = W - kPad - legendW;
        fr.legendY = contentTop;
        fr.legendW = W * 0.3; // the width it was measured at: it wraps the same when drawn
        bottom = std::max(bottom, contentTop + legendH);
    } else if (s.legend == LegendPlacement::Bottom) {
        fr.legendX = kPad;
        fr.legendY = bottom + kPad;
        fr.legendW = W - 2 * kPad;
        bottom = fr.legendY + legendH;
    }
    f.heightPt = bottom + kPad;
    return fr;
}

} // namespace ascviz::figparts
