// Typed errors thrown by core. Facades (CLI, GUI workers) catch them and show what() to the user;
// nothing crosses a thread boundary as an exception.
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace ascviz {

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
