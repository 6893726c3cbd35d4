#include "commands.h"
#include "ascviz/error.h"

namespace ascviz::cli {
int cmdScore(Args&) { throw Error("not implemented yet"); }
int cmdGenerate(Args&) { throw Error("not implemented yet"); }
} // namespace ascviz::cli
