// The immutable result the Interactive tab shows: one evaluated text with its AST layouts. Built off the
// GUI thread by InteractiveEngine, handed over as std::shared_ptr<const Analysis>, never changed afterwards.
#pragma once
#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"
#include "ascviz/render/layout.h"
#include "ascviz/results/session.h"

#include <QColor>
#include <QString>

class QComboBox;

#include <memory>
#include <optional>
#include <string>

namespace ascviz::ui {

// Where a result came from (generated or scored): core's session vocabulary, stored as is in session files.
using AnalysisOrigin = SessionOrigin;

struct Analysis {
    std::shared_ptr<const EvalResult> eval;
    // Graphviz layouts of both AST views (null with layoutError set when Graphviz failed).
    std::shared_ptr<const GraphLayout> partial;
    std::shared_ptr<const GraphLayout> complete;
    QString layoutError;
    // When the tree has syntax errors: where the first one is and the languages the text parses cleanly as
    // (computed with the result, off the GUI thread: it parses the text with every other grammar).
    QString syntaxNote;

    AnalysisOrigin origin = AnalysisOrigin::Scored;
    bool cancelled = false;           // generation stopped by the user: the completion is what came so far
    QString prompt;                   // the editor text the job started from
    QString categoryFile;             // empty = the bundled table
    std::string categoryTable;        // the table's text as used (what a session file keeps)
    bool categoryFromSession = false; // the table is a session file's copy, not the file's current text
    GenerationOptions generation;
    // The model that scored the text (its identity as loaded, or as a session file recorded it; nullopt: not
    // known, e.g. scores given by hand or a version 1 session).
    std::optional<ModelInfo> model;

    const GraphLayout* layout(AstView v) const { return v == AstView::Partial ? partial.get() : complete.get(); }
    int generatedTokens() const;
};

using AnalysisPtr = std::shared_ptr<const Analysis>;

inline QColor toQColor(Rgb c)
{
    return QColor(c.r, c.g, c.b);
}
inline QColor ascQColor(std::optional<double> v)
{
    return toQColor(ascColor(v));
}
// Greys out (with the reason as tooltip) the precisions of a dtype chooser that the CPU build cannot run, when no
// GPU is available: the load would refuse them (Debian's LibTorch 1.13 has no float16 products on the CPU).
void disableUnsupportedDtypes(QComboBox* box);

// White or near-black text on `background`: core's one rule (render/layout.h textColourOn), so the screen and
// the SVG/PDF exports pick the same colour for the same fill.
QColor textColorOn(const QColor& background);

// "12.3 M" / "1.35 B" / "950 K" style parameter count.
QString formatParameters(long long n);
// NtP / AsC-Eval value with three decimals, "n/a" for none.
QString formatValue(std::optional<double> v);
// A token's text made visible for tables and tooltips (space as ·, newline as ↵, tab as →).
QString visibleTokenText(const QString& s);

} // namespace ascviz::ui
