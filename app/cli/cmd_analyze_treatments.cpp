// ascviz-cli analyze treatments (docs/cli.md, docs/galeras.md): the effect of each Galeras treatment against
// the control over a runs database. Torch-free (ascviz_cli_results).
#include "commands.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/galeras/effects.h"

#include <iostream>
#include <sstream>

namespace ascviz::cli {

std::vector<std::string> confoundersOption(Args& args)
{
    std::vector<std::string> out;
    if (const auto v = args.value("--confounders")) {
        std::stringstream ss(*v);
        std::string c;
        while (std::getline(ss, c, ','))
            if (!c.empty())
                out.push_back(c);
        if (out.empty())
            throw UsageError("--confounders needs a comma-separated list of names");
    }
    return out;
}

int analyzeTreatmentsCommand(Args& args, const std::optional<std::string>& out)
{
    const std::string db = args.require("--db");
    TreatmentAnalysisOptions opts;
    opts.outcome = args.valueOr("--outcome", opts.outcome);
    opts.confounders = confoundersOption(args);
    opts.refute.seed = args.uint64Value("--seed", opts.refute.seed);
    opts.refute.simulations = args.intValue("--simulations", opts.refute.simulations);
    const bool asJson = args.flag("--json");
    const auto latex = args.value("--latex");
    args.finish();
    if (opts.refute.simulations < 2)
        throw UsageError("--simulations must be >= 2");
    const TreatmentReport r = analyzeTreatments(GalerasDb::open(db), opts);
    if (latex) {
        writeText(treatmentsLatex(r), *latex);
        std::cerr << "analyze: wrote " << *latex << '\n';
    }
    if (asJson)
        writeJson(treatmentsToJson(r), out);
    else
        writeText(treatmentsText(r), out);
    return 0;
}

} // namespace ascviz::cli
