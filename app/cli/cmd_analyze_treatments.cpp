// ascviz-cli analyze treatments (docs/cli.md, docs/galeras.md): the effect of each Galeras treatment against
// the control over a runs database. Torch-free (ascviz_cli_results).
#include "commands.h"
#include "figure_args.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/galeras/distributions.h"
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
    const auto outcomeArg = args.value("--outcome");
    opts.outcome = outcomeArg.value_or(opts.outcome);
    opts.confounders = confoundersOption(args);
    opts.refute.seed = args.uint64Value("--seed", opts.refute.seed);
    opts.refute.simulations = args.intValue("--simulations", opts.refute.simulations, 0, kMaxResamples);
    const bool asJson = args.flag("--json");
    const auto latex = args.value("--latex");
    const auto svg = args.value("--svg");
    const auto pdf = args.value("--pdf");
    bool styled = false;
    const FigureStyle style = readFigureStyle(args, &styled);
    args.finish();
    if (svg && pdf)
        throw UsageError("analyze treatments writes one of --svg OUT or --pdf OUT");
    if (styled && !svg && !pdf)
        throw UsageError(
            "--width-mm, --font-pt, --no-title and --legend style the figure: give --svg OUT or --pdf OUT");
    {
        // A database that is not known to be complete is analysed, with a warning: a run still going or killed
        // (fewer rows than planned), or a file without its `planned` setting (e.g. an interrupted merge of an
        // older build).
        const GalerasDb g = GalerasDb::open(db);
        const auto meta = g.meta();
        const std::size_t rows = g.doneKeys().size();
        const auto planned = meta.find("planned");
        if (planned == meta.end())
            std::cerr << "analyze: warning: " << db << " has no `planned` setting, so its " << rows
                      << " rows may be incomplete (an interrupted run or merge?)\n";
        else if (std::to_string(rows) != planned->second)
            std::cerr << "analyze: warning: " << db << " is incomplete: " << rows << " of " << planned->second
                      << " planned rows (finish it with galeras run --resume)\n";
    }
    if (svg || pdf) {
        // The outcomes' distributions per treatment: the asked --outcome, else all as small multiples.
        const OutcomeDistributions od = outcomeDistributions(GalerasDb::open(db), outcomeArg.value_or(""));
        DistributionData d;
        d.runs = od.treatments;
        d.rows = od.outcomes;
        d.values = od.values;
        d.title = od.outcomes.size() == 1 ? od.outcomes[0] + " by treatment" : "Outcomes by treatment";
        d.axisLabel = "outcome per completion";
        d.guides = false; // 0.5 / 0.6 are AsC-Eval's thresholds, not the outcomes'

        if (od.leftOut > 0)
            d.warning = std::to_string(od.leftOut) + " values left out (error or no value)";
        writeFigure(distributionFigure(d, style), svg ? *svg : *pdf, pdf.has_value());
        std::cerr << "analyze: wrote " << (svg ? *svg : *pdf) << '\n';
    }
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
