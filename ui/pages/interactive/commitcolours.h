// The commitment colouring of the Inside panel (method.md §14.3): the layer from which the layer lens's top-1
// prediction equals the final one and stays so — per token (commit_layer) on the sequence view, per node (asc_commit,
// the median over its aligned tokens) on both AST views — on a sequential scale over the layers the result's
// commitments span (issue 54: on 0 … L most of a text commits in the last layers and drew in one dark blue), with its
// legend; grey where there is none (the first token without BOS, a node without a committed token).
#pragma once
#include "ascviz/lens/layers.h"

#include <QColor>

namespace ascviz::ui {

class ResultCanvas;

// The commitment colour of t = layer / L in [0, 1]: light yellow (early) through teal to dark blue (late).
QColor commitColor(double t);
// What the commitment colouring does not cover.
QColor noCommitColor();

// The scale's ends: the whole layers around the smallest and the largest commitment of `le`'s tokens and nodes
// (at least one layer apart, within 0 … L); 0 … L when there is none.
struct CommitScale {
    double lo = 0, hi = 1;
    double t(double layer) const { return (layer - lo) / (hi - lo); }
};
CommitScale commitScale(const LayerEval& le);

// Colours the page's sequence view and AST views by `le`'s commitment fields (LayerEval::tokenCommit,
// LayerEval::commit) and puts the commitScale in the legend. The page's own colours come back with
// setAnalysis / clearOverlay / clearSignedScale (as after an attribution).
void showCommitment(ResultCanvas* canvas, const LayerEval& le);

} // namespace ascviz::ui
