// CodeSyntax's paper mode (method.md §11, seed 002): the paper's relation types (its Table 8 and App. A) and
// its children relation, read from a per-language mapping of tree-sitter nodes onto the paper's AST types
// (resources/languages/<id>/codesyntax.json), and the code words of App. B that BPE tokens are grouped into.
// A relation is one head word and one dependent block (first word .. last word). Plain data, no torch: the
// C++ names no language; the mapping file does.
#pragma once
#include "ascviz/attention/relations.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

class CodeSyntaxMapping {
public:
    // Reads a mapping file; InputError naming the file for one that is not a mapping.
    static CodeSyntaxMapping load(const std::filesystem::path& file);
    // The mapping of a language folder (<folder>/codesyntax.json); InputError naming the language when there
    // is none (the paper's relations exist for its Python only: other languages use the generic relations).
    static CodeSyntaxMapping forLanguage(const std::string& language, const std::filesystem::path& folder);
    static bool exists(const std::filesystem::path& folder);
    // The relation types the mapping can produce (the children relation last), in file order.
    std::vector<std::string> relationTypes() const;
    // The relation types of the paper's Table 6 (its selection), in the paper's order.
    const std::vector<std::string>& table6() const;

    struct Data;
    std::shared_ptr<const Data> data;
};

// The code words of a text (App. B: the tokens of the language's own tokenizer): the tree's leaves, a node of
// an "atomic" type (a string literal) as one word, zero-width leaves left out; byte spans in text order.
std::vector<std::pair<std::size_t, std::size_t>> codeWords(const SyntaxTree& tree, const CodeSyntaxMapping& mapping);

// The paper's relations of a tree: `head` spans the head word, `dependent` the dependent block from its first
// word's start to its last word's end (RelationEnd::node: the word's node). Relations whose head word does not
// come before the dependent's first word are left out, as the paper's extractor does.
std::vector<Relation> codeSyntaxRelations(const SyntaxTree& tree, const CodeSyntaxMapping& mapping);

// Words over a tokenization (App. B: "we sum up their attention weights" over a word's subtokens): the
// tokens overlapping one code word belong to one word, and a token overlapping several code words joins
// them into one word; a token that overlaps no code word (whitespace, a line break) is a word of its own.
// `start[w]` is word w's first token; start.back() = the token count (words = start.size() - 1).
struct TokenWords {
    std::vector<int> start;
    std::vector<int> ofToken; // token -> word
    int words() const { return static_cast<int>(start.size()) - 1; }
    int wordAtByte(const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans, std::size_t byte) const;
};
TokenWords groupTokens(const std::vector<std::pair<std::size_t, std::size_t>>& codeWordSpans,
                       const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans);

} // namespace ascviz
