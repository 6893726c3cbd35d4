// Galeras testbeds (method.md §12, docs/galeras.md): partial code cut from a function, and the removed
// remainder as the ground truth. The function's parts (definition, body, docstring) are found with tree-sitter
// using the language's resources/languages/<id>/testbed.json (no language is named in code).
//
// Cut rule. Lines are the function's lines (a last line without '\n' counts). The signature lines are the
// lines before the line where the body's first statement starts (decorators and a multi-line signature
// included); the docstring lines are the lines of the body's first statement when it is a docstring. Body lines
// are the lines after the signature lines, less the docstring lines for RandomCut, after them for WithDocString.
//   RandomCut      signature lines + the first k body lines (the docstring left out); truth = the other body lines
//   WithDocString  signature lines + the docstring lines + the first k other body lines; truth = the rest
//   FromDocString  signature lines + the docstring lines; truth = every other body line (k = 0)
// k is drawn uniformly in [1, L − 1] for L non-docstring body lines, with mt19937_64(seed XOR FNV-1a 64 of the
// record's id), first draw mod (L − 1), + 1 — reproducible per record whatever the order or the other records.
// Skipped (counted by reason): code under the minimum size (≤ 10 lexical tokens and ≤ 100 characters), code
// that does not parse as one definition without syntax errors, a language without testbed rules, fewer than
// 2 body lines to cut (RandomCut, WithDocString) or 1 (FromDocString), no docstring (WithDocString,
// FromDocString), a docstring of 3 words or fewer (WithDocString, FromDocString: the seed keeps "a docstring
// that is longer than 3 words"; docstringWords), no signature.
#pragma once
#include "ascviz/base/limits.h"
#include "ascviz/galeras/records.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ascviz {

enum class Testbed { RandomCut, WithDocString, FromDocString };
Testbed parseTestbed(const std::string& s); // randomcut|withdocstring|fromdocstring; InputError otherwise

// The words of a docstring: maximal runs of non-whitespace that hold a letter or a digit (so the quotes of
// `"""Add two numbers."""` are not words: 3). The testbeds with a docstring need more than 3.
int docstringWords(const std::string& docstring);
std::string toString(Testbed t);

// The parts of a function, found with tree-sitter.
struct FunctionParts {
    std::size_t bodyStart = 0;           // byte where the body's first statement starts
    std::optional<std::size_t> docStart; // the docstring statement's byte span
    std::size_t docEnd = 0;
    std::string signature;                // definition start .. body start, trailing whitespace trimmed
    std::optional<std::string> docstring; // the docstring literal's text
    std::string error;                    // why none were found ("" = found)
};
// Throws nothing for the code's own problems; `error` says what is wrong (no rules for the language, syntax
// errors, no definition). Throws InputError for a syntax tree over maxAstNodes (limits.h; 0 = no limit).
FunctionParts findFunctionParts(const std::string& code, const std::string& language,
                                std::size_t maxAstNodes = limits::kDefaultMaxAstNodes);

struct TestbedItem {
    std::string recordId;
    std::string language;
    std::string partial;     // the code given to the model
    std::string groundTruth; // the removed remainder
    std::string signature, docstring;
    int cutLine = 0; // k, the body lines kept (FromDocString: 0)
    const GalerasRecord* record = nullptr;
};

struct TestbedSet {
    Testbed kind = Testbed::RandomCut;
    std::vector<TestbedItem> items;
    std::map<std::string, int> skipped;                              // reason -> count
    std::vector<std::pair<std::string, std::string>> skippedRecords; // record id, reason
    // The records skipped for a limit (also in skippedRecords), each named: its id and "file:line", and the
    // size against the limit.
    struct OverLimit {
        std::string recordId, location, why;
    };
    std::vector<OverLimit> overLimit;
};

// Bounded work (limits.h, 0 = no limit): a record whose code is over maxTextBytes (the text a model scores)
// or whose syntax tree has over maxAstNodes nodes is skipped with its id; the other records are kept.
struct TestbedLimits {
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
};

TestbedSet buildTestbed(const RecordSet& records, Testbed kind, uint64_t seed, const TestbedLimits& limits = {});

// Where the first function definition of `code` ends when non-whitespace text follows it (a completion that
// went past the function); nullopt otherwise, or without testbed rules for the language.
std::optional<std::size_t> functionEnd(const std::string& code, const std::string& language);

} // namespace ascviz
