// Galeras records: JSON Lines and CSV readers with a field mapping (records.h).
#include "ascviz/galeras/records.h"

#include "fnv.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/utf8.h"
#include "ascviz/results/csvread.h"
#include "ascviz/syntax/language.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace ascviz {
namespace {

const std::vector<std::string>& knownFields()
{
    static const std::vector<std::string> f = {"code",     "signature", "docstring", "id",
                                               "language", "repo",      "path",      "date"};
    return f;
}

std::string column(const RecordReadOptions& o, const std::string& field)
{
    const auto it = o.fields.find(field);
    return it == o.fields.end() ? field : it->second;
}

std::string loc(const std::string& name, std::size_t line)
{
    return name + ":" + std::to_string(line);
}

// Fills a record from named string / number values; returns the problem ("" = fine).
struct RawValue {
    std::optional<std::string> text;
    std::optional<double> number;
};

std::string fillRecord(GalerasRecord& r, const std::map<std::string, RawValue>& values, const RecordReadOptions& o)
{
    std::set<std::string> mapped;
    for (const auto& f : knownFields()) {
        const std::string col = column(o, f);
        mapped.insert(col);
        const auto it = values.find(col);
        if (it == values.end() || (!it->second.text && !it->second.number))
            continue;
        if (!it->second.text)
            return "field \"" + col + "\" must be a string";
        const std::string& v = *it->second.text;
        if (const auto bad = findInvalidUtf8(v))
            return "field \"" + col + "\" is not valid UTF-8 (byte " + std::to_string(*bad) + ")";
        if (f == "code")
            r.code = v;
        else if (f == "signature")
            r.signature = v;
        else if (f == "docstring")
            r.docstring = v;
        else if (f == "id")
            r.id = v;
        else if (f == "language") {
            const auto* l = LanguageRegistry::instance().lookup(v);
            if (!l)
                return "unknown language '" + v + "'";
            r.language = l->id;
        } else if (f == "repo")
            r.repo = v;
        else if (f == "path")
            r.path = v;
        else
            r.date = v;
    }
    if (r.code.empty())
        return "no code (field \"" + column(o, "code") + "\" missing or empty)";
    for (const auto& [k, v] : values)
        if (!mapped.count(k) && v.number && std::isfinite(*v.number))
            r.confounders[k] = *v.number;
    return {};
}

void addRecord(RecordSet& s, std::set<std::string>& ids, GalerasRecord r, const RecordReadOptions& o)
{
    if (r.language.empty())
        r.language = o.language.empty() ? LanguageRegistry::instance().defaultLanguage().id
                                        : LanguageRegistry::instance().get(o.language).id;
    if (r.id.empty())
        r.id = r.location;
    if (!ids.insert(r.id).second) {
        s.issues.push_back({r.location, "duplicate id '" + r.id + "'; skipped"});
        return;
    }
    s.records.push_back(std::move(r));
}

std::string stripBom(const std::string& t)
{
    return t.rfind("\xEF\xBB\xBF", 0) == 0 ? t.substr(3) : t;
}

std::string utf8Problem(const std::string& text)
{
    if (const auto bad = findInvalidUtf8(text))
        return "invalid UTF-8 (byte " + std::to_string(*bad + 1) + " of the line)";
    return {};
}

// Reads a records file whole, raw (the encoding is checked record by record), within the bounds.
std::string readBounded(std::istream& in, const std::string& name, const RecordReadOptions& o)
{
    std::string data;
    std::vector<char> buf(std::size_t(1) << 16);
    std::size_t line = 1, lineStart = 0;
    const auto tooLong = [&] {
        return InputError(loc(name, line) + ": the line is longer than " + limits::describeBytes(o.maxLineBytes) +
                              " (a records file holds one record per line; is it a records file?)",
                          ErrorContext(name, lineStart, line));
    };
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const auto n = static_cast<std::size_t>(in.gcount());
        if (n == 0)
            break;
        const std::size_t base = data.size();
        data.append(buf.data(), n);
        for (std::size_t at = base; at < data.size(); ++at) {
            const void* nl = std::memchr(data.data() + at, '\n', data.size() - at);
            if (!nl)
                break;
            at = static_cast<std::size_t>(static_cast<const char*>(nl) - data.data());
            if (o.maxLineBytes && at - lineStart > o.maxLineBytes)
                throw tooLong();
            ++line;
            lineStart = at + 1;
        }
        if (o.maxLineBytes && data.size() - lineStart > o.maxLineBytes)
            throw tooLong();
        if (o.maxFileBytes && data.size() > o.maxFileBytes)
            throw InputError("records file " + name + " is larger than " + limits::describeBytes(o.maxFileBytes) +
                                 " (at line " + std::to_string(line) + "); split it into smaller files",
                             ErrorContext(name, {}, line));
    }
    if (in.bad())
        throw InputError("cannot read records file " + name + " (at line " + std::to_string(line) + ")",
                         ErrorContext(name, {}, line));
    return data;
}

std::string readRecordsText(const std::filesystem::path& path, const RecordReadOptions& o)
{
    if (path == "-")
        return readBounded(std::cin, "standard input", o);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError("file not found: " + path.string(), ErrorContext(path.string()));
    if (std::filesystem::is_directory(path, ec))
        throw InputError("expected a file but got a folder: " + path.string(), ErrorContext(path.string()));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError("cannot read file: " + path.string(), ErrorContext(path.string()));
    return readBounded(in, path.string(), o);
}

} // namespace

std::string RecordSet::fingerprint() const
{
    using galeras_detail::fnvMix;
    uint64_t h = galeras_detail::kFnvBasis;
    // an absent signature or docstring differs from an empty one (the testbed finds its own then)
    const auto optional = [&](const std::optional<std::string>& v) {
        h = fnvMix(h, v ? "1" : "0");
        h = fnvMix(h, v.value_or(""));
    };
    for (const auto& r : records) {
        for (const std::string* f : {&r.id, &r.language, &r.code})
            h = fnvMix(h, *f);
        optional(r.signature);
        optional(r.docstring);
        h = fnvMix(h, std::to_string(r.confounders.size()));
        for (const auto& [name, value] : r.confounders) {
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", value);
            h = fnvMix(fnvMix(h, name), buf);
        }
    }
    return galeras_detail::hex16(h);
}

std::map<std::string, std::string> parseFieldMapping(const std::string& spec)
{
    std::map<std::string, std::string> m;
    std::stringstream ss(spec);
    std::string pair;
    while (std::getline(ss, pair, ',')) {
        const auto eq = pair.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
            throw InputError("field mapping '" + pair + "' must be NAME=COLUMN (e.g. code=body)");
        const std::string name = pair.substr(0, eq);
        bool known = false;
        for (const auto& f : knownFields())
            known = known || f == name;
        if (!known)
            throw InputError("field mapping: unknown field '" + name +
                             "' (known: code, signature, docstring, id, language, repo, path, date)");
        m[name] = pair.substr(eq + 1);
    }
    return m;
}

RecordSet parseRecordsJsonl(const std::string& text, const std::string& name, const RecordReadOptions& o)
{
    RecordSet s;
    std::set<std::string> ids;
    std::istringstream in(stripBom(text));
    std::string line;
    std::size_t no = 0;
    while (std::getline(in, line)) {
        ++no;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        const std::string where = loc(name, no);
        if (const auto bad = utf8Problem(line); !bad.empty()) {
            s.issues.push_back({where, bad + "; skipped"});
            continue;
        }
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const std::exception& e) {
            s.issues.push_back({where, std::string("malformed JSON (") + e.what() + "); skipped"});
            continue;
        }
        if (!j.is_object()) {
            s.issues.push_back({where, "not a JSON object; skipped"});
            continue;
        }
        std::map<std::string, RawValue> values;
        for (const auto& [k, v] : j.items()) {
            if (v.is_string())
                values[k].text = v.get<std::string>();
            else if (v.is_number())
                values[k].number = v.get<double>();
            else if (!v.is_null())
                values[k] = RawValue{}; // present, neither: only an error when it is a known field
        }
        GalerasRecord r;
        r.location = where;
        for (const auto& f : knownFields()) {
            const auto it = j.find(column(o, f));
            if (it != j.end() && !it->is_string() && !it->is_null()) {
                s.issues.push_back({where, "field \"" + column(o, f) + "\" must be a string; skipped"});
                r.code.clear();
                r.location.clear();
                break;
            }
        }
        if (r.location.empty())
            continue;
        if (const auto problem = fillRecord(r, values, o); !problem.empty()) {
            s.issues.push_back({where, problem + "; skipped"});
            continue;
        }
        addRecord(s, ids, std::move(r), o);
    }
    return s;
}

RecordSet parseRecordsCsv(const std::string& text, const std::string& name, const RecordReadOptions& o)
{
    RecordSet s;
    std::set<std::string> ids;
    const auto rows = splitCsv(stripBom(text));
    if (rows.empty())
        throw InputError("CSV records " + name + " are empty (expected a header row with a `" + column(o, "code") +
                             "` column)",
                         ErrorContext(name));
    const auto& header = rows.front();
    for (const auto& h : header.fields)
        if (const auto bad = findInvalidUtf8(h))
            throw InputError("CSV records " + loc(name, header.line) + ": the header is not valid UTF-8",
                             ErrorContext(name, {}, header.line));
    if (header.error)
        throw InputError("CSV records " + loc(name, header.line) + ": malformed header (" + *header.error + ")",
                         ErrorContext(name, {}, header.line));
    bool hasCode = false;
    for (const auto& h : header.fields)
        hasCode = hasCode || h == column(o, "code");
    if (!hasCode)
        throw InputError("CSV records " + name + " have no `" + column(o, "code") +
                             "` column in the header row (a field mapping code=COLUMN maps another)",
                         ErrorContext(name, {}, 1));
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& row = rows[i];
        const std::string where = loc(name, row.line);
        if (row.fields.size() == 1 && row.fields[0].empty())
            continue; // an empty line
        if (row.error) {
            s.issues.push_back({where, "malformed CSV record (" + *row.error + "); skipped"});
            continue;
        }
        if (row.fields.size() != header.fields.size()) {
            s.issues.push_back({where, "CSV record has " + std::to_string(row.fields.size()) + " fields, the header " +
                                           std::to_string(header.fields.size()) + "; skipped"});
            continue;
        }
        std::string bad;
        for (std::size_t c = 0; c < row.fields.size() && bad.empty(); ++c)
            if (const auto at = findInvalidUtf8(row.fields[c]))
                bad = "field \"" + header.fields[c] + "\" is not valid UTF-8 (byte " + std::to_string(*at + 1) + ")";
        if (!bad.empty()) {
            s.issues.push_back({where, bad + "; skipped"});
            continue;
        }
        std::map<std::string, RawValue> values;
        for (std::size_t c = 0; c < row.fields.size(); ++c) {
            const std::string& v = row.fields[c];
            RawValue rv;
            rv.text = v;
            char* end = nullptr;
            if (!v.empty()) {
                const double d = std::strtod(v.c_str(), &end);
                if (end && *end == '\0' && std::isfinite(d))
                    rv.number = d;
            }
            if (v.empty())
                rv.text.reset();
            values[header.fields[c]] = rv;
        }
        GalerasRecord r;
        r.location = where;
        if (const auto problem = fillRecord(r, values, o); !problem.empty()) {
            s.issues.push_back({where, problem + "; skipped"});
            continue;
        }
        addRecord(s, ids, std::move(r), o);
    }
    return s;
}

RecordSet readRecords(const std::filesystem::path& path, const RecordReadOptions& o)
{
    const std::string text = readRecordsText(path, o);
    const bool csv = path.extension() == ".csv" || path.extension() == ".CSV";
    RecordSet s = csv ? parseRecordsCsv(text, path.string(), o) : parseRecordsJsonl(text, path.string(), o);
    if (s.records.empty()) {
        std::string first;
        for (std::size_t i = 0; i < s.issues.size() && i < 3; ++i)
            first += (i ? "; " : ": ") + s.issues[i].location + " " + s.issues[i].message;
        throw InputError("no usable record in " + path.string() + first, ErrorContext(path.string()));
    }
    return s;
}

} // namespace ascviz
