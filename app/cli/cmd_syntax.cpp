#include "commands.h"
#include "ascviz/error.h"

namespace ascviz::cli {
int cmdParse(Args&) { throw Error("not implemented yet"); }
int cmdEval(Args&) { throw Error("not implemented yet"); }
int cmdRender(Args&) { throw Error("not implemented yet"); }
} // namespace ascviz::cli
