// The style options of every figure the CLI writes (figure, render; docs/cli.md).
#pragma once
#include "args.h"

#include "ascviz/figure/figure.h"

namespace ascviz::cli {

// --width-mm W | --width-pt W, --font-pt P (6 to 72), --no-title, --legend right|bottom|none; UsageError for
// a bad value. `given` (optional): whether any of them was on the command line.
FigureStyle readFigureStyle(Args& args, bool* given = nullptr);

} // namespace ascviz::cli
