// Typed errors thrown by core. Facades (CLI, GUI workers) catch them and show what() to the user;
// nothing crosses a thread boundary as an exception.
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace ascviz {

// What the user can do about an error, named without any front end's words: core describes the situation
// in what(), and each front end phrases the remedy as its own flag or button (the CLI: "--resume",
// "another --db"; the GUI: "press Resume", "choose another results file"). Flags combine.
enum class Remedy : unsigned {
    None = 0,
    Resume = 1u << 0,    // continue the interrupted or partial work where it stopped
    NewOutput = 1u << 1, // write to another output file or folder instead
    // A figure's settings (a note on what a figure did to fit, or an error naming one of them):
    Orientation = 1u << 2, // choose the tree's orientation (top down, left to right)
    DepthLimit = 1u << 3,  // show fewer (or more) levels of the tree
    Subtree = 1u << 4,     // draw another node's subtree (or a subtree only)
};
constexpr Remedy operator|(Remedy a, Remedy b)
{
    return static_cast<Remedy>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool hasRemedy(Remedy set, Remedy r)
{
    return (static_cast<unsigned>(set) & static_cast<unsigned>(r)) != 0;
}

// Where an error was found, for callers that point at it (e.g. a file at an offset). what() already names the
// place in words; this is the same information, structured.
struct ErrorContext {
    ErrorContext() = default;
    explicit ErrorContext(std::string file, std::optional<std::size_t> offset = {},
                          std::optional<std::size_t> lineNo = {})
        : path(std::move(file)), byteOffset(offset), line(lineNo)
    {
    }
    std::string path;                      // the file, folder or resource; empty when none
    std::optional<std::size_t> byteOffset; // UTF-8 byte offset into that file or text
    std::optional<std::size_t> line;       // 1-based line (corpus files: the JSON Lines / CSV line)
    Remedy remedy = Remedy::None;          // what the user can do (front ends phrase it)
};

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
    Error(const std::string& message, ErrorContext context) : std::runtime_error(message), m_context(std::move(context))
    {
    }
    const ErrorContext& context() const { return m_context; }

private:
    ErrorContext m_context;
};

// Bad user input: a file that is missing, not UTF-8, malformed JSON, an empty corpus ...
class InputError : public Error {
public:
    using Error::Error;
};

// A model folder that cannot be loaded: missing/corrupt file, wrong shape, unknown model_type ...
class ModelError : public Error {
public:
    using Error::Error;
};

// A tokenizer.json that uses something we do not implement, or is malformed.
class TokenizerError : public Error {
public:
    using Error::Error;
};

// The user (or a superseding job) cancelled a long operation.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

} // namespace ascviz
