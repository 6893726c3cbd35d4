// The sequence view and ASTxplainer's Fig. 5 layout as paper figures (views.h).
#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/sequence.h"
#include "parts.h"

#include <algorithm>

namespace ascviz {
namespace {

constexpr double kMonoAdvance = 0.602; // DejaVu Sans Mono's advance per em (1233 / 2048)

// The code as text cells at a font that fits the width (down to 6 pt); lines longer than that wrap at
// the column limit onto continuation rows (marked with ↪ in the gutter). colour(token) -> the cell fill
// (nullopt: none); underline(token) -> a line under it (the completion). Returns the height used.
double drawCode(
    Figure& f, const ScoredText& s, double x, double y, double width, const FigureStyle& style,
    const std::function<std::optional<Rgb>(int)>& colour, const std::function<bool(int)>& underline, double* fontOut,
    const std::function<bool(int)>& isNa = [](int) { return false; }, int firstLine = 0)
{
    const SequenceLayout seq = layoutSequence(s);
    const int digits = static_cast<int>(std::to_string(std::max(firstLine + seq.lines, 1)).size());
    const double gutterCols = digits + 1.5;
    const int cols = std::max(seq.maxCols, 1);
    double font = std::min(style.fontPt, width / ((cols + gutterCols) * kMonoAdvance));
    font = std::max(font, kMinFigureFontPt);
    const double cw = font * kMonoAdvance, lh = font * 1.45;
    const int fitCols = std::max(8, static_cast<int>((width - gutterCols * cw) / cw));
    const double codeX = x + gutterCols * cw;
    if (fontOut)
        *fontOut = font;
    // Visual rows, wrapped at token boundaries: a token that does not fit the rest of its row starts the next
    // one (marked ↪); only a token longer than a whole row is split inside. place[i] = (row, column) of run i.
    std::vector<std::pair<int, int>> place(seq.runs.size());
    std::vector<int> rowOf(static_cast<std::size_t>(seq.lines) + 1, 0);
    std::vector<int> rowsOf(static_cast<std::size_t>(seq.lines) + 1, 1);
    {
        int row = 0, line = -1, c = 0, logicalEnd = 0;
        for (std::size_t i = 0; i < seq.runs.size(); ++i) {
            const auto& run = seq.runs[i];
            while (line < run.line) { // a new line: its first row follows the previous line's last
                if (line >= 0)
                    rowsOf[static_cast<std::size_t>(line)] = row - rowOf[static_cast<std::size_t>(line)] + 1;
                row += line >= 0 ? 1 : 0;
                ++line;
                if (line <= seq.lines)
                    rowOf[static_cast<std::size_t>(line)] = row;
                c = 0;
                logicalEnd = 0;
            }
            c += std::max(0, run.col - logicalEnd);
            const int n = run.newline ? 1 : run.cols;
            if (c > 0 && c + n > fitCols && n <= fitCols && !run.newline) { // a line break never opens a row
                ++row;
                c = 0;
            }
            place[i] = {row, c};
            c += n;
            while (c > fitCols && !run.newline) { // a run longer than a row continues on the next
                ++row;
                c -= fitCols;
            }
            logicalEnd = run.col + n;
        }
        if (line >= 0 && line <= seq.lines)
            rowsOf[static_cast<std::size_t>(line)] = row - rowOf[static_cast<std::size_t>(line)] + 1;
        for (int l = line + 1; l <= seq.lines; ++l) // lines without runs (none in practice)
            rowOf[static_cast<std::size_t>(l)] = row + (l - line);
    }
    int rows = 1;
    for (int l = 0; l < seq.lines; ++l)
        rows = std::max(rows, rowOf[static_cast<std::size_t>(l)] + rowsOf[static_cast<std::size_t>(l)]);
    const Rgb grey{153, 153, 153};
    for (int l = 0; l < seq.lines; ++l) {
        const int r0 = rowOf[static_cast<std::size_t>(l)];
        f.text(codeX - cw, y + r0 * lh + lh * 0.75, std::to_string(firstLine + l + 1),
               std::max(kMinFigureFontPt, font * 0.85), TextAnchor::End, false, grey);
        for (int k = 1; k < rowsOf[static_cast<std::size_t>(l)]; ++k)
            f.text(codeX - cw, y + (r0 + k) * lh + lh * 0.75, "\u21aa", std::max(kMinFigureFontPt, font * 0.85),
                   TextAnchor::End, false, grey);
    }
    for (std::size_t ri = 0; ri < seq.runs.size(); ++ri) {
        const auto& run = seq.runs[ri];
        std::size_t i = 0;
        int r = place[ri].first, c0 = place[ri].second;
        while (i < run.text.size() || (run.newline && i == 0)) {
            if (run.newline && c0 >= fitCols)
                break; // the line break of a full row: not drawn rather than on a row of its own
            if (c0 >= fitCols) {
                ++r;
                c0 = 0;
            }
            std::string piece;
            int pieceCols = 0;
            if (run.newline) {
                pieceCols = 1;
                i = 1;
            } else {
                while (i < run.text.size() && c0 + pieceCols < fitCols) {
                    const std::size_t start = i;
                    nextCodePoint(run.text, i);
                    piece.append(run.text, start, i - start);
                    ++pieceCols; // display columns of wide characters: close enough for wrapping
                }
            }
            const double px = codeX + c0 * cw, py = y + r * lh;
            std::optional<Rgb> fill;
            if (run.token >= 0) {
                fill = colour(run.token);
                if (fill) {
                    FigRect cell;
                    cell.x = px;
                    cell.y = py + 0.5;
                    cell.w = (run.newline ? 0.6 : pieceCols) * cw;
                    cell.h = lh - 1;
                    cell.fill = *fill;
                    f.items.emplace_back(cell);
                    if (isNa(run.token) && !run.newline)
                        figparts::hatch(f, cell.x, cell.y, cell.w, cell.h);
                }
                // The underline sits below the descenders (0.24 em), so an underscore stays visible above it.
                if (underline(run.token) && !run.newline)
                    f.line(px, py + lh * 0.75 + font * 0.3 + 0.4, px + pieceCols * cw,
                           py + lh * 0.75 + font * 0.3 + 0.4, Rgb{17, 17, 17}, 0.5);
            }
            if (!piece.empty()) {
                FigText t;
                t.x = px;
                t.y = py + lh * 0.75;
                t.text = piece;
                t.sizePt = font;
                t.mono = true;
                t.bold = run.token >= 0 && underline(run.token);
                if (fill)
                    t.color = textColourOn(*fill); // dark cells (NtP near 0 or 1): white text
                f.items.emplace_back(t);
            }
            c0 += pieceCols;
            if (run.newline)
                break;
        }
    }
    return rows * lh;
}

// The whole lines of s that hold bytes [b0, b1): their text and tokens (clipped to the lines, offsets shifted);
// *firstLine = the 0-based index of the first of them.
ScoredText linesOf(const ScoredText& s, std::size_t b0, std::size_t b1, int* firstLine)
{
    std::size_t start = 0;
    if (b0 > 0) {
        const std::size_t nl = s.text.rfind('\n', b0 - 1);
        start = nl == std::string::npos ? 0 : nl + 1;
    }
    std::size_t end = s.text.find('\n', b1 > start ? b1 - 1 : start);
    end = end == std::string::npos ? s.text.size() : end + 1;
    *firstLine =
        static_cast<int>(std::count(s.text.begin(), s.text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    ScoredText out;
    out.model = s.model;
    out.text = s.text.substr(start, end - start);
    for (const auto& t : s.tokens)
        if (t.end > start && t.start < end) {
            ScoredToken c = t;
            c.start = std::max(t.start, start) - start;
            c.end = std::min(t.end, end) - start;
            out.tokens.push_back(std::move(c));
        }
    return out;
}

} // namespace

ViewFigure sequenceFigure(const EvalResult& r, const FigureStyle& style, const ViewFigureOptions& options)
{
    using namespace figparts;
    style.validate();
    ViewFigure out;
    Figure& f = out.figure;
    f.widthPt = style.widthPt;
    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    f.title = "AsC-Viz sequence view - " + model;
    double y = drawTitle(f, style, "Next-token predictions \u00b7 " + model);
    const auto& toks = r.scored.tokens;
    const double h = drawCode(
        f, r.scored, kPad, y, f.widthPt - 2 * kPad, style,
        [&](int t) { return tokenFill(r.scored, static_cast<std::size_t>(t), options.whitespace); },
        [&](int t) {
            return toks[static_cast<std::size_t>(t)].generated &&
                   !isWhitespaceToken(r.scored, static_cast<std::size_t>(t));
        },
        &out.labelPt,
        [&](int t) {
            return !toks[static_cast<std::size_t>(t)].ntp && !isWhitespaceToken(r.scored, static_cast<std::size_t>(t));
        });
    double bottom = y + h;
    if (style.legend != LegendPlacement::None) {
        const std::string ws = options.whitespace == WhitespaceTokens::Full   ? ""
                               : options.whitespace == WhitespaceTokens::None ? "; whitespace tokens not coloured"
                                                                              : "; whitespace tokens faint";
        // The generated tokens are named only where there are some (issue 54: a scored text's caption spoke of them).
        const bool anyGenerated =
            std::any_of(toks.begin(), toks.end(), [](const ScoredToken& t) { return t.generated; });
        const std::string caption =
            std::string("NtP of each token") + (anyGenerated ? "; generated tokens bold and underlined" : "") + ws;
        bottom += kPad + scaleLegend(&f, kPad, bottom + kPad, f.widthPt - 2 * kPad, style, caption).h;
    }
    f.heightPt = bottom + kPad;
    return out;
}

ViewFigure figure5(const EvalResult& r, AstView view, const FigureStyle& style, const ViewFigureOptions& options)
{
    using namespace figparts;
    // The AST view first (it decides the collapsed depth), then the code above it.
    FigureStyle inner = style;
    inner.title = false;
    ViewFigure ast = astFigure(r, view, inner, options);
    ViewFigure out;
    Figure& f = out.figure;
    f.widthPt = ast.figure.widthPt;
    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    f.title = "AsC-Eval of a completion - " + model;
    double y = drawTitle(f, style, "Completion and its AST (" + model + ", \u03b8 = " + toString(r.aggregation) + ")");
    // With a subtree, the code is the lines that hold it (figure5 sized to what it shows), numbered as in the file.
    int firstLine = 0;
    const int sub = options.layout.subtree;
    const ScoredText code = sub >= 0 && static_cast<std::size_t>(sub) < r.tree.nodes().size()
                                ? linesOf(r.scored, r.tree.nodes()[static_cast<std::size_t>(sub)].start,
                                          r.tree.nodes()[static_cast<std::size_t>(sub)].end, &firstLine)
                                : r.scored;
    const auto& toks = code.tokens;
    const Rgb highlight{255, 236, 179}; // the completion: a light amber behind the generated tokens
    auto completion = [&](int t) {
        return toks[static_cast<std::size_t>(t)].generated && !isWhitespaceToken(code, static_cast<std::size_t>(t));
    };
    y += drawCode(
        f, code, kPad, y, f.widthPt - 2 * kPad, style,
        [&](int t) { return completion(t) ? std::optional<Rgb>(highlight) : std::nullopt; }, completion, nullptr,
        [](int) { return false; }, firstLine);
    y += kPad;
    f.line(kPad, y, f.widthPt - kPad, y, Rgb{200, 200, 200}, 0.4);
    f.append(ast.figure, 0, y);
    f.heightPt = y + ast.figure.heightPt;
    out.labelPt = ast.labelPt;
    out.maxDepth = ast.maxDepth;
    out.note = ast.note;
    out.noteRemedy = ast.noteRemedy;
    return out;
}

} // namespace ascviz
