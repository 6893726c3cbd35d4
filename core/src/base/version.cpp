#include "ascviz/base/version.h"

#ifndef ASCVIZ_CORE_VERSION
#define ASCVIZ_CORE_VERSION "unknown"
#endif

namespace ascviz {

std::string ascvizVersion()
{
    return ASCVIZ_CORE_VERSION;
}

} // namespace ascviz
