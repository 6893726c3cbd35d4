// Minimal command-line option parsing for ascviz-cli: every option a command reads is consumed, and
// finish() reports what was left over, so a typo is a usage error (exit 2), never silently ignored.
#pragma once
#include "ascviz/base/error.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ascviz::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs `parse` (core parsing an option's value) and turns its InputError into a UsageError (exit 2), the message
// prefixed with "<option>: " (unprefixed when `option` is empty: core's message names it already): the one place
// the CLI maps a value core refused to a usage error.
template <class F> auto usageOf(const std::string& option, F&& parse) -> decltype(parse())
{
    try {
        return parse();
    } catch (const InputError& e) {
        throw UsageError(option.empty() ? std::string(e.what()) : option + ": " + e.what());
    }
}

// The most resamples or simulations a bootstrap or refutation option takes: a run of more would take hours
// and grow its memory with the count (--resamples, --simulations).
inline constexpr int kMaxResamples = 100'000;
// ablate --control random --draws: each draw is a forward pass per snippet, as many as a resampling's bound
// would be hours (issue 54: 1,000,000,000 draws were accepted).
inline constexpr int kMaxDraws = 1'000;

class Args {
public:
    explicit Args(std::vector<std::string> tokens);

    // "--name VALUE" or "--name=VALUE"; nullopt when absent.
    std::optional<std::string> value(const std::string& name);
    std::string require(const std::string& name);
    std::string valueOr(const std::string& name, const std::string& fallback);
    int intValue(const std::string& name, int fallback);
    // An integer within [min, max]; UsageError "<name> must be between <min> and <max>, got <v>" otherwise.
    int intValue(const std::string& name, int fallback, int min, int max);
    double doubleValue(const std::string& name, double fallback);
    uint64_t uint64Value(const std::string& name, uint64_t fallback); // a non-negative integer (seeds)
    bool flag(const std::string& name);                               // "--name" with no value
    // The first argument when it is not an option (a subcommand: `analyze causal`); consumed. nullopt otherwise.
    std::optional<std::string> subcommand();
    // Every "--name VALUE" / "--name=VALUE", in order (a repeatable option). With dashValues, a VALUE that
    // starts with "--" is taken too (`--sbatch-extra --account=x`).
    std::vector<std::string> values(const std::string& name, bool dashValues = false);
    // The arguments no option consumed that are not options themselves (file lists: `merge A.db B.db`);
    // consumed. Call after reading every option.
    std::vector<std::string> positionals();
    // Throws UsageError naming the first argument no option consumed.
    void finish() const;

private:
    std::optional<std::string> take(const std::string& name, bool dashValues); // the first unused match
    std::vector<std::string> m_tokens;
    std::vector<bool> m_used;
    std::vector<std::string> m_taken; // the option names read once (a second occurrence is "given twice")
};

} // namespace ascviz::cli
