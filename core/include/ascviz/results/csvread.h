// The one RFC 4180 CSV reader of core (corpora, Galeras records): records split into fields, each with the
// line it starts on and, when malformed, what is wrong (the caller skips it and says where).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

struct CsvRecord {
    std::vector<std::string> fields;
    std::size_t line = 0; // line where the record starts (1-based)
    std::optional<std::string> error;
};

// Fields separated by ',', records by CRLF or LF; a quoted field may contain ',', '"' (doubled) and line
// breaks. Errors (text after a closing quote, a quote inside an unquoted field, an unterminated quote) are
// recorded on the record.
std::vector<CsvRecord> splitCsv(std::string_view s);

} // namespace ascviz
