// The commitment colouring of the Inside panel (method.md §14.3): the layer from which the layer lens's top-1
// prediction equals the final one and stays so — per token (commit_layer) on the sequence view, per node (asc_commit,
// the median over its aligned tokens) on both AST views — on a sequential scale from layer 0 (decided in the
// embeddings) to L (decided only by the last block), with its legend; grey where there is none (the first token
// without BOS, a node without a committed token).
#pragma once
#include "ascviz/lens/layers.h"

#include <QColor>

namespace ascviz::ui {

class ResultCanvas;

// The commitment colour of t = layer / L in [0, 1]: light yellow (early) through teal to dark blue (late).
QColor commitColor(double t);
// What the commitment colouring does not cover.
QColor noCommitColor();

// Colours the page's sequence view and AST views by `le`'s commitment fields (LayerEval::tokenCommit,
// LayerEval::commit) and puts the 0 … L scale in the legend. The page's own colours come back with
// setAnalysis / clearOverlay / clearSignedScale (as after an attribution).
void showCommitment(ResultCanvas* canvas, const LayerEval& le);

} // namespace ascviz::ui
