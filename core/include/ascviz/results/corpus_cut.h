// Cutting a sample corpus out of source files: every node of the given types (functions, methods) that
// parses on its own without syntax errors and fits the size limits becomes one snippet. `ascviz-cli
// extract` drives it; the bundled per-language sample corpora were made with it (resources/corpus/README.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ascviz {

struct CutOptions {
    std::string language;               // a registry id
    std::vector<std::string> nodeTypes; // e.g. method_declaration, function_definition
    int minLines = 3;
    int maxLines = 40;
    std::size_t maxBytes = 4000;
    bool requireClean = true; // drop a snippet that has ERROR/MISSING nodes when parsed alone
};

struct CutSnippet {
    std::string source; // "<relative path>::<name>"
    std::string path;   // the relative path (the `path` field of the corpus, corpus.h)
    std::string name;   // the function's name ("anonymous" when it has none)
    std::string code;   // the node's text, its first line's indentation removed from every line
    int line = 0;       // 1-based line of the node in its file
};

// The snippets of one file's text (in text order). `relPath` is recorded in CutSnippet::source.
std::vector<CutSnippet> cutSnippets(const std::string& text, const std::string& relPath, const CutOptions& opts);

// Every snippet of the files (or folders: files with the language's extensions, sorted) in order,
// duplicates of the same code dropped; then, when sample > 0 and there are more, `sample` of them drawn
// without replacement by a Fisher–Yates shuffle on std::mt19937_64(seed) (index = draw % remaining),
// kept in their original order. Paths are recorded relative to `root`. Files that are not UTF-8 are skipped
// and named in `skipped`.
std::vector<CutSnippet> cutCorpus(const std::vector<std::filesystem::path>& sources, const std::filesystem::path& root,
                                  const CutOptions& opts, std::size_t sample, uint64_t seed,
                                  std::vector<std::string>* skipped = nullptr);

} // namespace ascviz
