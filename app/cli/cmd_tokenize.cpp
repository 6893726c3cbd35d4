#include "commands.h"
#include "ascviz/error.h"

namespace ascviz::cli {
int cmdTokenize(Args&) { throw Error("not implemented yet"); }
} // namespace ascviz::cli
