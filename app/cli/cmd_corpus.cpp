#include "commands.h"
#include "ascviz/error.h"

namespace ascviz::cli {
int cmdBatch(Args&) { throw Error("not implemented yet"); }
int cmdReport(Args&) { throw Error("not implemented yet"); }
} // namespace ascviz::cli
