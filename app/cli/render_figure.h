// render's options (docs/cli.md) read into core's ViewRequest (figure/viewrender.h): the page width, font,
// title, legend, subtree, depth, orientation and whitespace tokens. core's drawView draws it, as for the GUI
// and Python.
#pragma once
#include "args.h"

#include "ascviz/figure/viewrender.h"

namespace ascviz::cli {

// --subtree NODE_ID, --max-depth D, --orientation td|lr, --whitespace faint|none|full and the style options
// (figure_args.h); `layout` carries --max-graphviz-nodes. Sets `paper` when a figure option is given.
ViewRequest readRenderRequest(Args& args, const LayoutOptions& layout);

} // namespace ascviz::cli
