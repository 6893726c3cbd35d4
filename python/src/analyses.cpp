// The analyses this round added (analyze heads --from, analyze layers, analyze treatments) and render's figure
// options, run through the CLI's own command functions (app/cli) so that the JSON and the figure files are the
// CLI's byte for byte. A CLI usage error (a bad option value) is an ascviz.InputError here.
#include "binding.h"

#include "commands.h"

#include "ascviz/base/error.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace ascviz::python {

namespace {

// Runs `analyze ARGV... --json --out OUT` through the CLI's one analyze router, as ascviz-cli does.
void analyzeToFile(std::vector<std::string> argv, const std::string& out)
{
    if (argv.empty())
        throw InputError("analyze needs a subcommand");
    argv.insert(argv.end(), {"--json", "--out", out});
    try {
        cli::Args args(std::move(argv));
        (void)cli::cmdAnalyzeAll(args);
    } catch (const cli::UsageError& e) {
        throw InputError(e.what());
    }
}

} // namespace

void bindAnalyses(nb::module_& m)
{
    m.def(
        "analyze_to_file",
        [](const std::vector<std::string>& argv, const std::string& out) {
            nb::gil_scoped_release release;
            analyzeToFile(argv, out);
        },
        nb::arg("argv"), nb::arg("out"));
}

} // namespace ascviz::python
