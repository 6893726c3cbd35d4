// figure (docs/cli.md, docs/figures.md): paper figures from results databases as SVG or PDF — categories,
// distribution, treemap, heatmap, likert. Torch-free (ascviz_cli_results).
#include "answers.h"
#include "commands.h"
#include "figure_args.h"
#include "output.h"

#include "ascviz/analysis/tables.h"
#include "ascviz/base/error.h"
#include "ascviz/figure/data.h"
#include "ascviz/figure/viewrender.h"
#include "ascviz/results/compare.h"
#include "ascviz/results/resultsdb.h"

#include <filesystem>
#include <iostream>

namespace ascviz::cli {
namespace fs = std::filesystem;

FigureStyle readFigureStyle(Args& args, bool* given)
{
    const auto mm = args.value("--width-mm");
    const auto pt = args.value("--width-pt");
    if (mm && pt)
        throw UsageError("--width-mm and --width-pt are exclusive");
    const auto font = args.value("--font-pt");
    const bool noTitle = args.flag("--no-title");
    const auto legend = args.value("--legend");
    if (given)
        *given = mm || pt || font || noTitle || legend;
    // The values are parsed and checked by core as render's are (figure/viewrender.h setViewOption: one number
    // parser, each width in its own unit), the message naming the command-line option.
    ViewRequest q;
    usageOf("", [&] {
        if (mm)
            setViewOption(q, "width_mm", *mm, "--width-mm");
        if (pt)
            setViewOption(q, "width_pt", *pt, "--width-pt");
        if (font)
            setViewOption(q, "font_pt", *font, "--font-pt");
        if (noTitle)
            setViewOption(q, "title", "false", "--no-title");
        if (legend)
            setViewOption(q, "legend", *legend, "--legend");
        q.style.validate();
    });
    return q.style;
}

namespace {

struct Runs {
    std::vector<ResultsDb> dbs;
    std::vector<CorpusStats> stats;
    RunComparison cmp;
    std::vector<FigureRun> runs() const
    {
        std::vector<FigureRun> out;
        for (std::size_t i = 0; i < stats.size(); ++i)
            out.push_back({cmp.labels[i], &stats[i], &dbs[i]});
        return out;
    }
};

// The results databases, their statistics (minimum count minN) and their unique labels; runs over different
// corpora are refused unless allowed.
Runs openRuns(const std::vector<std::string>& files, int64_t minN, bool allowDifferentCorpus)
{
    Runs r;
    for (const auto& f : files) {
        r.dbs.push_back(ResultsDb::open(f));
        r.stats.push_back(computeStats(r.dbs.back()));
        r.stats.back().minN = minN;
    }
    std::vector<ComparedRun> compared;
    for (std::size_t i = 0; i < r.stats.size(); ++i)
        compared.push_back({&r.stats[i], fs::path(files[i]).filename().string()});
    r.cmp = compareRuns(compared);
    if (r.cmp.differentCorpus && !allowDifferentCorpus)
        throw InputError("figure: " + r.cmp.warning + "; refused (--allow-different-corpus draws them anyway)");
    if (!r.cmp.warning.empty())
        std::cerr << "figure: warning: " << r.cmp.warning << '\n';
    return r;
}

} // namespace

int cmdFigure(Args& args)
{
    const auto kind = args.subcommand();
    if (!kind)
        throw UsageError("figure needs a kind: categories, distribution, treemap, heatmap or likert");
    std::vector<std::string> files;
    for (const auto& v : args.values("--db"))
        for (const auto& f : splitList(v))
            files.push_back(f);
    const auto svg = args.value("--svg");
    const auto pdf = args.value("--pdf");
    const FigureStyle style = readFigureStyle(args);
    const int minN = args.intValue("--min-n", static_cast<int>(kDefaultMinN));
    const bool allowDifferentCorpus = args.flag("--allow-different-corpus");
    const auto studyFile = args.value("--study");
    args.finish();
    if (svg.has_value() == pdf.has_value())
        throw UsageError("figure writes exactly one of --svg OUT or --pdf OUT");
    if (files.empty())
        throw UsageError("figure needs --db (a results database; for likert, a study's responses file)");
    if (minN < 0)
        throw UsageError("--min-n must be >= 0");
    Figure f;
    if (*kind == "likert") {
        if (files.size() != 1)
            throw UsageError("figure likert takes one --db (the study's responses file or its CSV export)");
        const Answers a = readAnswers(files.front(), studyFile);
        f = likertFigure(computeStudyReport(a.conditions, a.questions, a.rows), style);
    } else if (*kind == "categories" || *kind == "distribution" || *kind == "treemap" || *kind == "heatmap") {
        if (studyFile)
            throw UsageError("--study is for figure likert only");
        const Runs r = openRuns(files, minN, allowDifferentCorpus);
        const auto runs = r.runs();
        if (*kind == "categories") {
            f = categoryBarsFigure(categoryBarsData(runs, r.cmp.warning), style);
        } else if (*kind == "distribution") {
            f = distributionFigure(distributionData(runs, r.cmp.warning), style);
        } else if (*kind == "treemap") {
            if (runs.size() != 1)
                throw UsageError("figure treemap draws one run: give one --db");
            f = treemapFigure(treemapData(runs.front()), style);
        } else {
            std::vector<std::pair<std::string, const CorpusStats*>> sets;
            for (const auto& run : runs)
                sets.emplace_back(run.label, run.stats);
            const auto [rows, cols] = heatmapData(sets);
            HeatmapFigureOptions o; // cells over fewer than --min-n pooled values are marked
            o.minN = runs.front().stats->minN;
            f = heatmapFigure(rows, cols, style, o);
        }
    } else {
        throw UsageError("unknown figure kind '" + *kind + "' (categories, distribution, treemap, heatmap, likert)");
    }
    const fs::path out = svg ? fs::path(*svg) : fs::path(*pdf);
    writeFigure(f, out, pdf.has_value());
    std::cerr << "figure: wrote " << out.string() << " (" << fmt(f.widthPt / kPointsPerMm, "%.1f") << " x "
              << fmt(f.heightPt / kPointsPerMm, "%.1f") << " mm)\n";
    return 0;
}

} // namespace ascviz::cli
