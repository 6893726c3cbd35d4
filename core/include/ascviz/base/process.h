// Running another program: argv (argv[0] looked up on PATH, no shell), stdin from /dev/null, stdout and
// stderr captured whole (read together, so neither pipe can fill up and stall the child), then its exit
// status. How it ended is typed: a program that could not be started is told apart from one that exited or
// was killed by a signal, and a missing program from one that may not be run.
#pragma once
#include "ascviz/base/error.h"

#include <string>
#include <vector>

namespace ascviz {

enum class ProcessOutcome {
    Exited,       // ran and exited (exitCode is its status)
    Signalled,    // ran and was ended by a signal (signal; exitCode is 128 + signal, as a shell reports it)
    NotFound,     // not started: no such program (on PATH)
    NotPermitted, // not started: found but not executable (or a folder on the way is not searchable)
    StartFailed,  // not started: another reason (no argv, no pipes or processes left ...)
};

struct ProcessResult {
    ProcessOutcome outcome = ProcessOutcome::StartFailed;
    int exitCode = -1; // -1: could not be started
    int signal = 0;    // the ending signal (Signalled)
    std::string out;   // everything it wrote to stdout
    std::string err;   // everything it wrote to stderr; when not started: "PROGRAM: why"
    bool started() const { return outcome == ProcessOutcome::Exited || outcome == ProcessOutcome::Signalled; }
    bool succeeded() const { return outcome == ProcessOutcome::Exited && exitCode == 0; }
};

// Runs argv to its end and returns how it went; it throws nothing for the program's own failures (the
// outcome says them). Blocks the calling thread until the program has exited.
ProcessResult runProcess(const std::vector<std::string>& argv);

// A program that could not be started, or did not succeed, for callers that treat that as an error.
// ErrorContext::path is the program.
class ProcessError : public Error {
public:
    ProcessError(const std::string& message, const std::string& program, ProcessOutcome outcome)
        : Error(message, ErrorContext(program)), m_outcome(outcome)
    {
    }
    ProcessOutcome outcome() const { return m_outcome; }

private:
    ProcessOutcome m_outcome;
};

} // namespace ascviz
