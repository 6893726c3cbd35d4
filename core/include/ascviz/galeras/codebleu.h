// CodeBLEU (Ren et al. 2020), the metric the Galeras paper reports, as the `codebleu` package (PyPI, 0.7.0)
// computes it for one candidate and one reference (method.md §12, docs/galeras.md):
//   codebleu = 0.25·ngram + 0.25·weighted_ngram + 0.25·syntax + 0.25·(dataflow, or 1 when dataflow is 0).
// Both texts are first trimmed of leading and trailing whitespace. Checked against the package in the live
// tier (tests/galeras/test_codebleu_live.cpp, 1e-6).
#pragma once
#include <set>
#include <string>
#include <vector>

namespace ascviz {

struct CodeBleuScore {
    double codebleu = 0;
    double ngram = 0;         // BLEU-4 on whitespace tokens (ngramMatch)
    double weightedNgram = 0; // weightedNgramMatch
    double syntax = 0;        // syntaxMatch
    double dataflow = 0;      // dataflowMatch (0 when the reference has no data flow)
};

// Whether codeBleu is defined for a language: its language.json names a data-flow rule set ("codebleu_rules").
bool codeBleuSupports(const std::string& language);

// The whole score; `keywords` = LanguageInfo::codebleuKeywords. The language's rules (LanguageInfo::codebleuRules)
// pick the comment removal and the data-flow rule set (the package's DFG_python / DFG_java); a language without a
// rule set throws InputError.
CodeBleuScore codeBleu(const std::string& candidate, const std::string& reference, const std::string& language,
                       const std::set<std::string>& keywords);

// Python's str.isspace() for one code point (str.split() and str.strip() use it).
bool isPythonWhitespace(char32_t c);
// Python's str.strip(): leading and trailing whitespace removed.
std::string pythonStrip(const std::string& text);
// Python's str.split(): runs of Unicode whitespace separate tokens.
std::vector<std::string> whitespaceTokens(const std::string& text);

// BLEU-4 as nltk's corpus_bleu of one pair: modified precisions p_n = m_n / max(1, c_n) (m_n clipped matches,
// c_n candidate n-grams), a zero m_n replaced by 0.1 (Chen & Cherry's method 1), 0 when m_1 = 0, times the
// brevity penalty (1 when c > r, 0 when c = 0, else exp(1 − r/c)).
double ngramMatch(const std::vector<std::string>& candidate, const std::vector<std::string>& reference);

// The weighted n-gram match: as ngramMatch but the counts are recalls over the reference's n-grams
// (matches clipped by the candidate's count, divided by max(1, the reference's n-gram count)), unigrams
// weighted 1 when a keyword, else 0.2. The package passes [tokens, weights] as the reference, so its brevity
// penalty compares the candidate's length with 2 (the length of that pair): 1 when c > 2, 0 when c = 0,
// else exp(1 − 2/c). Kept as published.
double weightedNgramMatch(const std::vector<std::string>& candidate, const std::vector<std::string>& reference,
                          const std::set<std::string>& keywords);

// The package's remove_comments_and_docstrings, by the language's codebleuRules.comments: "tokenize" (Python) — the
// tokens of Python 3.11's tokenize, comments dropped, a string dropped when it follows an INDENT or a NEWLINE token or
// starts at column 0, the rest laid out by their columns (the text unchanged when tokenize fails: unclosed bracket or
// string, bad dedent); "c-style" (the package's default) — // and /* */ comments replaced by a space outside '…' and
// "…" literals. Then blank lines are removed.
std::string removeCommentsAndDocstrings(const std::string& code, const std::string& language);

// The syntax match: the share of the reference's subtrees (the root and every node with children, as
// tree-sitter's s-expressions) that occur among the candidate's, both after removeCommentsAndDocstrings.
double syntaxMatch(const std::string& candidate, const std::string& reference, const std::string& language);

// One data-flow edge after the package's normalisation: variables renamed var_0, var_1, … in the order they
// first appear over the graph (the sources of an edge before its variable).
struct DataFlowEdge {
    std::string var, relation; // relation: "comesFrom" or "computedFrom"
    std::vector<std::string> sources;
    bool operator==(const DataFlowEdge& o) const
    {
        return var == o.var && relation == o.relation && sources == o.sources;
    }
};
// The normalised data-flow graph of one text (after removeCommentsAndDocstrings), as the package's
// get_data_flow + normalize_dataflow. Where the package makes a list of a Python set (merging an edge seen
// twice, in a loop), AsC-Viz keeps the names in their first order: the package's order there follows
// Python's string hashing, so its own result can vary with PYTHONHASHSEED (docs/galeras.md).
std::vector<DataFlowEdge> dataFlowGraph(const std::string& code, const std::string& language);

// The data-flow match: the share of the reference's edges found (each used once) among the candidate's;
// 0 when the reference has none.
double dataflowMatch(const std::string& candidate, const std::string& reference, const std::string& language);

} // namespace ascviz
