// Shared chart pieces (parts.h).
#include "parts.h"

#include "ascviz/render/svg.h"

#include <algorithm>
#include <cstdint>
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

Rgb scaleColour(const ScaleSpec& spec, std::optional<double> v)
{
    if (!spec.blues)
        return ascColor(v);
    const double t = std::clamp(v.value_or(0.0), 0.0, 1.0);
    return {static_cast<unsigned char>(255 - 222 * t), static_cast<unsigned char>(255 - 172 * t),
            static_cast<unsigned char>(255 - 75 * t)};
}

void hatch(Figure& f, double x, double y, double w, double h)
{
    const double step = 3.0;
    for (double t = step / 2; t < w + h; t += step) {
        const double u0 = std::max(0.0, t - h), u1 = std::min(w, t);
        if (u1 - u0 < 0.05)
            continue;
        f.line(x + u0, y + t - u0, x + u1, y + t - u1, Rgb{120, 120, 120}, 0.35);
    }
}

Size scaleLegend(Figure* f, double x, double y, double maxWidth, const FigureStyle& s, const std::string& caption,
                 const ScaleSpec& spec)
{
    const double tf = tickFont(s);
    const double barH = tf * 1.2;
    const auto capLines = wrapText(caption, tf, maxWidth);
    const double capH = lineHeight(tf) * static_cast<double>(capLines.size());
    const std::string na = "n/a";
    const double naW = spec.na ? barH * 1.4 + 3 + measureText(na, tf) + 8 : 0;
    const std::string hiTick = spec.blues ? "100%" : "1";
    const double edge = measureText(hiTick, tf) / 2 + 1; // the end ticks' labels reach past the bar
    const double barW = std::max(30.0, std::min(140.0, maxWidth - naW - 2 * edge));
    const double w = std::max(labelWidth(capLines, tf), edge + barW + edge + naW);
    const double h = capH + 2 + barH + 2 + lineHeight(tf);
    if (!f)
        return {w, h};
    double cy = y;
    for (const auto& l : capLines) {
        cy += lineHeight(tf);
        f->text(x, cy - tf * 0.25, l, tf);
    }
    const double bx = x + edge, by = y + capH + 2;
    const int steps = 40;
    for (int i = 0; i < steps; ++i) {
        const double v = (i + 0.5) / steps;
        f->rect(bx + barW * i / steps, by, barW / steps + 0.2, barH, scaleColour(spec, v));
    }
    f->rect(bx, by, barW, barH, std::nullopt, Rgb{85, 85, 85}, 0.4);
    for (double v : {0.0, 0.5, 1.0}) {
        f->line(bx + barW * v, by + barH, bx + barW * v, by + barH + 2, Rgb{85, 85, 85}, 0.4);
        const std::string label =
            spec.blues ? (v == 0.5 ? "50%" : (v == 0 ? "0%" : "100%")) : (v == 0.5 ? "0.5" : (v == 0 ? "0" : "1"));
        f->text(bx + barW * v, by + barH + 2 + tf, label, tf, TextAnchor::Middle);
    }
    if (spec.na) { // grey and hatched, so it differs from 0.5 (white) also without colour
        const double nx = bx + barW + edge + 8;
        f->rect(nx, by, barH * 1.4, barH, ascColor(std::nullopt), Rgb{85, 85, 85}, 0.4);
        hatch(*f, nx, by, barH * 1.4, barH);
        f->text(nx + barH * 1.4 + 3, by + barH * 0.8, na, tf);
    }
    return {w, h};
}

FittedLabels fitLabels(const std::vector<std::string>& names, double fontPt, double maxWidth, const std::string& prefix,
                       bool bold, std::size_t maxLines)
{
    FittedLabels out;
    for (const auto& n : names) {
        // Wrap at spaces only: a name like for_statement is one word and is never split at its "_".
        std::vector<std::string> lines;
        std::string line;
        std::size_t pos = 0;
        bool fits = true;
        while (pos <= n.size()) {
            const std::size_t sp = std::min(n.find(' ', pos), n.size());
            const std::string word = n.substr(pos, sp - pos);
            const std::string joined = line.empty() ? word : line + " " + word;
            if (!line.empty() && measureText(joined, fontPt, bold) > maxWidth) {
                lines.push_back(line);
                line = word;
            } else {
                line = joined;
            }
            if (measureText(word, fontPt, bold) > maxWidth)
                fits = false;
            pos = sp + 1;
        }
        if (!line.empty() || lines.empty())
            lines.push_back(line);
        if (!fits || lines.size() > maxLines) {
            const std::string k = prefix + std::to_string(out.key.size() + 1);
            out.key.push_back(k + " = " + n);
            lines = {k};
        }
        out.lines.push_back(std::move(lines));
    }
    return out;
}

std::string keyNote(const std::vector<std::string>& key)
{
    if (key.empty())
        return {};
    std::string s = "Key: ";
    for (std::size_t i = 0; i < key.size(); ++i)
        s += (i ? "; " : "") + key[i];
    return s + ".";
}

std::string noBreak(const std::string& s)
{
    std::string out;
    for (char c : s)
        out += c == ' ' ? std::string("\u00a0") : std::string(1, c);
    return out;
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
    if (!column && !extra.empty() && cx > x) { // notes start their own row, apart from the runs
        cx = x;
        cy += rowH + 2;
        rowH = 0;
    }
    for (const auto& e : extra)
        entry(e, std::nullopt);
    return {w, cy + rowH - y};
}

double axisHeight(double plotWidth, const FigureStyle& s, const std::string& caption)
{
    const double tf = tickFont(s);
    const double capLines = caption.empty() ? 0 : static_cast<double>(wrapText(caption, tf, plotWidth).size());
    return 2 + lineHeight(tf) * (1 + capLines) + 2;
}

double axis01(Figure& f, double x0, double x1, double top, double bottom, const FigureStyle& s,
              const std::string& caption, bool guides)
{
    const double tf = tickFont(s);
    const Rgb guide{150, 150, 150};
    if (guides)
        for (double v : {0.5, 0.6}) {
            FigLine l{x0 + (x1 - x0) * v, top, x0 + (x1 - x0) * v, bottom, guide, 0.4, true};
            f.items.emplace_back(l);
        }
    f.line(x0, bottom, x1, bottom, Rgb{68, 68, 68}, 0.5);
    // Tick labels that would touch their neighbour are left out (0, 0.5 and 1 stay).
    const double gap = (x1 - x0) / 4;
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double tx = x0 + (x1 - x0) * v;
        f.line(tx, bottom, tx, bottom + 2, Rgb{68, 68, 68}, 0.5);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        if ((v == 0.25 || v == 0.75) && gap < measureText("0.75", tf) / 2 + measureText("0.5", tf) / 2 + 2)
            continue;
        f.text(tx, bottom + 2 + tf, buf, tf, TextAnchor::Middle);
    }
    double h = 2 + lineHeight(tf);
    for (const auto& l : caption.empty() ? std::vector<std::string>{} : wrapText(caption, tf, x1 - x0)) {
        f.text((x0 + x1) / 2, bottom + h + tf, l, tf, TextAnchor::Middle);
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
                    std::size_t slots, const std::function<Size(double, bool)>& legendSize,
                    const std::string& axisCaption, double extraRight)
{
    RowFrame fr;
    const double W = f.widthPt;
    fr.legend = s.legend;
    // Labels take at most 38 % of what is left beside a right legend; the plot keeps kMinPlotShare of the page,
    // else the legend moves below.
    // Labels take a share of the width beside the plot: the share with the fewest keyed labels that leaves the
    // plot a third of the page, among those one that leaves it 45 %; else the narrowest share.
    auto fit = [&](double innerW) {
        FittedLabels best, narrowest;
        std::pair<std::size_t, int> bestScore{SIZE_MAX, 2};
        for (double share : {0.38, 0.45, 0.5, 0.3, 0.24}) {
            FittedLabels l = fitLabels(rows, s.fontPt, innerW * share, "C", false, 3);
            double lw = 0;
            for (const auto& x : l.lines)
                lw = std::max(lw, labelWidth(x, s.fontPt));
            const double plot = innerW - lw - 8 - extraRight;
            const std::pair<std::size_t, int> score{l.key.size(), plot >= 0.45 * W ? 0 : 1};
            if (plot >= W / 3 + 1 && score < bestScore) {
                bestScore = score;
                best = l;
            }
            if (share == 0.24)
                narrowest = std::move(l);
        }
        return bestScore.first != SIZE_MAX ? best : narrowest;
    };
    double legendW = 0, legendH = 0;
    FittedLabels labels;
    double innerW = W - 2 * kPad;
    if (fr.legend == LegendPlacement::Right) {
        const Size ls = legendSize(W * 0.3, true);
        innerW = W - 2 * kPad - ls.w - 2 * kPad;
        labels = fit(innerW);
        double lw = 0;
        for (const auto& l : labels.lines)
            lw = std::max(lw, labelWidth(l, s.fontPt));
        if (innerW - lw - 8 - extraRight < kMinPlotShare * W)
            fr.legend = LegendPlacement::Bottom;
        else {
            legendW = ls.w;
            legendH = ls.h;
        }
    }
    if (fr.legend != LegendPlacement::Right) {
        innerW = W - 2 * kPad;
        labels = fit(innerW);
        if (fr.legend == LegendPlacement::Bottom)
            legendH = legendSize(W - 2 * kPad, false).h;
    }
    double lw = 0;
    for (const auto& l : labels.lines)
        lw = std::max(lw, labelWidth(l, s.fontPt));
    fr.labels = labels.lines;
    fr.key = labels.key;
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
    f.plotAreas.push_back({fr.plotX0, fr.plotTop, fr.plotX1, fr.plotBottom});
    double bottom = y + axisHeight(fr.plotX1 - fr.plotX0 - extraRight, s, axisCaption);
    if (fr.legend == LegendPlacement::Right) {
        fr.legendX = W - kPad - legendW;
        fr.legendY = contentTop;
        fr.legendW = W * 0.3; // the width it was measured at: it wraps the same when drawn
        bottom = std::max(bottom, contentTop + legendH);
    } else if (fr.legend == LegendPlacement::Bottom) {
        fr.legendX = kPad;
        fr.legendY = bottom + kPad;
        fr.legendW = W - 2 * kPad;
        bottom = fr.legendY + legendH;
    }
    f.heightPt = bottom + kPad;
    return fr;
}

} // namespace ascviz::figparts
