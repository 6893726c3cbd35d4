// Typed errors thrown by core. Facades (CLI, GUI workers) catch them and show what() to the user;
// nothing crosses a thread boundary as an exception.
#pragma once
#include <stdexcept>
#include <string>

namespace ascviz {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
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
