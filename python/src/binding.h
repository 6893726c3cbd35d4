// The nanobind extension ascviz._ascviz: a thin binding over core (docs/python.md). Every number comes from
// core's own functions and every JSON from core's writers, which the CLI prints with too, so the Python API and
// `ascviz-cli` give identical results for the same input. Model work runs with the GIL released.
#pragma once
#include <nanobind/nanobind.h>

#include <memory>
#include <string>

namespace ascviz {
class LanguageModel;
}

namespace ascviz::python {

// The model a Python ascviz._ascviz.Model holds (a TypeError when `model` is none); `dir` receives its folder.
std::shared_ptr<const LanguageModel> sharedModel(nanobind::handle model, std::string* dir);

// core's error types as Python exceptions (ascviz.Error and its subclasses), with core's messages.
void bindErrors(nanobind::module_& m);
// load_model, Model (evaluate, generate, score, info) and EvalResult (json, render, render_figure).
void bindModel(nanobind::module_& m);
// batch over a corpus into a results database, and the torch-free readers: report, causal.
void bindCorpus(nanobind::module_& m);
// analyze perplexed / heads --from / layers / treatments through core's analyses and JSON writers (analyses.cpp).
void bindAnalyses(nanobind::module_& m);
// analyze experts of a mixture-of-experts model over a corpus or a results database (experts.cpp).
void bindExperts(nanobind::module_& m);

} // namespace ascviz::python
