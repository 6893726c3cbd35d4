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
int cmdNodeTypes(Args& args);    // cmd_syntax.cpp
int cmdExtract(Args& args);      // cmd_extract.cpp
int cmdAnalyze(Args& args);      // cmd_analyze.cpp (torch-free)    // cmd_syntax.cpp
int cmdEval(Args& args);         // cmd_syntax.cpp
int cmdRender(Args& args);       // cmd_syntax.cpp
int cmdBatch(Args& args);        // cmd_corpus.cpp
int cmdReport(Args& args);       // cmd_report.cpp (torch-free)
int cmdMerge(Args& args);        // cmd_cluster.cpp
int cmdSlurm(Args& args);        // cmd_cluster.cpp
int cmdStudy(Args& args);        // cmd_study.cpp (init|render|report|export)
int cmdRelations(Args& args);    // cmd_heads.cpp
int cmdAnalyzeHeads(Args& args); // cmd_heads.cpp (analyze heads: needs the model)
int cmdFigure(Args& args);       // cmd_figure.cpp (torch-free): categories|distribution|treemap|heatmap|likert
int cmdGaleras(Args& args);      // cmd_galeras.cpp (run|testbed|merge)
// cmd_analyze_treatments.cpp (torch-free): `analyze treatments`, and --confounders a,b,c as a list
int analyzeTreatmentsCommand(Args& args, const std::optional<std::string>& out);
std::vector<std::string> confoundersOption(Args& args);
int cmdAttribute(Args& args);  // cmd_inside.cpp: attribution by AST node
int cmdAblate(Args& args);     // cmd_ablate.cpp: ΔAsC-Eval per category under head ablation
int cmdAnalyzeAll(Args& args); // cmd_inside.cpp: analyze layers, else cmdAnalyze

} // namespace ascviz::cli
