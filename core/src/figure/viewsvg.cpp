// The GUI's AST and sequence views as standalone pictures (views.h): render's layout at its own size, drawn
// as a Figure so that every SVG of the project comes out of one writer (output.cpp). Text stays text.
#include "ascviz/figure/views.h"
#include "ascviz/render/sequence.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ascviz {
namespace {

constexpr double kMargin = 16.0;
constexpr double kLegendHeight = 62.0;
constexpr double kLegendMinWidth = 600.0;
constexpr double kLabelFontSize = 10.0;   // the layout's node label metrics (render_util.h)
constexpr double kLabelLineHeight = 12.5; // ditto
const Rgb kErrorStroke{127, 0, 0};
const Rgb kInk{17, 17, 17};
const Rgb kEdgeGrey{85, 85, 85};

std::string value(std::optional<double> v)
{
    return v ? valueText(*v) : std::string("n/a");
}

std::string ceText(const ScoredText& st)
{
    const double ce = st.crossEntropy();
    return std::isfinite(ce) ? svgNumber(ce) : std::string("n/a");
}

std::string viewName(AstView v)
{
    return v == AstView::Complete ? "AST complete" : "AST partial";
}

FigGroup classGroup(const char* name)
{
    std::vector<std::pair<std::string, std::string>> attributes;
    attributes.emplace_back("class", name);
    return FigGroup(std::move(attributes));
}

void titleBlock(Figure& f, double x, double y, const std::string& line1, const std::string& line2)
{
    f.items.emplace_back(Figure::makeText(x, y + 15, line1, 14, TextAnchor::Start, true, kInk));
    f.items.emplace_back(Figure::makeText(x, y + 32, line2, 10.5, TextAnchor::Start, false, Rgb{68, 68, 68}));
}

// Colour bar 0..1 with ticks, the n/a swatch and either the ERROR marker or the generated-token marker.
void legend(Figure& f, double x, double y, const std::string& caption, bool errorMarker, bool generatedMarker)
{
    f.items.emplace_back(classGroup("legend"));
    f.items.emplace_back(Figure::makeText(x, y + 10, caption, 10.5, TextAnchor::Start, false, kInk));
    const double barX = x, barY = y + 17, barW = 220, barH = 12;
    FigRect bar = Figure::makeRect(barX, barY, barW, barH, std::nullopt, kEdgeGrey, 0.6);
    for (int k = 0; k <= 10; ++k)
        bar.gradient.push_back(ascColor(k / 10.0));
    f.items.emplace_back(bar);
    for (int k = 0; k <= 4; ++k) {
        const double v = k / 4.0, tx = barX + v * barW;
        f.line(tx, barY + barH, tx, barY + barH + 4, kEdgeGrey, 0.8);
        f.items.emplace_back(
            Figure::makeText(tx, barY + barH + 14, svgNumber(v), 9, TextAnchor::Middle, false, Rgb{51, 51, 51}));
    }
    f.items.emplace_back(
        Figure::makeText(barX, barY + barH + 26, "low", 8.5, TextAnchor::Start, false, Rgb{102, 102, 102}));
    f.items.emplace_back(
        Figure::makeText(barX + barW, barY + barH + 26, "high", 8.5, TextAnchor::End, false, Rgb{102, 102, 102}));
    double sx = barX + barW + 28;
    f.items.emplace_back(Figure::makeRect(sx, barY, 16, 12, ascColor(std::nullopt), kEdgeGrey, 0.6, 2));
    f.items.emplace_back(
        Figure::makeText(sx + 22, barY + 10, "n/a (no scored token)", 10, TextAnchor::Start, false, kInk));
    sx += 150;
    if (errorMarker) {
        FigRect r = Figure::makeRect(sx, barY, 16, 12, Rgb{255, 255, 255}, kErrorStroke, 2, 2);
        r.dashed = true;
        f.items.emplace_back(r);
        f.items.emplace_back(
            Figure::makeText(sx + 22, barY + 10, "ERROR / MISSING node", 10, TextAnchor::Start, false, kInk));
    }
    if (generatedMarker) {
        f.items.emplace_back(Figure::makeRect(sx, barY, 16, 12, Rgb{255, 255, 255}, Rgb{187, 187, 187}, 0.6));
        f.line(sx, barY + 13.5, sx + 16, barY + 13.5, kInk, 2);
        f.items.emplace_back(Figure::makeText(sx + 22, barY + 10, "generated token (bold, underlined)", 10,
                                              TextAnchor::Start, false, kInk));
    }
    f.items.emplace_back(FigGroup{});
}

} // namespace

Figure astViewFigure(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    const GraphLayout g = layoutAst(r, view, options);
    const auto& ast = r.tree.nodes();
    const double titleH = 46.0;
    const double contentW = std::max(g.width, kLegendMinWidth);
    Figure f;
    f.pixelUnits = true;
    f.widthPt = contentW + 2 * kMargin;
    f.heightPt = kMargin + titleH + g.height + 18 + kLegendHeight + kMargin;
    const double gx = kMargin + (contentW - g.width) / 2, gy = kMargin + titleH;

    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    f.title = "AsC-Eval " + viewName(view) + " - " + model;
    titleBlock(
        f, kMargin, kMargin,
        "AsC-Eval \u00b7 " + model + " \u00b7 \u03b8 = " + toString(r.aggregation) + " \u00b7 " + viewName(view),
        "snippet AsC-Eval " + value(r.features.ascEval) + " \u00b7 " + std::to_string(g.nodes.size()) + " of " +
            std::to_string(ast.size()) + " nodes shown \u00b7 " + std::to_string(r.features.astLevels) +
            " levels \u00b7 cyclomatic " + std::to_string(r.features.cyclomatic) + " \u00b7 " +
            std::to_string(r.features.tokens) + " tokens \u00b7 cross-entropy " + ceText(r.scored) +
            (g.engine == LayoutEngine::Tree
                 ? " \u00b7 tree layout (over " + std::to_string(options.maxGraphvizNodes) + " nodes for Graphviz)"
                 : std::string()));

    for (const auto& e : g.edges) {
        if (e.points.empty())
            continue;
        f.items.emplace_back(FigGroup{
            {{"class", "edge"}, {"data-from", std::to_string(e.from)}, {"data-to", std::to_string(e.to)}}, {}});
        FigPath p;
        p.ops.push_back({'M', {gx + e.points[0].first, gy + e.points[0].second}});
        for (std::size_t k = 1; k + 2 < e.points.size(); k += 3)
            p.ops.push_back({'C',
                             {gx + e.points[k].first, gy + e.points[k].second, gx + e.points[k + 1].first,
                              gy + e.points[k + 1].second, gx + e.points[k + 2].first, gy + e.points[k + 2].second}});
        p.stroke = Rgb{119, 119, 119};
        p.width = 1;
        f.items.emplace_back(p);
    }
    for (const auto& ln : g.nodes) {
        const auto& n = ast[static_cast<std::size_t>(ln.node)];
        const auto& ne = r.nodes[static_cast<std::size_t>(ln.node)];
        const Rgb fill = ascColor(ne.value);
        std::ostringstream tip;
        tip << displayText(n.type) << (n.isMissing ? " (MISSING)" : "") << " [" << n.start << ", " << n.end
            << ") AsC-Eval " << value(ne.value) << " over " << ne.tokens.size() << " tokens"
            << (ne.category ? " \u00b7 " + *ne.category : std::string());
        f.items.emplace_back(FigGroup{{{"class", n.error() ? "node error" : "node"},
                                       {"id", "node-" + std::to_string(n.id)},
                                       {"data-node", std::to_string(n.id)},
                                       {"data-type", n.type},
                                       {"data-start", std::to_string(n.start)},
                                       {"data-end", std::to_string(n.end)}},
                                      tip.str()});
        FigRect box = Figure::makeRect(gx + ln.x - ln.width / 2, gy + ln.y - ln.height / 2, ln.width, ln.height, fill,
                                       n.error() ? kErrorStroke : Rgb{68, 68, 68}, n.error() ? 2.5 : 0.8, 4);
        box.dashed = n.error();
        f.items.emplace_back(box);
        std::vector<std::string> lines;
        std::istringstream in(ln.label);
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
        const double count = static_cast<double>(std::max<std::size_t>(lines.size(), 1));
        const double firstBaseline = gy + ln.y - (count * kLabelLineHeight) / 2 + kLabelFontSize * 0.95;
        for (std::size_t i = 0; i < lines.size(); ++i)
            f.items.emplace_back(Figure::makeText(gx + ln.x, firstBaseline + static_cast<double>(i) * kLabelLineHeight,
                                                  lines[i], kLabelFontSize, TextAnchor::Middle, i + 1 == lines.size(),
                                                  textColourOn(fill)));
    }
    f.items.emplace_back(FigGroup{});
    legend(f, kMargin, gy + g.height + 18,
           "AsC-Eval of a node = " + toString(r.aggregation) + " of the NtP of its aligned tokens", true, false);
    return f;
}

Figure sequenceViewFigure(const EvalResult& r, WhitespaceTokens ws)
{
    const auto& toks = r.scored.tokens;
    constexpr double fontSize = 13.0, cw = fontSize * 0.602, lineH = fontSize * 1.55;
    const SequenceLayout seq = layoutSequence(r.scored);
    const int lines = seq.lines, maxCols = seq.maxCols;

    const int digits = static_cast<int>(std::to_string(lines).size());
    const double gutter = digits * cw + 14;
    const double titleH = 46.0;
    const double codeW = gutter + maxCols * cw + 4;
    const double contentW = std::max(codeW, kLegendMinWidth);
    const double codeY = kMargin + titleH;
    const double codeX = kMargin + gutter;
    Figure f;
    f.pixelUnits = true;
    f.widthPt = contentW + 2 * kMargin;
    f.heightPt = codeY + lines * lineH + 18 + kLegendHeight + kMargin;

    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    std::size_t generated = 0;
    for (const auto& t : toks)
        generated += t.generated ? 1 : 0;
    f.title = "AsC-Viz sequence view - " + model;
    titleBlock(f, kMargin, kMargin, "Next-token predictions \u00b7 " + model + " \u00b7 sequence view",
               std::to_string(toks.size()) + " tokens (" + std::to_string(toks.size() - generated) + " prompt, " +
                   std::to_string(generated) + " generated) \u00b7 cross-entropy " + ceText(r.scored) +
                   " \u00b7 snippet AsC-Eval (" + toString(r.aggregation) + ") " + value(r.features.ascEval));

    f.items.emplace_back(classGroup("line-numbers"));
    for (int l = 0; l < lines; ++l)
        f.items.emplace_back(Figure::makeText(codeX - 10, codeY + l * lineH + lineH * 0.7, std::to_string(l + 1),
                                              fontSize * 0.85, TextAnchor::End, false, Rgb{153, 153, 153}, true));

    int firstGenerated = -1, firstGeneratedLine = 0, firstGeneratedCol = 0;
    for (const auto& run : seq.runs)
        if (run.token >= 0 && toks[static_cast<std::size_t>(run.token)].generated) {
            firstGenerated = run.token;
            firstGeneratedLine = run.line;
            firstGeneratedCol = run.col;
            break;
        }
    for (const auto& run : seq.runs) {
        const double x = codeX + run.col * cw, y = codeY + run.line * lineH;
        const double w = run.newline ? cw * 0.6 : run.cols * cw;
        if (run.token < 0) { // bytes no token covers: plain text
            if (!run.newline && !run.text.empty()) {
                f.items.emplace_back(classGroup("code"));
                f.items.emplace_back(
                    Figure::makeText(x, y + lineH * 0.72, run.text, fontSize, TextAnchor::Start, false, kInk, true));
            }
            continue;
        }
        const auto& t = toks[static_cast<std::size_t>(run.token)];
        const std::optional<Rgb> tokenColour = tokenFill(r.scored, static_cast<std::size_t>(run.token), ws);
        const Rgb fill = tokenColour.value_or(Rgb{255, 255, 255});
        std::ostringstream tip;
        tip << "token " << run.token << " \u00b7 id " << t.id << " \u00b7 bytes [" << t.start << ", " << t.end
            << ") \u00b7 NtP " << value(t.ntp);
        if (auto ce = t.crossEntropy())
            tip << " \u00b7 CE " << svgNumber(*ce);
        tip << (t.generated ? " \u00b7 generated" : " \u00b7 prompt");
        f.items.emplace_back(
            FigGroup{{{"class", t.generated ? "token generated" : "token"}, {"data-token", std::to_string(run.token)}},
                     tip.str()});
        if (tokenColour)
            f.items.emplace_back(
                Figure::makeRect(x + 0.4, y + 1, std::max(w - 0.8, 0.5), lineH - 2, fill, std::nullopt, 0, 2));
        if (t.generated && run.token == firstGenerated && run.col == firstGeneratedCol &&
            run.line == firstGeneratedLine) // where the completion starts
            f.line(x - 1.2, y - 1, x - 1.2, y + lineH + 1, kInk, 1.6);
        if (t.generated)
            f.line(x + 0.4, y + lineH - 1.5, x + std::max(w - 0.4, 0.9), y + lineH - 1.5, kInk, 2);
        if (!run.newline && !run.text.empty())
            f.items.emplace_back(Figure::makeText(x, y + lineH * 0.72, run.text, fontSize, TextAnchor::Start,
                                                  t.generated, textColourOn(fill), true));
    }
    f.items.emplace_back(FigGroup{});
    legend(f, kMargin, codeY + lines * lineH + 18, "NtP: probability the model gave to each actual token", false, true);
    return f;
}

std::string renderAstSvg(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    return figureToSvg(astViewFigure(r, view, options));
}

std::string renderSequenceSvg(const EvalResult& r, WhitespaceTokens ws)
{
    return figureToSvg(sequenceViewFigure(r, ws));
}

} // namespace ascviz
