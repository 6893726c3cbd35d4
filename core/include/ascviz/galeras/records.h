// Galeras records (method.md §12, docs/galeras.md): whole functions with their signature and docstring, read
// from JSON Lines or CSV. Fields: `code` (required), `signature`, `docstring`, `id`, `language`, `repo`,
// `path`, `date`; every other numeric field is a precomputed confounder. A field mapping renames columns
// ("code=body,signature=sig"). Malformed records are never dropped silently: each becomes an issue with its
// file:line and is skipped.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct GalerasRecord {
    std::string id;                                  // the `id` field, else "<file>:<line>"
    std::string code;                                // the whole function, UTF-8
    std::string language;                            // a registry id (the `language` field, else the reader's default)
    std::optional<std::string> signature, docstring; // given by the record; else found by the testbed builder
    std::string repo, path, date;
    std::map<std::string, double> confounders; // other numeric fields
    std::string location;                      // "file:line"
};

struct RecordIssue {
    std::string location;
    std::string message;
};

struct RecordSet {
    std::vector<GalerasRecord> records;
    std::vector<RecordIssue> issues;
    // FNV-1a 64 over every field a run's rows depend on, record by record in order (for --resume): id,
    // language, code, signature and docstring (absent told from empty), the numeric fields (name and value);
    // as 16 hex digits. Not repo, path or date.
    std::string fingerprint() const;
};

struct RecordReadOptions {
    std::map<std::string, std::string> fields; // our name -> the file's column name
    std::string language;                      // for records without one; empty: the registry's default
    // Bounds of readRecords (0 = none): a longer line (a record, or a CSV line) or a larger file is refused
    // with an InputError naming the file and the line, before more is read. A line holds a whole record: the
    // bound is far above the text a model scores (--max-text-bytes), so an over-limit record is still read,
    // and then skipped by the testbed with its id.
    std::size_t maxLineBytes = std::size_t(64) << 20;
    std::size_t maxFileBytes = std::size_t(2) << 30;
};

// "code=body,signature=sig" -> {code: body, signature: sig}; throws InputError for an unknown name or a
// malformed pair.
std::map<std::string, std::string> parseFieldMapping(const std::string& spec);

// The format from the extension: .csv is CSV, anything else JSON Lines. Throws InputError when the file is
// unreadable, over a bound of `opts`, a CSV lacks the code column, or no record is left (the first issues
// named). A record with invalid UTF-8 is skipped with its line (an issue), like any malformed record.
RecordSet readRecords(const std::filesystem::path& path, const RecordReadOptions& opts = {});
// In-memory parsers (tests, fuzzing); `name` is used in locations; they do not throw for an empty result.
RecordSet parseRecordsJsonl(const std::string& text, const std::string& name, const RecordReadOptions& opts = {});
RecordSet parseRecordsCsv(const std::string& text, const std::string& name, const RecordReadOptions& opts = {});

} // namespace ascviz
