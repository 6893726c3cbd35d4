// ascviz-cli analyze calibration (docs/method.md §17, issue 59): is the model right when it is sure — the
// calibration and discrimination of a per-token confidence over a results database, globally and by category.
// Parses and prints only; the analysis is the calibration room's. Torch-free (ascviz_cli_results).
#include "commands.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/calibration/calibration.h"

namespace ascviz::cli {

int cmdAnalyzeCalibration(Args& args)
{
    const std::string db = args.require("--db");
    calibration::Options o;
    if (const auto c = args.value("--confidence"))
        o.confidence = usageOf("--confidence", [&] { return calibration::parseConfidence(*c); });
    if (const auto by = args.value("--by")) {
        if (*by != "global" && *by != "category")
            throw UsageError("--by takes global or category, not '" + *by + "'");
        o.byCategory = *by == "category";
    }
    if (const auto label = args.value("--label"); label && *label != "teacher-forced")
        throw UsageError("--label: only teacher-forced labels are implemented (generation labels: issue 59)");
    o.bins = args.intValue("--bins", o.bins, 1, 1000);
    o.resamples = args.intValue("--resamples", o.resamples, 1, kMaxResamples);
    o.seed = args.uint64Value("--seed", o.seed);
    if (const auto r = args.value("--resample")) {
        if (*r != "snippets" && *r != "tokens")
            throw UsageError("--resample takes snippets or tokens, not '" + *r + "'");
        o.resampleTokens = *r == "tokens";
    }
    const bool asJson = args.flag("--json");
    const auto out = args.value("--out");
    args.finish();
    const calibration::Report r = calibration::analyze(ResultsDb::open(db), o);
    if (asJson)
        writeJson(calibration::reportJson(r), out);
    else
        writeText(calibration::reportText(r), out);
    return 0;
}

} // namespace ascviz::cli
