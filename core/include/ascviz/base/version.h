// The AsC-Viz version compiled into core (the project version; written into results and responses files).
#pragma once
#include <string>

namespace ascviz {

std::string ascvizVersion();

} // namespace ascviz
