// tree-sitter parsing into an immutable AST with byte spans. tree-sitter handles are owned inside
// syntax.cpp only; this header exposes plain data.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

struct AstNode {
    int id = 0;            // pre-order index
    std::string type;      // tree-sitter type ("identifier", "(", "ERROR", ...)
    bool named = false;
    std::size_t start = 0; // UTF-8 byte span [start, end)
    std::size_t end = 0;
    int parent = -1;       // -1 for the root
    int depth = 0;         // root = 0
    bool isError = false;  // an ERROR node
    bool isMissing = false;// a MISSING node inserted by error recovery (zero width)
    std::vector<int> children;
    bool isTerminal() const { return children.empty(); }
    bool error() const { return isError || isMissing; }
};

class SyntaxTree {
public:
    // Throws InputError for an unknown language or invalid UTF-8.
    static SyntaxTree parse(const std::string& language, std::string_view text);
    static std::vector<std::string> languages();

    const std::vector<AstNode>& nodes() const { return m_nodes; }
    const std::string& text() const { return m_text; }
    const std::string& language() const { return m_language; }
    std::string_view nodeText(const AstNode& n) const { return std::string_view(m_text).substr(n.start, n.end - n.start); }
    int levels() const; // max depth + 1
    bool hasErrors() const;

private:
    std::string m_language;
    std::string m_text;
    std::vector<AstNode> m_nodes;
};

} // namespace ascviz
