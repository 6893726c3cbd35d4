// The few heaviest keys per query, and the heads view's SVG pictures (method.md §11).
#include "ascviz/attention/topkeys.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ascviz {

AttentionTopKeys::AttentionTopKeys(int layers, int bos, int keep) : m_layers(layers), m_bos(bos), m_keep(keep)
{
    if (layers <= 0 || keep <= 0)
        throw InputError("attention view: needs at least one layer and one key per query");
    m_keys.resize(static_cast<std::size_t>(layers));
}

void AttentionTopKeys::observeAttention(int layer, int64_t position, std::span<const int64_t> shape,
                                        std::span<const float> data)
{
    if (shape.size() != 3 || shape[1] != shape[2] || shape[0] <= 0 ||
        data.size() != static_cast<std::size_t>(shape[0] * shape[1] * shape[2]) || layer < 0 || layer >= m_layers)
        throw InputError("attention view: layer " + std::to_string(layer) + " is not [heads, T, T] of the model");
    const int H = static_cast<int>(shape[0]);
    const int64_t T = shape[1];
    if (m_heads && H != m_heads)
        throw InputError("attention view: the head count changes at layer " + std::to_string(layer));
    m_heads = H;
    auto& perHead = m_keys[static_cast<std::size_t>(layer)];
    perHead.resize(static_cast<std::size_t>(H));
    const int64_t firstToken = position - m_bos;
    std::vector<Key> row;
    for (int h = 0; h < H; ++h) {
        auto& perQuery = perHead[static_cast<std::size_t>(h)];
        for (int64_t r = 0; r < T; ++r) {
            const int64_t q = firstToken + r;
            if (q < 0)
                continue;
            if (static_cast<std::size_t>(q) < perQuery.size() && !perQuery[static_cast<std::size_t>(q)].empty())
                continue; // kept from an earlier window
            if (static_cast<std::size_t>(q) >= perQuery.size())
                perQuery.resize(static_cast<std::size_t>(q) + 1);
            row.clear();
            for (int64_t k = 0; k <= r; ++k)
                row.push_back({static_cast<int>(firstToken + k < 0 ? -1 : firstToken + k),
                               data[static_cast<std::size_t>((h * T + r) * T + k)]});
            const std::size_t n = std::min(row.size(), static_cast<std::size_t>(m_keep));
            std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n), row.end(),
                              [](const Key& a, const Key& b) { return a.weight > b.weight; });
            perQuery[static_cast<std::size_t>(q)].assign(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n));
            m_queries = std::max(m_queries, static_cast<int>(q) + 1);
        }
    }
}

std::vector<AttentionTopKeys::Key> AttentionTopKeys::keys(int layer, int head, int query) const
{
    if (layer < 0 || layer >= m_layers || head < 0 || head >= m_heads || query < 0)
        return {};
    const auto& perHead = m_keys[static_cast<std::size_t>(layer)];
    if (static_cast<std::size_t>(head) >= perHead.size())
        return {};
    const auto& perQuery = perHead[static_cast<std::size_t>(head)];
    return static_cast<std::size_t>(query) < perQuery.size() ? perQuery[static_cast<std::size_t>(query)]
                                                             : std::vector<Key>{};
}

namespace {

std::string esc(const std::string& s)
{
    std::string o;
    for (char c : s) {
        switch (c) {
        case '<':
            o += "&lt;";
            break;
        case '>':
            o += "&gt;";
            break;
        case '&':
            o += "&amp;";
            break;
        case '"':
            o += "&quot;";
            break;
        default:
            o += c;
        }
    }
    return o;
}

// White → dark blue for a score in [0, 1].
std::string blue(double v)
{
    v = std::clamp(v, 0.0, 1.0);
    char buf[16];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(255 - 222 * v), static_cast<int>(255 - 172 * v),
                  static_cast<int>(255 - 75 * v));
    return buf;
}

} // namespace

std::string headHeatmapSvg(const std::vector<double>& scores, int layers, int heads, const std::string& title,
                           std::pair<int, int> pick)
{
    const int cell = 36, left = 64, top = 48;
    const int w = std::max(left + heads * cell + 16, 16 + 7 * static_cast<int>(title.size())),
              h = top + layers * cell + 24;
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"" << w << "\" height=\"" << h
      << "\" fill=\"white\"/>\n"
      << "<text x=\"8\" y=\"18\" font-size=\"13\">" << esc(title) << "</text>\n";
    for (int hd = 0; hd < heads; ++hd)
        s << "<text x=\"" << left + hd * cell + cell / 2 << "\" y=\"" << top - 6 << "\" text-anchor=\"middle\">H" << hd
          << "</text>\n";
    char buf[32];
    for (int l = 0; l < layers; ++l) {
        s << "<text x=\"" << left - 8 << "\" y=\"" << top + l * cell + cell / 2 + 4 << "\" text-anchor=\"end\">L" << l
          << "</text>\n";
        for (int hd = 0; hd < heads; ++hd) {
            const std::size_t i = static_cast<std::size_t>(l * heads + hd);
            const double v = i < scores.size() ? scores[i] : 0.0;
            const bool picked = pick.first == l && pick.second == hd;
            s << "<rect x=\"" << left + hd * cell << "\" y=\"" << top + l * cell << "\" width=\"" << cell
              << "\" height=\"" << cell << "\" fill=\"" << blue(v) << "\" stroke=\"" << (picked ? "#d62728" : "#999")
              << "\" stroke-width=\"" << (picked ? 3 : 1) << "\"/>\n";
            std::snprintf(buf, sizeof buf, "%.0f", 100.0 * v);
            s << "<text x=\"" << left + hd * cell + cell / 2 << "\" y=\"" << top + l * cell + cell / 2 + 4
              << "\" text-anchor=\"middle\" fill=\"" << (v > 0.55 ? "white" : "black") << "\">" << buf << "</text>\n";
        }
    }
    s << "</svg>\n";
    return s.str();
}

std::string attentionArcsSvg(const std::string& text, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                             int query, const std::vector<AttentionTopKeys::Key>& keys,
                             const std::vector<std::pair<int, int>>& edges, const std::string& title)
{
    // Monospace layout: column = bytes since the line start (tabs as one), 7 px a column, 22 px a line.
    const double cw = 9.0, lh = 30.0, left = 12, top = 110; // room above the first line for its arcs
    std::vector<double> cx(spans.size()), cy(spans.size());
    std::size_t line = 0, lineStart = 0, maxCol = 0;
    std::ostringstream boxes;
    for (std::size_t i = 0, b = 0; i < spans.size(); ++i) {
        for (; b < spans[i].first && b < text.size(); ++b)
            if (text[b] == '\n') {
                ++line;
                lineStart = b + 1;
            }
        // Skip the token's leading whitespace and newlines for its box.
        std::size_t s = spans[i].first;
        while (s < spans[i].second && s < text.size() && (text[s] == ' ' || text[s] == '\n' || text[s] == '\t')) {
            if (text[s] == '\n') {
                ++line;
                lineStart = s + 1;
            }
            ++s;
        }
        b = s;
        const std::size_t e = std::max(s, std::min(spans[i].second, text.size()));
        const double x = left + cw * static_cast<double>(s - lineStart), y = top + lh * static_cast<double>(line);
        cx[i] = x + cw * static_cast<double>(e - s) / 2;
        cy[i] = y;
        maxCol = std::max(maxCol, e - lineStart);
        const bool q = static_cast<int>(i) == query;
        boxes << "<rect x=\"" << x << "\" y=\"" << y - 10 << "\" width=\"" << cw * static_cast<double>(e - s)
              << "\" height=\"20\" fill=\"" << (q ? "#ffdd99" : "#f2f2f2") << "\" stroke=\"#ccc\"/>\n"
              << "<text x=\"" << x << "\" y=\"" << y + 5 << "\" font-family=\"monospace\" font-size=\"14.5\">"
              << esc(text.substr(s, e - s)) << "</text>\n";
    }
    const double w =
        std::max(left * 2 + cw * static_cast<double>(maxCol) + 40, 16 + 7.0 * static_cast<double>(title.size()));
    const double h = top + lh * static_cast<double>(line + 1) + 8;
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"" << w << "\" height=\"" << h
      << "\" fill=\"white\"/>\n"
      << "<text x=\"8\" y=\"18\" font-size=\"13\">" << esc(title) << "</text>\n"
      << boxes.str();
    auto arc = [&](int from, int to, const char* colour, double width, bool dashed) {
        if (from < 0 || to < 0 || static_cast<std::size_t>(from) >= spans.size() ||
            static_cast<std::size_t>(to) >= spans.size())
            return;
        const double x1 = cx[static_cast<std::size_t>(from)], y1 = cy[static_cast<std::size_t>(from)] - 10;
        const double x2 = cx[static_cast<std::size_t>(to)], y2 = cy[static_cast<std::size_t>(to)] - 10;
        const double lift = std::min(10 + 0.25 * std::abs(x1 - x2) + 0.3 * std::abs(y1 - y2), top - 30);
        s << "<path d=\"M" << x1 << ' ' << y1 << " C" << x1 << ' ' << std::min(y1, y2) - lift << ' ' << x2 << ' '
          << std::min(y1, y2) - lift << ' ' << x2 << ' ' << y2 << "\" fill=\"none\" stroke=\"" << colour
          << "\" stroke-opacity=\"0.8\" stroke-width=\"" << width << "\"" << (dashed ? " stroke-dasharray=\"4 3\"" : "")
          << "/>\n";
    };
    for (const auto& [a, b] : edges)
        arc(b, a, "#2ca02c", 1.5, true);
    for (const auto& k : keys)
        arc(query, k.token, "#d62728", 0.5 + 6.0 * k.weight, false);
    s << "</svg>\n";
    return s.str();
}

} // namespace ascviz
