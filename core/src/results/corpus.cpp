// Corpus readers: JSON Lines, CSV (RFC 4180) and folders of source files.
#include "ascviz/results/corpus.h"
#include "ascviz/results/csvread.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/syntax/language.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace ascviz {
namespace fs = std::filesystem;

namespace {

std::string readBytes(const fs::path& p)
{
    return readFileBounded(p, limits::kMaxInputFileBytes, "the corpus file");
}

std::string_view stripBom(std::string_view s)
{
    if (s.size() >= 3 && s.substr(0, 3) == "\xEF\xBB\xBF")
        s.remove_prefix(3);
    return s;
}

std::string loc(const std::string& name, std::size_t line)
{
    return name + ":" + std::to_string(line);
}

// Adds an entry unless its code is empty or its id repeats an earlier one (both reported).
void addEntry(Corpus& c, std::map<std::string, std::string>& seen, CorpusEntry e)
{
    if (e.code.empty()) {
        c.issues.push_back({e.location, "empty code; skipped"});
        return;
    }
    if (e.prompt && e.prompt->empty())
        e.prompt.reset();
    const auto [it, inserted] = seen.emplace(e.id, e.location);
    if (!inserted) {
        c.issues.push_back({e.location, "duplicate id '" + e.id + "' (first at " + it->second + "); skipped"});
        return;
    }
    c.entries.push_back(std::move(e));
}

// The entry's repository and file from `repo` / `path`, else from `source` ("<path>::<name>": the path, and
// its first folder as the repository; corpus.h).
void setRepoFile(CorpusEntry& e, std::string repo, std::string path, const std::string& source)
{
    if (path.empty() && !source.empty()) {
        const std::size_t cut = source.find("::");
        path = source.substr(0, cut);
        if (repo.empty() && path.find('/') != std::string::npos) {
            repo = path.substr(0, path.find('/'));
            path = path.substr(repo.size() + 1);
        }
    }
    e.repo = std::move(repo);
    e.path = std::move(path);
}

std::optional<std::string> utf8Problem(std::string_view s, const char* what)
{
    if (auto bad = findInvalidUtf8(s))
        return std::string(what) + " is not valid UTF-8 (byte " + std::to_string(*bad) + "); skipped";
    return std::nullopt;
}

} // namespace

std::string toString(CorpusFormat f)
{
    switch (f) {
    case CorpusFormat::JsonLines:
        return "jsonl";
    case CorpusFormat::Csv:
        return "csv";
    case CorpusFormat::Folder:
        return "folder";
    }
    return "?";
}

std::string Corpus::fingerprint() const
{
    uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::string_view s) {
        for (unsigned char c : s) {
            h ^= c;
            h *= 1099511628211ULL;
        }
        h ^= 0xFF; // separator, so ("ab","c") != ("a","bc")
        h *= 1099511628211ULL;
    };
    // The language is mixed in only when it is not the default one, so corpora read before entries had
    // languages keep their fingerprints (and their result databases stay resumable).
    const std::string& fallback = LanguageRegistry::instance().defaultLanguage().id;
    for (const auto& e : entries) {
        mix(e.id);
        mix(e.code);
        mix(e.prompt.value_or(""));
        if (!e.language.empty() && e.language != fallback)
            mix("language=" + e.language);
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::vector<std::string> Corpus::languages() const
{
    std::vector<std::string> out;
    for (const auto& e : entries)
        if (std::find(out.begin(), out.end(), e.language) == out.end())
            out.push_back(e.language);
    std::sort(out.begin(), out.end());
    return out;
}

namespace {
// A `language` field / column value: the registry id it names, or an issue message.
std::optional<std::string> entryLanguage(const std::string& value, std::string* problem)
{
    const auto& reg = LanguageRegistry::instance();
    if (const LanguageInfo* l = reg.lookup(value))
        return l->id;
    std::string known;
    for (const auto& id : reg.ids())
        known += (known.empty() ? "" : ", ") + id;
    *problem = "unknown language '" + value + "' (supported: " + known + "); skipped";
    return std::nullopt;
}
} // namespace

Corpus parseJsonLines(const std::string& text, const std::string& name)
{
    Corpus c;
    c.source = name;
    c.format = CorpusFormat::JsonLines;
    std::map<std::string, std::string> seen;
    std::string_view rest = stripBom(text);
    std::size_t lineNo = 0;
    while (!rest.empty()) {
        const auto nl = rest.find('\n');
        std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos)
            continue; // blank line: not an entry
        const std::string where = loc(name, lineNo);
        if (auto p = utf8Problem(line, "line")) {
            c.issues.push_back({where, *p});
            continue;
        }
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range for a number like 1e400
            std::string msg = e.what();
            if (auto pos = msg.find("parse error"); pos != std::string::npos)
                msg = msg.substr(pos);
            c.issues.push_back({where, "invalid JSON (" + msg + "); skipped"});
            continue;
        }
        if (!j.is_object()) {
            c.issues.push_back({where, "not a JSON object; skipped"});
            continue;
        }
        const auto code = j.find("code");
        if (code == j.end() || !code->is_string()) {
            c.issues.push_back({where, "no string field \"code\"; skipped"});
            continue;
        }
        CorpusEntry e;
        e.code = code->get<std::string>();
        e.location = where;
        if (auto id = j.find("id"); id != j.end() && !id->is_null()) {
            if (id->is_string())
                e.id = id->get<std::string>();
            else if (id->is_number_integer() || id->is_number_unsigned())
                e.id = id->dump();
            else {
                c.issues.push_back({where, "field \"id\" must be a string or an integer; skipped"});
                continue;
            }
        } else {
            e.id = "line-" + std::to_string(lineNo);
        }
        if (auto pr = j.find("prompt"); pr != j.end() && !pr->is_null()) {
            if (!pr->is_string()) {
                c.issues.push_back({where, "field \"prompt\" must be a string; skipped"});
                continue;
            }
            e.prompt = pr->get<std::string>();
        }
        if (auto lg = j.find("language"); lg != j.end() && !lg->is_null()) {
            if (!lg->is_string()) {
                c.issues.push_back({where, "field \"language\" must be a string; skipped"});
                continue;
            }
            std::string problem;
            const auto id = entryLanguage(lg->get<std::string>(), &problem);
            if (!id) {
                c.issues.push_back({where, problem});
                continue;
            }
            e.language = *id;
        }
        std::string text[3]; // repo, path, source
        bool bad = false;
        for (int k = 0; k < 3 && !bad; ++k) {
            const char* key = k == 0 ? "repo" : k == 1 ? "path" : "source";
            if (auto f = j.find(key); f != j.end() && !f->is_null()) {
                if (!f->is_string() && k < 2) {
                    c.issues.push_back({where, std::string("field \"") + key + "\" must be a string; skipped"});
                    bad = true;
                } else if (f->is_string()) { // a non-string `source` is no file: ignored, as before
                    text[k] = f->get<std::string>();
                }
            }
        }
        if (bad)
            continue;
        setRepoFile(e, text[0], text[1], text[2]);
        addEntry(c, seen, std::move(e));
    }
    return c;
}

// (results/csvread.h) RFC 4180: fields separated by ',', records by CRLF or LF; a quoted field may contain ',', '"'
// (doubled) and line breaks. Errors (text after a closing quote, a quote inside an unquoted field, an unterminated
// quote) are recorded on the record, which the caller skips.
std::vector<CsvRecord> splitCsv(std::string_view s)
{
    std::vector<CsvRecord> out;
    std::size_t i = 0, line = 1;
    const std::size_t n = s.size();
    while (i < n) {
        CsvRecord rec;
        rec.line = line;
        std::string field;
        bool endRecord = false;
        while (!endRecord) {
            field.clear();
            if (i < n && s[i] == '"') {
                ++i;
                bool closed = false;
                while (i < n) {
                    const char ch = s[i];
                    if (ch == '"') {
                        if (i + 1 < n && s[i + 1] == '"') {
                            field += '"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        closed = true;
                        break;
                    }
                    if (ch == '\n')
                        ++line;
                    field += ch;
                    ++i;
                }
                if (!closed && !rec.error)
                    rec.error = "unterminated quoted field";
                // after the closing quote: ',' or end of record
                if (i < n && s[i] != ',' && s[i] != '\n' && s[i] != '\r') {
                    if (!rec.error)
                        rec.error = "text after a closing quote";
                    while (i < n && s[i] != ',' && s[i] != '\n')
                        ++i;
                }
            } else {
                while (i < n && s[i] != ',' && s[i] != '\n' && s[i] != '\r') {
                    if (s[i] == '"' && !rec.error)
                        rec.error = "quote inside an unquoted field";
                    field += s[i++];
                }
            }
            rec.fields.push_back(field);
            if (i >= n) {
                endRecord = true;
            } else if (s[i] == ',') {
                ++i;
            } else {
                if (s[i] == '\r')
                    ++i;
                if (i < n && s[i] == '\n')
                    ++i;
                ++line;
                endRecord = true;
            }
        }
        out.push_back(std::move(rec));
    }
    return out;
}

Corpus parseCsv(const std::string& text, const std::string& name)
{
    Corpus c;
    c.source = name;
    c.format = CorpusFormat::Csv;
    auto records = splitCsv(stripBom(text));
    if (records.empty())
        throw InputError("CSV corpus " + name + " is empty (expected a header row with a `code` column)");
    const auto& header = records.front();
    if (header.error)
        throw InputError("CSV corpus " + loc(name, header.line) + ": malformed header (" + *header.error + ")");
    auto column = [&](const std::string& want) -> std::optional<std::size_t> {
        for (std::size_t k = 0; k < header.fields.size(); ++k) {
            std::string f = header.fields[k];
            f.erase(0, f.find_first_not_of(" \t"));
            f.erase(f.find_last_not_of(" \t") + 1);
            std::transform(f.begin(), f.end(), f.begin(), [](unsigned char ch) { return std::tolower(ch); });
            if (f == want)
                return k;
        }
        return std::nullopt;
    };
    const auto codeCol = column("code");
    if (!codeCol)
        throw InputError("CSV corpus " + name + " has no `code` column in its header row");
    const auto idCol = column("id");
    const auto promptCol = column("prompt");
    const auto languageCol = column("language");
    const auto repoCol = column("repo");
    const auto pathCol = column("path");
    const auto sourceCol = column("source");
    std::map<std::string, std::string> seen;
    for (std::size_t r = 1; r < records.size(); ++r) {
        auto& rec = records[r];
        const std::string where = loc(name, rec.line);
        if (rec.fields.size() == 1 && rec.fields[0].empty() && !rec.error)
            continue; // blank line
        if (rec.error) {
            c.issues.push_back({where, "malformed CSV record (" + *rec.error + "); skipped"});
            continue;
        }
        if (rec.fields.size() != header.fields.size()) {
            c.issues.push_back({where, "CSV record has " + std::to_string(rec.fields.size()) + " fields, the header " +
                                           std::to_string(header.fields.size()) + "; skipped"});
            continue;
        }
        bool bad = false;
        for (const auto& f : rec.fields) {
            if (auto p = utf8Problem(f, "record")) {
                c.issues.push_back({where, *p});
                bad = true;
                break;
            }
        }
        if (bad)
            continue;
        CorpusEntry e;
        e.code = rec.fields[*codeCol];
        e.location = where;
        e.id = idCol && !rec.fields[*idCol].empty() ? rec.fields[*idCol] : "row-" + std::to_string(r);
        if (promptCol)
            e.prompt = rec.fields[*promptCol];
        setRepoFile(e, repoCol ? rec.fields[*repoCol] : "", pathCol ? rec.fields[*pathCol] : "",
                    sourceCol ? rec.fields[*sourceCol] : "");
        if (languageCol && !rec.fields[*languageCol].empty()) {
            std::string problem;
            const auto id = entryLanguage(rec.fields[*languageCol], &problem);
            if (!id) {
                c.issues.push_back({where, problem});
                continue;
            }
            e.language = *id;
        }
        addEntry(c, seen, std::move(e));
    }
    return c;
}

namespace {

Corpus readFolder(const fs::path& root, const CorpusReadOptions& opts)
{
    Corpus c;
    c.source = root;
    c.format = CorpusFormat::Folder;
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    if (ec)
        throw InputError("cannot list corpus folder " + root.string() + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw InputError("cannot list corpus folder " + root.string() + ": " + ec.message());
        const auto& p = it->path();
        const std::string fname = p.filename().string();
        if (!fname.empty() && fname[0] == '.') {
            if (it->is_directory(ec))
                it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(ec))
            continue;
        std::string ext = p.extension().string(); // case-insensitive, as the language registry matches files
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (std::find(opts.extensions.begin(), opts.extensions.end(), ext) != opts.extensions.end())
            files.push_back(p);
    }
    std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
        return a.lexically_relative(root).generic_string() < b.lexically_relative(root).generic_string();
    });
    std::map<std::string, std::string> seen;
    for (const auto& f : files) {
        CorpusEntry e;
        e.id = f.lexically_relative(root).generic_string();
        e.location = f.string();
        e.repo = fs::absolute(root, ec).lexically_normal().filename().string(); // the folder is one repository
        if (e.repo.empty()) // "dir/" normalizes to a trailing empty name
            e.repo = fs::absolute(root, ec).lexically_normal().parent_path().filename().string();
        e.path = e.id;
        if (!opts.language.empty())
            e.language = LanguageRegistry::instance().get(opts.language).id; // the user's word wins
        else if (const LanguageInfo* l = LanguageRegistry::instance().forFile(f))
            e.language = l->id;
        try {
            e.code = readBytes(f);
        } catch (const InputError& err) {
            c.issues.push_back({e.location, std::string(err.what()) + "; skipped"});
            continue;
        }
        const std::string_view body = stripBom(e.code);
        if (body.size() != e.code.size())
            e.code = std::string(body);
        if (auto p = utf8Problem(e.code, "file")) {
            c.issues.push_back({e.location, *p});
            continue;
        }
        addEntry(c, seen, std::move(e));
    }
    return c;
}

} // namespace

Corpus readCorpus(const fs::path& path, const CorpusReadOptions& request)
{
    CorpusReadOptions opts = request;
    const auto& reg = LanguageRegistry::instance();
    const std::string fallback = opts.language.empty() ? reg.defaultLanguage().id : reg.get(opts.language).id;
    if (opts.extensions.empty())
        opts.extensions = opts.language.empty() ? reg.allExtensions() : reg.get(opts.language).extensions;
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw InputError("corpus not found: " + path.string());
    const fs::path abs = fs::absolute(path, ec);
    Corpus c;
    if (fs::is_directory(path, ec)) {
        c = readFolder(path, opts);
    } else {
        std::string ext = path.extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
        const std::string text = readBytes(path);
        c = ext == ".csv" ? parseCsv(text, path.string()) : parseJsonLines(text, path.string());
    }
    c.source = ec ? path : abs;
    for (auto& e : c.entries)
        if (e.language.empty())
            e.language = fallback;
    if (c.entries.empty()) {
        std::string msg = "empty corpus: no usable entry in " + path.string();
        if (c.format == CorpusFormat::Folder)
            msg += " (no readable UTF-8 files ending in";
        if (c.format == CorpusFormat::Folder) {
            for (const auto& e : opts.extensions)
                msg += " " + e;
            msg += ")";
        }
        if (!c.issues.empty()) {
            msg += "; " + std::to_string(c.issues.size()) + " skipped, first: " + c.issues.front().location + ": " +
                   c.issues.front().message;
        }
        throw InputError(msg);
    }
    return c;
}

Corpus readNamedCorpus(const std::string& nameOrPath, const std::string& language,
                       const std::vector<std::string>& extensions)
{
    CorpusReadOptions ro; // no extensions: the language's own (its registry descriptor)
    ro.language = language;
    for (std::string e : extensions) {
        if (e.empty())
            continue;
        std::transform(e.begin(), e.end(), e.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        ro.extensions.push_back(e[0] == '.' ? e : "." + e);
    }
    const auto& reg = LanguageRegistry::instance();
    const LanguageInfo& sampleOf = language.empty() ? reg.defaultLanguage() : reg.get(language);
    const fs::path path = nameOrPath != "default"         ? fs::path(nameOrPath)
                          : sampleOf.sampleCorpus.empty() ? sampleCorpus()
                                                          : sampleOf.sampleCorpus;
    return readCorpus(path, ro);
}

std::string corpusReadReport(const Corpus& c)
{
    std::ostringstream out;
    const std::size_t shown = std::min<std::size_t>(c.issues.size(), 20);
    for (std::size_t i = 0; i < shown; ++i)
        out << "corpus: " << c.issues[i].location << ": " << c.issues[i].message << '\n';
    if (c.issues.size() > shown)
        out << "corpus: ... and " << (c.issues.size() - shown) << " more skipped entries\n";
    out << "corpus: " << c.entries.size() << " snippets from " << c.source.string()
        << (c.issues.empty() ? "" : " (" + std::to_string(c.issues.size()) + " skipped)") << '\n';
    std::map<std::string, int> perLanguage;
    for (const auto& e : c.entries)
        ++perLanguage[e.language];
    out << "languages:";
    for (const auto& [l, n] : perLanguage)
        out << ' ' << l << ' ' << n;
    out << '\n';
    return out.str();
}

} // namespace ascviz
