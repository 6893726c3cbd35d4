// ascviz-cli analyze calibration (docs/method.md §17, issue 59): is the model right when it is sure — the
// calibration and discrimination of a per-token confidence over a results database, globally and by category.
// Parses and prints only; the analysis is the calibration room's. Torch-free (ascviz_cli_results).
#include "commands.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/calibration/calibration.h"
#include "ascviz/figure/reliability.h"
#include "figure_args.h"

#include <iostream>
#include <utility>

namespace ascviz::cli {

namespace {

// The report's groups as the figure room's plain data (equal-width bins; p1 only).
ReliabilityFigureData reliabilityData(const calibration::Report& r, const ResultsDb& db)
{
    ReliabilityFigureData d;
    d.confidence = calibration::toString(r.confidence);
    d.model = db.runInfo().modelName;
    for (const auto& g : r.groups) {
        ReliabilityFigureData::Panel p;
        p.group = g.group;
        p.n = g.n;
        p.ece = g.ece;
        for (const auto& b : g.bins)
            p.bins.push_back({b.n, b.confidence, b.accuracy});
        if (p.bins.empty()) // a group without tokens: B empty bins
            p.bins.resize(static_cast<std::size_t>(r.bins));
        d.panels.push_back(std::move(p));
    }
    return d;
}

} // namespace

int cmdAnalyzeCalibration(Args& args)
{
    const std::string db = args.require("--db");
    calibration::Options o;
    if (const auto c = args.value("--confidence"))
        o.confidence = usageOf("--confidence", [&] { return calibration::parseConfidence(*c); });
    if (const auto by = args.value("--by"))
        o.by = usageOf("--by", [&] { return calibration::parseBy(*by); });
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
    // The reliability diagrams (figure room; width, font, title, legend) and the LaTeX table.
    const auto svg = args.value("--svg");
    const auto pdf = args.value("--pdf");
    const auto latex = args.value("--latex");
    bool styled = false;
    const FigureStyle style = readFigureStyle(args, &styled);
    if (styled && !svg && !pdf)
        throw UsageError("--width-mm, --font-pt, --no-title and --legend are for the reliability diagrams: give --svg "
                         "OUT or --pdf OUT");
    if ((svg || pdf) && o.confidence != calibration::Confidence::P1)
        throw UsageError("the reliability diagrams need a probability of being right: --confidence p1 (the default), "
                         "not " +
                         std::string(calibration::toString(o.confidence)));
    args.finish();
    const ResultsDb rdb = ResultsDb::open(db);
    const calibration::Report r = calibration::analyze(rdb, o);
    for (const auto& [file, asPdf] : {std::pair{svg, false}, std::pair{pdf, true}}) {
        if (!file)
            continue;
        writeFigure(reliabilityFigure(reliabilityData(r, rdb), style), *file, asPdf);
        std::cerr << "analyze calibration: wrote " << *file << '\n';
    }
    if (latex) {
        writeText(calibration::reportLatex(r), *latex);
        std::cerr << "analyze calibration: wrote " << *latex << '\n';
    }
    if (asJson)
        writeJson(calibration::reportJson(r), out);
    else if (!svg && !pdf && !latex)
        writeText(calibration::reportText(r), out);
    return 0;
}

} // namespace ascviz::cli
