// PERPLEXED's internal vs external method invocations as the paper counts them (method.md §10, RQ3, Table 1):
// a call is internal when its callee's name is declared in ANOTHER file of the same repository (declarations
// and calls within one file are ignored), external otherwise; calls to the language's builtins
// (language.json `calls.builtins`) are left out. The nodes counted follow the paper's leaf rule (Table 1's
// rows are leaf labels whose parent is `call` or `argument_list`): the call's method name when it is a child of
// the call node itself (the callee: the last name node before the arguments; Python's `obj.m(...)` names `m`
// inside an `attribute` node, so its name is no row, though the call is classified and its arguments count),
// and each child of its argument node (language.json `calls.arguments`) that is a leaf: no children, or a type
// in `calls.leaves` (string literals). Argument subtrees (`a + b`, `k=v`, `obj.x`, a nested call) are not rows;
// a token counts once per call, in the node holding its first non-whitespace byte (all-whitespace tokens are
// not counted), and a call nested in another call's arguments counts only as itself. Table 1: a row per
// "parent -> child type" × internal/external with the tokens' count, mean and sample std CE; the summary
// rows are the UNWEIGHTED mean of those rows' means and their population standard deviation (numpy's
// default, as the paper's 0.777 ± 0.493 over its 12 internal rows).
#pragma once
#include "ascviz/analysis/cestat.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

struct RepoFile {
    std::string repo;
    std::string path; // relative to the repository
};

// Which repository and file each snippet comes from, and the names each file of a repository declares
// (the nodes of its language's `calls.definitions`).
class CallRepository {
public:
    // Every entry with a repository and a path (corpus.h): its file, and the declarations in its code.
    static CallRepository fromCorpus(const Corpus& corpus);
    // One source: `id` is the snippet id results databases store. Throws InputError for an unknown language.
    void add(const std::string& id, const RepoFile& file, const std::string& language, const std::string& code);
    const RepoFile* fileOf(const std::string& snippetId) const;
    // `name` is declared in a file of file.repo other than file.path.
    bool declaredElsewhere(const RepoFile& file, const std::string& name) const;
    std::size_t sources() const { return m_files.size(); }
    std::size_t repositories() const { return m_decls.size(); }

private:
    std::map<std::string, RepoFile> m_files;
    std::map<std::string, std::map<std::string, std::set<std::string>>> m_decls; // repo -> name -> paths
};

// The repository of a run's snippets for the call table: from `corpus` when given, else the run's own corpus
// (RunInfo::corpusPath) when it still exists (entries without a `language` field are in the run's language);
// nullopt, with `*why` saying so, when the run's corpus is gone. Throws InputError for an unreadable corpus.
std::optional<CallRepository> callRepositoryOfRun(const ResultsDb& db,
                                                  const std::optional<std::filesystem::path>& corpus,
                                                  std::string* why = nullptr);

// A scored token of a snippet: its byte span and CE.
struct CeToken {
    std::size_t start = 0, end = 0;
    double ce = 0;
};

// The callee of a call node `c`: the id of the last name node before its argument node (-1: none).
int calleeNode(const SyntaxTree& tree, const LanguageInfo& lang, const AstNode& c);

struct CallTableRow {
    std::string node; // "call -> identifier", "argument_list -> string", ...
    bool internal = false;
    CeStat ce;
};

struct CallSummary {
    int64_t calls = 0, rows = 0, tokens = 0;
    double mean = 0; // unweighted mean of the rows' mean CE
    double std = 0;  // population standard deviation of the rows' mean CE
};

struct CallTable {
    std::vector<CallTableRow> rows; // method-name rows first, then by node; internal before external
    CallSummary internal, external;
    int64_t builtinCalls = 0;     // left out
    int64_t unplacedSnippets = 0; // snippets whose repository/file is unknown: their calls are not counted
    std::size_t sources = 0, repositories = 0;
};

class CallTableBuilder {
public:
    explicit CallTableBuilder(const CallRepository& repository) : m_repo(repository) {}
    void addSnippet(const std::string& id, const LanguageInfo& lang, const SyntaxTree& tree,
                    const std::vector<CeToken>& tokens);
    CallTable finish() const;

private:
    const CallRepository& m_repo;
    std::map<std::pair<std::string, bool>, std::vector<double>> m_values; // (node, internal) -> CEs
    std::set<std::string> m_nameRows;
    int64_t m_calls[2] = {0, 0}; // external, internal
    int64_t m_builtin = 0, m_unplaced = 0;
};

// {"rows": [{"node", "internal", "count", "mean_ce", "std_ce"}], "summary": {"internal"|"external": {"calls",
// "rows", "tokens", "mean_ce", "std_ce"}}, "builtin_calls_left_out", "unplaced_snippets", "rule"}
nlohmann::json callTableToJson(const CallTable& t);

} // namespace ascviz
