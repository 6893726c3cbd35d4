// The sequence view's text cells (sequence.h), shared by the SVG export and the paper figures.
#include "ascviz/render/sequence.h"

#include "render_util.h"

namespace ascviz {

SequenceLayout layoutSequence(const ScoredText& s)
{
    const std::string& text = s.text;
    const auto& toks = s.tokens;
    constexpr int tabWidth = 4;

    // Owner token of each byte: the first token (by index) covering it. A character belongs to the owner of
    // its first owned byte, so a token whose span splits a character never splits the drawn text.
    std::vector<int> owner(text.size(), -1);
    for (std::size_t t = 0; t < toks.size(); ++t)
        for (std::size_t b = toks[t].start; b < toks[t].end && b < text.size(); ++b)
            if (owner[b] < 0)
                owner[b] = static_cast<int>(t);

    SequenceLayout out;
    auto& runs = out.runs;
    using Run = SequenceRun;
    int line = 0, col = 0, maxCols = 0;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t cs = i;
        const char32_t cp = detail::nextCodePoint(text, i);
        int own = -1;
        for (std::size_t b = cs; b < i && own < 0; ++b)
            own = owner[b];
        const bool crlf = cp == '\r' && i < text.size() && text[i] == '\n';
        if (crlf) { // CRLF is one line break, owned like its \r
            if (own < 0)
                own = owner[i];
            ++i;
        }
        if (cp == '\n' || cp == '\r') {
            Run br{own, line, col, 1, "", true};
            runs.push_back(br);
            maxCols = std::max(maxCols, col + 1);
            ++line;
            col = 0;
            continue;
        }
        std::string piece;
        int cols = 0;
        if (cp == '\t') {
            cols = tabWidth - col % tabWidth;
            piece.assign(static_cast<std::size_t>(cols), ' ');
        } else {
            const std::string shown = detail::displayText(text.substr(cs, i - cs));
            std::size_t k = 0;
            cols = std::max(detail::charColumns(detail::nextCodePoint(shown, k)), cp < 0x20 ? 1 : 0);
            piece = shown;
        }
        if (!runs.empty() && !runs.back().newline && runs.back().token == own && runs.back().line == line) {
            runs.back().text += piece;
            runs.back().cols += cols;
        } else {
            runs.push_back(Run{own, line, col, cols, piece, false});
        }
        col += cols;
        maxCols = std::max(maxCols, col);
    }
    // A final line break ends the last line; it does not open an empty numbered line.
    out.lines = (col == 0 && line > 0) ? line : line + 1;
    out.maxCols = maxCols;
    return out;
}

} // namespace ascviz
