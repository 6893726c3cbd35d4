// Bounded work (issue 17): the limits a user can understand, in one place. Each has a default chosen from
// measurements (docs/limits.md) and an option that raises it; going past one fails fast with a one-line
// message naming the size, the limit and the option, or degrades (the tree layout beyond Graphviz's).
#pragma once
#include <cstddef>
#include <string>

namespace ascviz::limits {

// Text a model scores (score, eval, render, the Interactive tab, each batch snippet), in UTF-8 bytes. 32 KiB
// is a large source file (~8,000 tokens): about 20 s of CPU for the bundled model on 2 cores, seconds on a
// GPU; a megabyte would take hours. 0 = no limit.
inline constexpr std::size_t kDefaultMaxTextBytes = 32 * 1024;
inline constexpr const char* kMaxTextBytesOption = "--max-text-bytes";

// Syntax tree depth (levels) for AsC-Eval: every token is aligned to each node enclosing it, so the work and
// memory of the alignment grow with tokens x depth. Real code stays below 100 levels (CPython refuses 200
// nested parentheses). 0 = no limit.
inline constexpr int kDefaultMaxAstDepth = 1000;
inline constexpr const char* kMaxAstDepthOption = "--max-ast-depth";

// Syntax tree nodes (named, anonymous, ERROR and MISSING), checked right after tree-sitter has parsed and
// before the tree is copied out of it: every later stage (the tree's own copy, the parse JSON, AsC-Eval, the
// views) grows with the node count. 5 MB of Python is ~900,000 nodes (parse: 10 s of CPU and 1.3 GB);
// 200,000 nodes is a source file of about 1 MB, some 25x what the default text limit lets a model score.
// 0 = no limit.
inline constexpr std::size_t kDefaultMaxAstNodes = 200'000;
inline constexpr const char* kMaxAstNodesOption = "--max-ast-nodes";

// Any file read whole (a text, a scores or session file, a corpus file, a study or categories file): 512 MiB, far
// above any of them, so that a file without end (/dev/zero, an endless pipe) fails naming it instead of exhausting
// memory (issue 54: `eval --text-file /dev/zero` grew to 4 GB, `batch --corpus /dev/zero` to 8.3 GB). A larger corpus
// goes in a folder of files or in shards.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t(512) << 20;

// AST views: up to this many shown nodes Graphviz dot lays the tree out; beyond it a linear-time layered
// tree layout (layout.h) draws the same picture style in well under a second.
inline constexpr std::size_t kDefaultMaxGraphvizNodes = 1500;

// The "it parses cleanly as <language>" hint after syntax errors parses the text with every other grammar;
// tree-sitter's error recovery makes that minutes on megabytes of text (5 MB of Python as C++: > 60 s).
// Longer texts get no hint.
inline constexpr std::size_t kMaxCleanParseHintBytes = 64 * 1024;

// "8,192 bytes" / "5.3 MB (5,567,398 bytes)".
std::string describeBytes(std::size_t bytes);
// Throws InputError "<what> is <size>, over the limit of <limit> bytes (<option> N raises it, 0 = no
// limit)" when limit > 0 and bytes > limit.
void checkTextSize(std::size_t bytes, std::size_t limit, const std::string& what = "the text");
// Throws InputError when maxDepth > 0 and levels > maxDepth.
void checkAstDepth(int levels, int maxDepth);
// Throws InputError "the syntax tree has <n> nodes, over the limit of <limit> nodes (--max-ast-nodes N raises
// it, 0 = no limit)" when maxNodes > 0 and nodes > maxNodes.
void checkAstNodes(std::size_t nodes, std::size_t maxNodes);

// `message` without the advice " (<option> N raises it, 0 = no limit)" that the checks above add, for a front
// end that has no such option (the GUI has no --max-ast-depth or --max-ast-nodes): the size and the limit stay.
std::string withoutOptionAdvice(const std::string& message, const std::string& option);

} // namespace ascviz::limits
