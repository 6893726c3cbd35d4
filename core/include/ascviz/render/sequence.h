// The sequence view as text cells (method.md §8): the code cut into runs of one token on one line, tabs
// expanded to 4 columns, control characters shown as symbols, a cell for each line break. The SVG export and
// the paper figures draw the same runs.
#pragma once
#include "ascviz/base/scored.h"

#include <string>
#include <vector>

namespace ascviz {

struct SequenceRun {
    int token = -1; // the token owning these characters (-1: bytes no token covers)
    int line = 0;   // 0-based line
    int col = 0;    // first column (terminal columns: wide characters take 2)
    int cols = 0;
    std::string text;     // displayable text (tabs expanded)
    bool newline = false; // a line break cell drawn after the line's last character
};
struct SequenceLayout {
    std::vector<SequenceRun> runs;
    int lines = 0;   // a final line break opens no empty line
    int maxCols = 0; // the widest line's columns (with its line break cell)
};

// A character belongs to the first token (by index) covering its first owned byte, so a token whose span
// splits a character never splits the drawn text; CRLF is one line break.
SequenceLayout layoutSequence(const ScoredText& s);

} // namespace ascviz
