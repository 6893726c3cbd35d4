// CSV writing (RFC 4180): one field, quoted when it holds a comma, a quote or a line break.
#pragma once
#include <string>

namespace ascviz {

std::string csvField(const std::string& s);

} // namespace ascviz
