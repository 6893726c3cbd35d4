// One function per ascviz-cli command (docs/cli.md). Each reads its options from Args, calls
// args.finish(), and returns the exit status.
#pragma once
#include "args.h"

#include <optional>
#include <string>
#include <vector>

namespace ascviz::cli {

int cmdVersion(Args& args);
int cmdModels(Args& args);   // cmd_version.cpp: the supported model families
int cmdTokenize(Args& args); // cmd_tokenize.cpp
int cmdScore(Args& args);    // cmd_model.cpp
int cmdGenerate(Args& args); // cmd_model.cpp
int cmdParse(Args& args);
int cmdNodeTypes(Args& args);      // cmd_syntax.cpp
int cmdExtract(Args& args);        // cmd_extract.cpp
int cmdEval(Args& args);           // cmd_syntax.cpp
int cmdExportHtml(Args& args);     // cmd_share.cpp: one self-contained interactive HTML page (docs/share.md)
int cmdRender(Args& args);         // cmd_syntax.cpp
int cmdBatch(Args& args);          // cmd_corpus.cpp
int cmdReport(Args& args);         // cmd_report.cpp (torch-free)
int cmdMerge(Args& args);          // cmd_cluster.cpp
int cmdSlurm(Args& args);          // cmd_cluster.cpp
int cmdStudy(Args& args);          // cmd_study.cpp (init|render|report|export)
int cmdRelations(Args& args);      // cmd_heads.cpp
int cmdAnalyzeHeads(Args& args);   // cmd_heads.cpp (analyze heads: needs the model)
int cmdAnalyzeExperts(Args& args); // cmd_experts.cpp (analyze experts: needs the model, or --db alone)
int cmdFigure(Args& args);         // cmd_figure.cpp (torch-free): categories|distribution|treemap|heatmap|likert
int cmdGaleras(Args& args);        // cmd_galeras.cpp (run|testbed|merge)
// cmd_analyze_treatments.cpp (torch-free): `analyze treatments`, and --confounders a,b,c as a list
int analyzeTreatmentsCommand(Args& args, const std::optional<std::string>& out);
std::vector<std::string> confoundersOption(Args& args);
int cmdAttribute(Args& args); // cmd_inside.cpp: attribution by AST node
int cmdProbe(Args& args);     // cmd_probe.cpp: ΔAsC-Eval per category under meaning-preserving rewrites
int cmdAblate(Args& args);    // cmd_ablate.cpp: ΔAsC-Eval per category under head ablation

// analyze: one router (cmd_analyze_router.cpp) over the table of its subcommands, from which `ascviz-cli --help`
// and `ascviz-cli analyze --help` are generated. Each subcommand gets the arguments after its name.
struct AnalyzeSubcommand {
    const char* name;
    const char* synopsis; // its options in `ascviz-cli --help` (a '\n' continues on the next line)
    const char* help;     // `ascviz-cli analyze --help`: what it does, then its options, one per line
    bool modelOptions;    // it loads a model (the model options apply)
    int (*run)(Args& args);
};
const std::vector<AnalyzeSubcommand>& analyzeSubcommands();
std::string analyzeSubcommandList(); // "causal, perplexed, ... or layers"
std::string analyzeUsageLines();     // the analyze lines of `ascviz-cli --help`
std::string analyzeHelp();           // `ascviz-cli analyze --help` (without the model options)
int cmdAnalyzeAll(Args& args);       // `analyze SUB ...`: UsageError naming every SUB for a missing or unknown one
// cmd_analyze.cpp (torch-free; treatments: cmd_analyze_treatments.cpp), each routed by the analyze table
int cmdAnalyzeCausal(Args& args);
int cmdAnalyzePerplexed(Args& args);
int cmdAnalyzeHeatmap(Args& args);
int cmdAnalyzeCalibration(Args& args); // cmd_analyze_calibration.cpp (method.md 17)
int cmdAnalyzeLayers(Args& args);      // cmd_inside.cpp: the layer lens over a corpus

} // namespace ascviz::cli
