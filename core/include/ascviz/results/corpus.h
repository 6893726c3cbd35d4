// Corpus input for batch AsC-Eval (docs/cli.md): JSON Lines, CSV or a folder of source files.
// Malformed or non-UTF-8 entries are never dropped silently: each one becomes a CorpusIssue with its
// location (file:line) and is skipped.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct CorpusEntry {
    std::string id;                    // the entry's `id`, else derived from its location (unique in a corpus)
    std::string code;                  // UTF-8
    std::optional<std::string> prompt; // optional `prompt` field (JSONL / CSV column)
    std::string location;              // "file:line" (JSONL, CSV: first line of the record) or the file path
    // The entry's language (a registry id): its `language` field / column (the id, name or an alias), a
    // folder file's extension, else — filled in by readCorpus — CorpusReadOptions::language or the default.
    std::string language;
    // The repository and the file (path relative to the repository) the code comes from (method.md §10:
    // PERPLEXED's internal calls): the `repo` / `path` fields or CSV columns; without them a `source` field
    // `<path>::<name>` (ascviz-cli extract) gives the path and its first folder the repository. A folder corpus
    // is one repository: the folder's name, each file its path. Empty when unknown.
    std::string repo;
    std::string path;
};

struct CorpusIssue {
    std::string location; // "file:line" or a file path
    std::string message;
};

enum class CorpusFormat { JsonLines, Csv, Folder };

struct CorpusReadOptions {
    // Folder corpora: file extensions taken (lower-case, with the dot; matched case-insensitively). Hidden
    // files/folders are skipped. Empty: the extensions of `language` in the language registry (syntax/language.h); with
    // no language, every registered extension (a mixed-language folder; each file in its extension's language).
    std::vector<std::string> extensions;
    // The language of entries that name none (no `language` field). In a folder corpus, every file's
    // language when set; when empty, each file's extension decides. Empty: the registry's default language.
    std::string language;
};

struct Corpus {
    std::filesystem::path source; // as given (absolute after reading)
    CorpusFormat format = CorpusFormat::JsonLines;
    std::vector<CorpusEntry> entries;           // in file order (folders: sorted relative paths)
    std::vector<CorpusIssue> issues;            // skipped entries with reasons
    std::vector<std::string> languages() const; // the entries' distinct languages, sorted
    // FNV-1a 64 over every entry's id and code (and language, when it is not the registry's default), in
    // order: identifies the corpus content for --resume.
    std::string fingerprint() const;
};

// Reads a corpus. The format comes from the path: a folder; *.csv; anything else is JSON Lines
// (*.jsonl, *.ndjson, *.json ...). Throws InputError when the path is missing/unreadable, a CSV has no
// `code` column, or no usable entry remains ("empty corpus", with the first issues named).
Corpus readCorpus(const std::filesystem::path& path, const CorpusReadOptions& opts = {});

// A corpus as the front ends name it (the CLI's and Python's `corpus`): "default" is the bundled sample corpus of
// `language` (else of the registry's default language), anything else a path; `language` as in CorpusReadOptions;
// `extensions` as a user writes them ("py", ".PY": lower-cased, the dot added; empty items dropped).
Corpus readNamedCorpus(const std::string& nameOrPath, const std::string& language,
                       const std::vector<std::string>& extensions = {});

// What a front end reports after reading a corpus, one line each: the first 20 skipped entries ("corpus: LOCATION:
// MESSAGE", then "corpus: ... and N more skipped entries"), "corpus: N snippets from SOURCE[ (K skipped)]" and
// "languages: ID COUNT ...".
std::string corpusReadReport(const Corpus& corpus);

// The parsers on in-memory text (for tests and for callers that already hold the text). `name` is used in
// locations. They do not throw for an empty result; readCorpus does.
Corpus parseJsonLines(const std::string& text, const std::string& name);
Corpus parseCsv(const std::string& text, const std::string& name); // RFC 4180; throws InputError without `code`

std::string toString(CorpusFormat f);

} // namespace ascviz
