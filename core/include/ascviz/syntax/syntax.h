// tree-sitter parsing into an immutable AST with byte spans. tree-sitter handles are owned inside
// syntax.cpp only; this header exposes plain data.
#pragma once
#include "ascviz/base/limits.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

struct AstNode {
    int id = 0;        // pre-order index
    std::string type;  // tree-sitter type ("identifier", "(", "ERROR", ...)
    std::string field; // the grammar's field name of this node in its parent ("condition", "body"); "" = none
    bool named = false;
    std::size_t start = 0; // UTF-8 byte span [start, end)
    std::size_t end = 0;
    int parent = -1;        // -1 for the root
    int depth = 0;          // root = 0
    bool isError = false;   // an ERROR node
    bool isMissing = false; // a MISSING node inserted by error recovery (zero width)
    std::vector<int> children;
    bool isTerminal() const { return children.empty(); }
    bool error() const { return isError || isMissing; }
};

// One visible node type of a grammar: a named rule ("identifier") or an anonymous token ("]", "else").
// A name may exist both ways (Python's `lambda` rule and `lambda` keyword).
struct NodeType {
    std::string name;
    bool named = false;
};

class SyntaxTree {
public:
    // Throws InputError for an unknown language or invalid UTF-8, and (limits::checkAstNodes) when the tree
    // has more than maxNodes nodes (0 = no limit): counted from tree-sitter's tree before anything is copied.
    static SyntaxTree parse(const std::string& language, std::string_view text,
                            std::size_t maxNodes = limits::kDefaultMaxAstNodes);
    static std::vector<std::string> languages();
    // Every visible node type of a compiled grammar, sorted by name then named-first, without duplicates
    // (ERROR included). Throws InputError for an unknown language.
    static std::vector<NodeType> nodeTypes(const std::string& language);
    // Whether the grammar has a visible node type of that name (named or anonymous).
    static bool hasNodeType(const std::string& language, std::string_view type);

    const std::vector<AstNode>& nodes() const { return m_nodes; }
    const std::string& text() const { return m_text; }
    const std::string& language() const { return m_language; }
    std::string_view nodeText(const AstNode& n) const
    {
        return std::string_view(m_text).substr(n.start, n.end - n.start);
    }
    int levels() const; // max depth + 1
    bool hasErrors() const;
    // The outermost ERROR nodes and every MISSING node, in pre-order (an ERROR inside an ERROR is left out).
    std::vector<int> errorNodes() const;

private:
    std::string m_language;
    std::string m_text;
    std::vector<AstNode> m_nodes;
};

// tree-sitter's own s-expression (ts_node_string: named nodes, field names, MISSING and ERROR nodes) of every
// node that has children and of the root, in the pre-order of SyntaxTree::parse (same indices as nodes()); "" for a
// leaf. CodeBLEU's syntax match compares these strings (galeras/codebleu.h). Throws as SyntaxTree::parse.
std::vector<std::string> subtreeStrings(const std::string& language, std::string_view text);

// The name a definition node (function, method, class) introduces: C++ the name inside its
// function_declarator (never the return type: `std::string A::f()` is A::f); otherwise the first name-like
// child; an anonymous JavaScript function the name it is bound to (`var f = function`). "anonymous" when none.
std::string definitionName(const SyntaxTree& tree, const AstNode& node);
// Whether a node type is a name: identifier, property_identifier, field_identifier, qualified_identifier, ...
bool isNameNode(const std::string& type);

// Where a syntax error sits: 1-based line, 1-based column in code points, and the byte span.
struct SyntaxProblem {
    int node = 0;
    std::string what; // "ERROR" or "MISSING <type>"
    std::size_t start = 0, end = 0;
    int line = 1, column = 1;
};
std::vector<SyntaxProblem> syntaxProblems(const SyntaxTree& tree);
// One line for a user: "<n> syntax error(s) parsing as <language>; first: <what> at line L, column C".
// Empty when the tree has none.
std::string describeSyntaxProblems(const SyntaxTree& tree);

// The compiled languages (other than `except`) whose grammar parses `text` without ERROR or MISSING nodes.
// For messages only ("it parses cleanly as ..."): nothing picks a language from content. Empty for a text over
// limits::kMaxCleanParseHintBytes (64 KiB).
std::vector<std::string> languagesParsingCleanly(std::string_view text, const std::string& except = {});

} // namespace ascviz
