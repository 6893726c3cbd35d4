// The global heat map (heatmap.h).
#include "ascviz/render/heatmap.h"

#include "ascviz/base/error.h"
#include "ascviz/render/layout.h"
#include "render_util.h"

#include <algorithm>
#include <sstream>

namespace ascviz {

std::string renderHeatmapSvg(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                             const std::string& title)
{
    using namespace detail;
    if (columns.empty())
        throw InputError("a heat map needs at least one result set");
    constexpr double font = 11, cellH = 26, pad = 12, titleH = 30, legendH = 40;
    double rowHeadW = 60;
    for (const auto& r : rows)
        rowHeadW = std::max(rowHeadW, textWidth(displayText(r), font) + 16);
    std::vector<double> colW;
    for (const auto& c : columns)
        colW.push_back(std::max(70.0, textWidth(truncateChars(displayText(c.name), 40), font) + 16));
    double gridW = 0;
    for (double w : colW)
        gridW += w;
    const double headH = 24;
    const double w = pad * 2 + rowHeadW + gridW;
    const double h = pad * 2 + titleH + headH + cellH * static_cast<double>(rows.size()) + legendH;
    std::ostringstream s;
    s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(w) << "\" height=\"" << fmt(h)
      << "\" viewBox=\"0 0 " << fmt(w) << ' ' << fmt(h) << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << fmt(w) << "\" height=\"" << fmt(h) << "\" fill=\"#ffffff\"/>\n"
      << "<text x=\"" << fmt(pad) << "\" y=\"" << fmt(pad + 16)
      << "\" font-size=\"14\" font-weight=\"bold\" fill=\"#111111\">" << xmlEscape(title) << "</text>\n";
    const double top = pad + titleH;
    double x = pad + rowHeadW;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        s << "<text x=\"" << fmt(x + colW[c] / 2) << "\" y=\"" << fmt(top + 16) << "\" font-size=\"" << fmt(font)
          << "\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#111111\">"
          << xmlEscape(truncateChars(displayText(columns[c].name), 40)) << "</text>\n";
        x += colW[c];
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double y = top + headH + cellH * static_cast<double>(r);
        s << "<text x=\"" << fmt(pad + rowHeadW - 8) << "\" y=\"" << fmt(y + cellH / 2 + 4) << "\" font-size=\""
          << fmt(font) << "\" text-anchor=\"end\" fill=\"#111111\">" << xmlEscape(displayText(rows[r])) << "</text>\n";
        x = pad + rowHeadW;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const auto it = columns[c].values.find(rows[r]);
            const std::optional<double> v = it == columns[c].values.end() ? std::nullopt : it->second;
            const Rgb fill = ascColor(v);
            s << "<g data-row=\"" << xmlEscape(rows[r]) << "\" data-column=\"" << c << "\" data-value=\""
              << (v ? formatValue(v) : std::string("n/a")) << "\">"
              << "<rect x=\"" << fmt(x + 1) << "\" y=\"" << fmt(y + 1) << "\" width=\"" << fmt(colW[c] - 2)
              << "\" height=\"" << fmt(cellH - 2) << "\" fill=\"" << hex(fill) << "\"/>"
              << "<text x=\"" << fmt(x + colW[c] / 2) << "\" y=\"" << fmt(y + cellH / 2 + 4) << "\" font-size=\""
              << fmt(font) << "\" text-anchor=\"middle\" fill=\"" << hex(textColourOn(fill)) << "\">" << formatValue(v)
              << "</text></g>\n";
            x += colW[c];
        }
    }
    // Legend: the scale with its three anchors.
    const double ly = top + headH + cellH * static_cast<double>(rows.size()) + 12;
    const double lx = pad + rowHeadW;
    const double lw = std::min(240.0, std::max(120.0, gridW));
    for (int i = 0; i < 40; ++i) {
        const double v = (i + 0.5) / 40.0;
        s << "<rect x=\"" << fmt(lx + lw * i / 40.0) << "\" y=\"" << fmt(ly) << "\" width=\"" << fmt(lw / 40.0 + 0.3)
          << "\" height=\"10\" fill=\"" << hex(ascColor(v)) << "\"/>\n";
    }
    for (double v : {0.0, 0.5, 1.0})
        s << "<text x=\"" << fmt(lx + lw * v) << "\" y=\"" << fmt(ly + 22)
          << "\" font-size=\"9\" text-anchor=\"middle\" "
          << "fill=\"#333333\">" << formatValue(v) << "</text>\n";
    s << "<text x=\"" << fmt(lx - 8) << "\" y=\"" << fmt(ly + 9)
      << "\" font-size=\"9\" text-anchor=\"end\" fill=\"#333333\">"
      << "AsC-Eval</text>\n";
    s << "</svg>\n";
    return s.str();
}

} // namespace ascviz
