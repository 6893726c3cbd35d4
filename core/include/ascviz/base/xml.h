// XML (and HTML) text escaping: the one escaper of the SVG the figure room writes and of the share room's page.
#pragma once
#include <string>
#include <string_view>

namespace ascviz {

// Whether XML 1.0 allows code point cp in a document (tab, line feed, carriage return, and the ranges from
// U+0020 on without surrogates, U+FFFE and U+FFFF).
bool xmlAllowed(char32_t cp);
// Character data / attribute value escaping (& < > " ' and tab, LF, CR as character references); code points
// XML 1.0 forbids become U+FFFD, invalid UTF-8 too.
std::string xmlEscape(std::string_view s);

} // namespace ascviz
