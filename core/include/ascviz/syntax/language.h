// The language registry: one descriptor per language, resources/languages/<id>/language.json, read at
// run time (grammar pin, file extensions, category table, decision points for cyclomatic complexity,
// highlighting rules). CMake reads the same descriptors to fetch and link each grammar
// (cmake/AscvizGrammars.cmake), so adding a language is a folder under resources/languages/ — no other
// place in the code names a language (docs/adding-a-language.md).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

// Lexical rules for editor highlighting (the GUI's highlighter applies them; core only carries them).
// Regular expressions are ECMAScript/PCRE-compatible; the first capture group that matched, when the expression
// has groups, is what gets styled (alternatives may each capture their own), else the whole match.
struct HighlightRules {
    std::vector<std::string> keywords, constants, builtins;
    std::string number;                        // regex; empty = none
    std::string annotation;                    // regex (decorators, Java annotations, C++ attributes); empty = none
    std::string definition;                    // regex whose group 1 is a defined name; empty = none
    std::string lineComment;                   // "#", "//"; empty = none
    std::vector<std::string> strings;          // one-line string delimiters ("\"", "'")
    std::vector<std::string> multilineStrings; // delimiters that open and close themselves ("\"\"\"")
    std::vector<std::pair<std::string, std::string>> blockComments; // {"/*", "*/"}
};

struct LanguageInfo {
    std::string id;   // "python": the key used by the CLI (--language), corpora and results
    std::string name; // "Python": what the GUI shows
    bool isDefault = false;
    std::string grammarDistribution, grammarVersion; // the pinned PyPI sdist (for --version and reports)
    std::vector<std::string> aliases;                // other names a corpus may use ("c++", "js"), lower-case
    std::vector<std::string> extensions;             // ".py": lower-case, with the dot
    std::filesystem::path categoryFile;              // the bundled category table
    std::filesystem::path sampleCorpus;              // the bundled sample corpus (empty: none)
    std::vector<std::string> decisionPoints;         // named node types that add 1 to McCabe complexity
    std::vector<std::string> decisionTokens;         // anonymous tokens that add 1 ("&&", "case")
    // PERPLEXED's call analysis (method.md §10): call node types, their argument node types, definition node
    // types (a call is internal when the snippet defines its callee), builtins left out, and the node types
    // Table 1 counts as one leaf label though tree-sitter gives them children (string literals).
    struct Calls {
        std::vector<std::string> types, arguments, definitions, builtins, leaves;
    } calls;
    HighlightRules highlight;
    // The keyword baseline of the attention heads (CodeSyntax, method.md §11: "We use all Python and Java
    // keywords for the keyword baselines"): language.json "keyword_baseline", else the highlight keywords.
    std::vector<std::string> keywordBaseline;
    const std::vector<std::string>& baselineKeywords() const
    {
        return keywordBaseline.empty() ? highlight.keywords : keywordBaseline;
    }
    // CodeBLEU's weighted n-gram match (galeras/codebleu.h): the keywords weighted 1 (other tokens 0.2), as the
    // codebleu package's keywords/<language>.txt lists them; language.json "codebleu_keywords", empty = none.
    std::vector<std::string> codebleuKeywords;
    // CodeBLEU's per-language rules, which the codebleu package picks by language name (language.json
    // "codebleu_rules"): `comments` = how comments and docstrings are removed before the syntax and data-flow
    // matches ("tokenize": the package's pass over Python's tokenize; "c-style": its //, /* */ regular
    // expression, the package's default); `dataflow` = the package's data-flow rule set ("DFG_python",
    // "DFG_java"; empty: CodeBLEU is not defined for the language).
    struct CodeBleuRules {
        std::string comments = "c-style";
        std::string dataflow;
    } codebleuRules;
    std::string placeholder; // editor hint text
    // The editor's automatic indentation: a line whose code ends with one of these ("indent_after": ":" for
    // Python, "{" for the brace languages) starts the next line one "indent_unit" deeper (default 4 spaces).
    std::vector<std::string> indentAfter;
    std::string indentUnit = "    ";
    std::filesystem::path folder;
};

class LanguageRegistry {
public:
    // The registry of the bundled resources (resourceDir()/languages), loaded once; thread-safe.
    // A descriptor whose grammar was not compiled into this build is left out. Throws InputError when the
    // folder is missing or a descriptor is malformed (the message names the file).
    static const LanguageRegistry& instance();
    // Loads every <dir>/<id>/language.json and keeps the languages in `compiledGrammars` (all when empty).
    static LanguageRegistry load(const std::filesystem::path& dir, const std::vector<std::string>& compiledGrammars);

    const std::vector<LanguageInfo>& languages() const { return m_languages; } // sorted by id
    std::vector<std::string> ids() const;
    const LanguageInfo* find(std::string_view id) const;
    // Throws InputError "unknown language 'x' (supported: a, b)".
    const LanguageInfo& get(std::string_view id) const;
    // A language by what a corpus or user may call it: its id, its display name or an alias, case-insensitive
    // ("Java", "C++", "js"); nullptr when none.
    const LanguageInfo* lookup(std::string_view name) const;
    // The language whose extensions include the file's (case-insensitive); nullptr when none.
    const LanguageInfo* forFile(const std::filesystem::path& file) const;
    // The descriptor marked "default": true, else the first by id.
    const LanguageInfo& defaultLanguage() const;
    // Every registered extension (for "a folder of source files").
    std::vector<std::string> allExtensions() const;

private:
    std::vector<LanguageInfo> m_languages;
};

// Parses one descriptor (exposed for tests and tools). Throws InputError naming the file.
LanguageInfo readLanguageDescriptor(const std::filesystem::path& languageJson);

} // namespace ascviz
