// SVG export of the three views (method.md §8), written from GraphLayout / the token spans so that the
// exported picture is the one the GUI draws. Text stays text (no embedded fonts): a reader can select it.
#include "ascviz/render/svg.h"

#include "ascviz/base/error.h"
#include "ascviz/render/sequence.h"
#include "render_util.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ascviz {
namespace {

using detail::fmt;
using detail::hex;

constexpr const char* kSansFont = "DejaVu Sans, Helvetica, Arial, sans-serif";
constexpr const char* kMonoFont = "DejaVu Sans Mono, Menlo, Consolas, monospace";
constexpr double kMargin = 16.0;
constexpr double kLegendHeight = 62.0;
constexpr double kLegendMinWidth = 600.0;
const Rgb kErrorStroke{127, 0, 0};

void svgOpen(std::ostringstream& s, double w, double h, const std::string& title)
{
    s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << fmt(w) << "\" height=\"" << fmt(h)
      << "\" viewBox=\"0 0 " << fmt(w) << ' ' << fmt(h) << "\" font-family=\"" << kSansFont << "\">\n"
      << "<title>" << xmlEscape(title) << "</title>\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << fmt(w) << "\" height=\"" << fmt(h) << "\" fill=\"#ffffff\"/>\n";
}

void titleBlock(std::ostringstream& s, double x, double y, const std::string& line1, const std::string& line2)
{
    s << "<text x=\"" << fmt(x) << "\" y=\"" << fmt(y + 15)
      << "\" font-size=\"14\" font-weight=\"bold\" fill=\"#111111\">" << xmlEscape(line1) << "</text>\n"
      << "<text x=\"" << fmt(x) << "\" y=\"" << fmt(y + 32) << "\" font-size=\"10.5\" fill=\"#444444\">"
      << xmlEscape(line2) << "</text>\n";
}

// Colour bar 0..1 with ticks, the n/a swatch and either the ERROR marker or the generated-token marker.
void legend(std::ostringstream& s, double x, double y, const std::string& caption, bool errorMarker,
            bool generatedMarker)
{
    s << "<g class=\"legend\">\n";
    s << "<defs><linearGradient id=\"ascviz-scale\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"0\">";
    for (int k = 0; k <= 10; ++k) {
        const double v = k / 10.0;
        s << "<stop offset=\"" << fmt(v) << "\" stop-color=\"" << hex(ascColor(v)) << "\"/>";
    }
    s << "</linearGradient></defs>\n";
    s << "<text x=\"" << fmt(x) << "\" y=\"" << fmt(y + 10) << "\" font-size=\"10.5\" fill=\"#111111\">"
      << xmlEscape(caption) << "</text>\n";
    const double barX = x, barY = y + 17, barW = 220, barH = 12;
    s << "<rect x=\"" << fmt(barX) << "\" y=\"" << fmt(barY) << "\" width=\"" << fmt(barW) << "\" height=\""
      << fmt(barH) << "\" fill=\"url(#ascviz-scale)\" stroke=\"#555555\" stroke-width=\"0.6\"/>\n";
    for (int k = 0; k <= 4; ++k) {
        const double v = k / 4.0, tx = barX + v * barW;
        s << "<line x1=\"" << fmt(tx) << "\" y1=\"" << fmt(barY + barH) << "\" x2=\"" << fmt(tx) << "\" y2=\""
          << fmt(barY + barH + 4) << "\" stroke=\"#555555\" stroke-width=\"0.8\"/>"
          << "<text x=\"" << fmt(tx) << "\" y=\"" << fmt(barY + barH + 14)
          << "\" font-size=\"9\" text-anchor=\"middle\" fill=\"#333333\">" << fmt(v) << "</text>\n";
    }
    s << "<text x=\"" << fmt(barX) << "\" y=\"" << fmt(barY + barH + 26)
      << "\" font-size=\"8.5\" fill=\"#666666\">low</text>"
      << "<text x=\"" << fmt(barX + barW) << "\" y=\"" << fmt(barY + barH + 26)
      << "\" font-size=\"8.5\" text-anchor=\"end\" fill=\"#666666\">high</text>\n";

    double sx = barX + barW + 28;
    s << "<rect x=\"" << fmt(sx) << "\" y=\"" << fmt(barY) << "\" width=\"16\" height=\"12\" rx=\"2\" fill=\""
      << hex(ascColor(std::nullopt)) << "\" stroke=\"#555555\" stroke-width=\"0.6\"/>"
      << "<text x=\"" << fmt(sx + 22) << "\" y=\"" << fmt(barY + 10)
      << "\" font-size=\"10\" fill=\"#111111\">n/a (no scored token)</text>\n";
    sx += 150;
    if (errorMarker) {
        s << "<rect x=\"" << fmt(sx) << "\" y=\"" << fmt(barY)
          << "\" width=\"16\" height=\"12\" rx=\"2\" fill=\"#ffffff\" stroke=\"" << hex(kErrorStroke)
          << "\" stroke-width=\"2\" stroke-dasharray=\"3 1.5\"/>"
          << "<text x=\"" << fmt(sx + 22) << "\" y=\"" << fmt(barY + 10)
          << "\" font-size=\"10\" fill=\"#111111\">ERROR / MISSING node</text>\n";
    }
    if (generatedMarker) {
        s << "<rect x=\"" << fmt(sx) << "\" y=\"" << fmt(barY)
          << "\" width=\"16\" height=\"12\" fill=\"#ffffff\" stroke=\"#bbbbbb\" stroke-width=\"0.6\"/>"
          << "<line x1=\"" << fmt(sx) << "\" y1=\"" << fmt(barY + 13.5) << "\" x2=\"" << fmt(sx + 16) << "\" y2=\""
          << fmt(barY + 13.5) << "\" stroke=\"#111111\" stroke-width=\"2\"/>"
          << "<text x=\"" << fmt(sx + 22) << "\" y=\"" << fmt(barY + 10)
          << "\" font-size=\"10\" fill=\"#111111\">generated token (bold, underlined)</text>\n";
    }
    s << "</g>\n";
}

std::string viewName(AstView v)
{
    return v == AstView::Complete ? "AST complete" : "AST partial";
}

std::string ceText(const ScoredText& st)
{
    const double ce = st.crossEntropy();
    return std::isfinite(ce) ? fmt(ce) : std::string("n/a");
}

} // namespace

std::string renderAstSvg(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    const GraphLayout g = layoutAst(r, view, options);
    const auto& ast = r.tree.nodes();
    const double titleH = 46.0;
    const double contentW = std::max(g.width, kLegendMinWidth);
    const double W = contentW + 2 * kMargin;
    const double H = kMargin + titleH + g.height + 18 + kLegendHeight + kMargin;
    const double gx = kMargin + (contentW - g.width) / 2, gy = kMargin + titleH;

    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    std::ostringstream s;
    svgOpen(s, W, H, "AsC-Eval " + viewName(view) + " - " + model);
    titleBlock(
        s, kMargin, kMargin,
        "AsC-Eval \u00b7 " + model + " \u00b7 \u03b8 = " + toString(r.aggregation) + " \u00b7 " + viewName(view),
        "snippet AsC-Eval " + detail::formatValue(r.features.ascEval) + " \u00b7 " + std::to_string(g.nodes.size()) +
            " of " + std::to_string(ast.size()) + " nodes shown \u00b7 " + std::to_string(r.features.astLevels) +
            " levels \u00b7 cyclomatic " + std::to_string(r.features.cyclomatic) + " \u00b7 " +
            std::to_string(r.features.tokens) + " tokens \u00b7 cross-entropy " + ceText(r.scored) +
            (g.engine == LayoutEngine::Tree
                 ? " \u00b7 tree layout (over " + std::to_string(options.maxGraphvizNodes) + " nodes for Graphviz)"
                 : std::string()));

    s << "<g class=\"graph\" transform=\"translate(" << fmt(gx) << ' ' << fmt(gy) << ")\">\n";
    s << "<g class=\"edges\" fill=\"none\" stroke=\"#777777\" stroke-width=\"1\">\n";
    for (const auto& e : g.edges) {
        if (e.points.empty())
            continue;
        s << "<path data-from=\"" << e.from << "\" data-to=\"" << e.to << "\" d=\"M" << fmt(e.points[0].first) << ','
          << fmt(e.points[0].second);
        for (std::size_t k = 1; k + 2 < e.points.size(); k += 3)
            s << " C" << fmt(e.points[k].first) << ',' << fmt(e.points[k].second) << ' ' << fmt(e.points[k + 1].first)
              << ',' << fmt(e.points[k + 1].second) << ' ' << fmt(e.points[k + 2].first) << ','
              << fmt(e.points[k + 2].second);
        s << "\"/>\n";
    }
    s << "</g>\n<g class=\"nodes\" font-size=\"" << fmt(detail::kLabelFontSize) << "\" text-anchor=\"middle\">\n";
    for (const auto& ln : g.nodes) {
        const auto& n = ast[static_cast<std::size_t>(ln.node)];
        const auto& ne = r.nodes[static_cast<std::size_t>(ln.node)];
        const Rgb fill = ascColor(ne.value);
        const double x0 = ln.x - ln.width / 2, y0 = ln.y - ln.height / 2;
        s << "<g class=\"node" << (n.error() ? " error" : "") << "\" id=\"node-" << n.id << "\" data-node=\"" << n.id
          << "\" data-type=\"" << xmlEscape(n.type) << "\" data-start=\"" << n.start << "\" data-end=\"" << n.end
          << "\">"
          << "<title>" << xmlEscape(detail::displayText(n.type)) << (n.isMissing ? " (MISSING)" : "") << " [" << n.start
          << ", " << n.end << ") AsC-Eval " << detail::formatValue(ne.value) << " over " << ne.tokens.size()
          << " tokens" << (ne.category ? " \u00b7 " + xmlEscape(*ne.category) : std::string()) << "</title>";
        s << "<rect x=\"" << fmt(x0) << "\" y=\"" << fmt(y0) << "\" width=\"" << fmt(ln.width) << "\" height=\""
          << fmt(ln.height) << "\" rx=\"4\" ry=\"4\" fill=\"" << hex(fill) << '"';
        if (n.error())
            s << " stroke=\"" << hex(kErrorStroke) << "\" stroke-width=\"2.5\" stroke-dasharray=\"5 2.5\"";
        else
            s << " stroke=\"#444444\" stroke-width=\"0.8\"";
        s << "/>";
        s << "<text fill=\"" << detail::hex(textColourOn(fill)) << "\">";
        std::istringstream lines(ln.label);
        std::string line;
        int i = 0;
        int count = static_cast<int>(std::count(ln.label.begin(), ln.label.end(), '\n')) + 1;
        const double firstBaseline = ln.y - (count * detail::kLabelLineHeight) / 2 + detail::kLabelFontSize * 0.95;
        while (std::getline(lines, line)) {
            const bool valueLine = i == count - 1;
            s << "<tspan x=\"" << fmt(ln.x) << "\" y=\"" << fmt(firstBaseline + i * detail::kLabelLineHeight) << '"'
              << (valueLine ? " font-weight=\"bold\"" : "") << '>' << xmlEscape(line) << "</tspan>";
            ++i;
        }
        s << "</text></g>\n";
    }
    s << "</g>\n</g>\n";
    legend(s, kMargin, gy + g.height + 18,
           "AsC-Eval of a node = " + toString(r.aggregation) + " of the NtP of its aligned tokens", true, false);
    s << "</svg>\n";
    return s.str();
}

std::string xmlEscape(std::string_view s)
{
    return detail::xmlEscape(s);
}

std::string svgNumber(double x)
{
    return detail::fmt(x);
}

std::string svgColour(Rgb c)
{
    return detail::hex(c);
}

std::string valueText(double v)
{
    return detail::formatValue(v);
}

WhitespaceTokens parseWhitespaceTokens(const std::string& s)
{
    if (s == "faint")
        return WhitespaceTokens::Faint;
    if (s == "none")
        return WhitespaceTokens::None;
    if (s == "full")
        return WhitespaceTokens::Full;
    throw InputError("unknown whitespace mode '" + s + "' (faint, none or full)");
}

bool isWhitespaceToken(const ScoredText& s, std::size_t t)
{
    const auto& tok = s.tokens.at(t);
    if (tok.end <= tok.start || tok.end > s.text.size())
        return false;
    for (std::size_t b = tok.start; b < tok.end; ++b)
        if (std::string_view(" \t\r\n\f\v").find(s.text[b]) == std::string_view::npos)
            return false;
    return true;
}

std::optional<Rgb> tokenFill(const ScoredText& s, std::size_t t, WhitespaceTokens ws)
{
    const Rgb full = ascColor(s.tokens.at(t).ntp);
    if (ws == WhitespaceTokens::Full || !isWhitespaceToken(s, t))
        return full;
    if (ws == WhitespaceTokens::None)
        return std::nullopt;
    auto faint = [](unsigned char c) { return static_cast<unsigned char>(255 - (255 - c) / 8); };
    return Rgb{faint(full.r), faint(full.g), faint(full.b)};
}

std::string renderSequenceSvg(const EvalResult& r, WhitespaceTokens ws)
{
    const auto& toks = r.scored.tokens;
    constexpr double fontSize = 13.0, cw = fontSize * 0.602, lineH = fontSize * 1.55;
    const SequenceLayout seq = layoutSequence(r.scored);
    const auto& runs = seq.runs;
    const int lines = seq.lines, maxCols = seq.maxCols;

    const int digits = static_cast<int>(std::to_string(lines).size());
    const double gutter = digits * cw + 14;
    const double titleH = 46.0;
    const double codeW = gutter + maxCols * cw + 4;
    const double contentW = std::max(codeW, kLegendMinWidth);
    const double W = contentW + 2 * kMargin;
    const double codeY = kMargin + titleH;
    const double H = codeY + lines * lineH + 18 + kLegendHeight + kMargin;
    const double codeX = kMargin + gutter;

    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    std::size_t generated = 0;
    for (const auto& t : toks)
        generated += t.generated ? 1 : 0;
    std::ostringstream s;
    svgOpen(s, W, H, "AsC-Viz sequence view - " + model);
    titleBlock(s, kMargin, kMargin, "Next-token predictions \u00b7 " + model + " \u00b7 sequence view",
               std::to_string(toks.size()) + " tokens (" + std::to_string(toks.size() - generated) + " prompt, " +
                   std::to_string(generated) + " generated) \u00b7 cross-entropy " + ceText(r.scored) +
                   " \u00b7 snippet AsC-Eval (" + toString(r.aggregation) + ") " +
                   detail::formatValue(r.features.ascEval));

    // Line numbers.
    s << "<g class=\"line-numbers\" font-family=\"" << kMonoFont << "\" font-size=\"" << fmt(fontSize * 0.85)
      << "\" fill=\"#999999\" text-anchor=\"end\">\n";
    for (int l = 0; l < lines; ++l)
        s << "<text x=\"" << fmt(codeX - 10) << "\" y=\"" << fmt(codeY + l * lineH + lineH * 0.7) << "\">" << l + 1
          << "</text>\n";
    s << "</g>\n";

    int firstGenerated = -1, firstGeneratedLine = 0, firstGeneratedCol = 0;
    for (const auto& run : runs)
        if (run.token >= 0 && toks[static_cast<std::size_t>(run.token)].generated) {
            firstGenerated = run.token;
            firstGeneratedLine = run.line;
            firstGeneratedCol = run.col;
            break;
        }
    s << "<g class=\"code\" font-family=\"" << kMonoFont << "\" font-size=\"" << fmt(fontSize)
      << "\" xml:space=\"preserve\">\n";
    for (const auto& run : runs) {
        const double x = codeX + run.col * cw, y = codeY + run.line * lineH;
        const double w = run.newline ? cw * 0.6 : run.cols * cw;
        if (run.token < 0) { // bytes no token covers: plain text
            if (!run.newline && !run.text.empty())
                s << "<text x=\"" << fmt(x) << "\" y=\"" << fmt(y + lineH * 0.72) << "\" fill=\"#111111\">"
                  << xmlEscape(run.text) << "</text>\n";
            continue;
        }
        const auto& t = toks[static_cast<std::size_t>(run.token)];
        const std::optional<Rgb> tokenColour = tokenFill(r.scored, static_cast<std::size_t>(run.token), ws);
        const Rgb fill = tokenColour.value_or(Rgb{255, 255, 255});
        s << "<g class=\"token" << (t.generated ? " generated" : "") << "\" data-token=\"" << run.token << "\">";
        s << "<title>token " << run.token << " \u00b7 id " << t.id << " \u00b7 bytes [" << t.start << ", " << t.end
          << ") \u00b7 NtP " << detail::formatValue(t.ntp);
        if (auto ce = t.crossEntropy())
            s << " \u00b7 CE " << fmt(*ce);
        s << (t.generated ? " \u00b7 generated" : " \u00b7 prompt") << "</title>";
        if (tokenColour)
            s << "<rect x=\"" << fmt(x + 0.4) << "\" y=\"" << fmt(y + 1) << "\" width=\"" << fmt(std::max(w - 0.8, 0.5))
              << "\" height=\"" << fmt(lineH - 2) << "\" rx=\"2\" fill=\"" << hex(fill) << "\"/>";
        if (t.generated && run.token == firstGenerated && run.col == firstGeneratedCol &&
            run.line == firstGeneratedLine) // where the completion starts
            s << "<line x1=\"" << fmt(x - 1.2) << "\" y1=\"" << fmt(y - 1) << "\" x2=\"" << fmt(x - 1.2) << "\" y2=\""
              << fmt(y + lineH + 1) << "\" stroke=\"#111111\" stroke-width=\"1.6\"/>";
        if (t.generated)
            s << "<line x1=\"" << fmt(x + 0.4) << "\" y1=\"" << fmt(y + lineH - 1.5) << "\" x2=\""
              << fmt(x + std::max(w - 0.4, 0.9)) << "\" y2=\"" << fmt(y + lineH - 1.5)
              << "\" stroke=\"#111111\" stroke-width=\"2\"/>";
        if (!run.newline && !run.text.empty())
            s << "<text x=\"" << fmt(x) << "\" y=\"" << fmt(y + lineH * 0.72) << "\" fill=\""
              << detail::hex(textColourOn(fill)) << (t.generated ? "\" font-weight=\"bold" : "") << "\">"
              << xmlEscape(run.text) << "</text>";
        s << "</g>\n";
    }
    s << "</g>\n";
    legend(s, kMargin, codeY + lines * lineH + 18, "NtP: probability the model gave to each actual token", false, true);
    s << "</svg>\n";
    return s.str();
}

} // namespace ascviz
