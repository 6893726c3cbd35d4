// load_model, Model and EvalResult: the model stays loaded in the Python object; evaluate/generate/score run
// with the GIL released through core's functions (eval/evaluate.h) and print core's JSON, which the CLI prints too
// (eval/evaljson.h, model/modeljson.h).
#include "binding.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/figure/viewrender.h"
#include "ascviz/model/model.h"
#include "ascviz/model/modeljson.h"
#include "ascviz/share/share.h"
#include "ascviz/syntax/language.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace ascviz::python {

namespace {

// A load option named by a string (Python's checks come first; this is the backstop with core's table).
template <class E> E loadOptionArg(const std::string& name)
{
    if (const auto v = parseLoadOption<E>(name))
        return *v;
    throw nb::value_error((std::string(LoadOptionTable<E>::key) + " must be " + loadOptionChoices<E>()).c_str());
}

// A loaded model, shared with the batches that run over it.
struct Model {
    std::shared_ptr<const LanguageModel> model;
    std::string dir; // the resolved folder (the batch's run row names it, as the CLI's does)
};

// An evaluated text: what `ascviz-cli eval` prints, and what `render` draws.
struct Result {
    EvalResult eval;
    std::string language;
    std::string dtype;
    std::string fingerprint; // the model's (ModelInfo::fingerprint): the shared page's header names it
};

// The shared page's document (docs/share.md): eval's document, the text, and "share".
nlohmann::json shareDocument(const Result& r, const std::string& source)
{
    nlohmann::json doc = evalDocumentJson(r.eval, r.language, r.dtype);
    doc["text"] = r.eval.scored.text;
    doc["share"] = shareSourceJson(r.fingerprint, source);
    return doc;
}

// The registry id of a language given by id, name or alias ("" = the registry's default language).
std::string languageId(const std::string& given)
{
    const auto& reg = LanguageRegistry::instance();
    if (given.empty())
        return reg.defaultLanguage().id;
    if (const LanguageInfo* l = reg.lookup(given))
        return l->id;
    std::string list;
    for (const auto& id : reg.ids())
        list += (list.empty() ? "" : ", ") + id;
    throw InputError("language must be one of: " + list + " (got '" + given + "')");
}

struct Limits {
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes;
    int maxAstDepth = limits::kDefaultMaxAstDepth;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
};

EvalRequest request(const std::string& language, const std::string& aggregation, const Limits& lim)
{
    EvalRequest req;
    req.language = language;
    req.aggregation = parseAggregation(aggregation);
    req.maxTextBytes = lim.maxTextBytes;
    req.maxAstDepth = lim.maxAstDepth;
    req.maxAstNodes = lim.maxAstNodes;
    req.promptName = "prompt_bytes";
    return req;
}

// As `ascviz-cli eval --model`, through core's one entry point (eval/evaluate.h): the text's size and its tree are
// checked before the model runs, then the text is scored, split at the prompt and evaluated.
Result evaluateText(const Model& m, const std::string& code, const std::string& languageArg,
                    std::optional<std::size_t> promptBytes, const std::string& aggregation, const Limits& lim)
{
    EvalRequest req = request(languageId(languageArg), aggregation, lim);
    req.promptBytes = promptBytes;
    EvalResult r = ascviz::evaluateText(
        code, req, [&](const std::string& text, const SyntaxTree&) { return m.model->score(text); });
    return Result{std::move(r), req.language, m.model->info().dtype, m.model->info().fingerprint};
}

struct Generated {
    Result result;
    std::string generationJson; // `ascviz-cli generate`'s JSON
};

Generated generateText(const Model& m, const std::string& prompt, const GenerationOptions& g,
                       const std::string& languageArg, const std::string& aggregation, const Limits& lim)
{
    const EvalRequest req = request(languageId(languageArg), aggregation, lim);
    limits::checkTextSize(prompt.size(), lim.maxTextBytes, "the prompt");
    ScoredText s = m.model->generate(prompt, g);
    const std::string json = generationJson(s, m.model->info()).dump();
    EvalResult r = evaluateScores(std::move(s), req);
    return Generated{Result{std::move(r), req.language, m.model->info().dtype, m.model->info().fingerprint}, json};
}

// `ascviz-cli score`'s JSON for each text, scored `batchSize` texts at a time (1: one by one, as the CLI).
std::vector<std::string> scoreTexts(const Model& m, const std::vector<std::string>& texts, int batchSize,
                                    std::size_t maxTextBytes)
{
    if (batchSize < 1)
        throw InputError("batch_size must be >= 1, got " + std::to_string(batchSize));
    for (std::size_t i = 0; i < texts.size(); ++i)
        limits::checkTextSize(texts[i].size(), maxTextBytes, "text " + std::to_string(i));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < texts.size(); i += static_cast<std::size_t>(batchSize)) {
        const std::size_t n = std::min(texts.size() - i, static_cast<std::size_t>(batchSize));
        std::vector<ScoredText> scored;
        if (n == 1)
            scored.push_back(m.model->score(texts[i]));
        else
            scored = m.model->scoreBatch(std::vector<std::string>(texts.begin() + static_cast<std::ptrdiff_t>(i),
                                                                  texts.begin() + static_cast<std::ptrdiff_t>(i + n)));
        for (const auto& s : scored)
            out.push_back(scoreJson(s, m.model->info()).dump());
    }
    return out;
}

// Result.render: the view drawn by core's drawView (figure/viewrender.h), the one drawer of `ascviz-cli render`
// and the GUI's exports; `options` are render's figure options as python/ascviz/_model.py spells them
// (["--width-mm", "85", "--no-title", ...]). Returns the SVG text or the PDF.
std::string drawViewBytes(const Result& r, const std::string& view, const std::vector<std::string>& options,
                          std::size_t maxGraphvizNodes, bool pdf)
{
    ViewRequest q;
    q.view = parseViewKind(view);
    q.pdf = pdf;
    q.options.layout.maxGraphvizNodes = maxGraphvizNodes;
    for (std::size_t i = 0; i < options.size(); ++i) {
        const std::string& option = options[i];
        if (option.rfind("--", 0) != 0)
            throw InputError("a figure option starts with two dashes, not '" + option + "'");
        std::string name = option.substr(2);
        std::replace(name.begin(), name.end(), '-', '_');
        if (name == "no_title") {
            setViewOption(q, "title", "false", option);
            continue;
        }
        if (i + 1 >= options.size())
            throw InputError(option + " needs a value");
        setViewOption(q, name, options[++i], option);
    }
    return drawView(r.eval, q).bytes;
}

} // namespace

// The shared model of a Model object, for batch (corpus.cpp).
std::shared_ptr<const LanguageModel> sharedModel(nb::handle model, std::string* dir)
{
    const Model& m = nb::cast<const Model&>(model);
    if (dir)
        *dir = m.dir;
    return m.model;
}

void bindModel(nb::module_& m)
{
    nb::class_<Result>(m, "EvalResult")
        .def("json", [](const Result& r) { return evalDocumentJson(r.eval, r.language, r.dtype).dump(); })
        .def(
            "html",
            [](const Result& r, const std::string& source) {
                return shareHtml(shareDocument(r, source), SharePage::Snippet, "AsC-Viz: " + source);
            },
            nb::arg("source"))
        .def(
            "write_html",
            [](const Result& r, const std::string& path, const std::string& source) {
                writeShareHtml(path, shareDocument(r, source), SharePage::Snippet, "AsC-Viz: " + source);
            },
            nb::arg("path"), nb::arg("source"))
        .def(
            "render",
            [](const Result& r, const std::string& view, const std::vector<std::string>& options,
               std::size_t maxGraphvizNodes, bool pdf) {
                std::string bytes;
                {
                    nb::gil_scoped_release release;
                    bytes = drawViewBytes(r, view, options, maxGraphvizNodes, pdf);
                }
                return nb::bytes(bytes.data(), bytes.size());
            },
            nb::arg("view"), nb::arg("options"), nb::arg("max_graphviz_nodes"), nb::arg("pdf"));

    nb::class_<Model>(m, "Model")
        .def("info", [](const Model& self) { return modelInfoJson(self.model->info()).dump(); })
        .def(
            "evaluate",
            [](const Model& self, const std::string& code, const std::string& language,
               std::optional<std::size_t> promptBytes, const std::string& aggregation, std::size_t maxTextBytes,
               int maxAstDepth, std::size_t maxAstNodes) {
                nb::gil_scoped_release release;
                return evaluateText(self, code, language, promptBytes, aggregation,
                                    Limits{maxTextBytes, maxAstDepth, maxAstNodes});
            },
            nb::arg("code"), nb::arg("language"), nb::arg("prompt_bytes").none(), nb::arg("aggregation"),
            nb::arg("max_text_bytes"), nb::arg("max_ast_depth"), nb::arg("max_ast_nodes"))
        .def(
            "generate",
            [](const Model& self, const std::string& prompt, int maxNewTokens, bool greedy, double temperature,
               double topP, int topK, uint64_t seed, bool stopAtEos, const std::string& language,
               const std::string& aggregation, std::size_t maxTextBytes, int maxAstDepth, std::size_t maxAstNodes) {
                GenerationOptions g;
                g.maxNewTokens = maxNewTokens;
                g.greedy = greedy;
                g.temperature = temperature;
                g.topP = topP;
                g.topK = topK;
                g.seed = seed;
                g.stopAtEos = stopAtEos;
                nb::gil_scoped_release release;
                Generated out = generateText(self, prompt, g, language, aggregation,
                                             Limits{maxTextBytes, maxAstDepth, maxAstNodes});
                return std::make_pair(std::move(out.result), std::move(out.generationJson));
            },
            nb::arg("prompt"), nb::arg("max_new_tokens"), nb::arg("greedy"), nb::arg("temperature"), nb::arg("top_p"),
            nb::arg("top_k"), nb::arg("seed"), nb::arg("stop_at_eos"), nb::arg("language"), nb::arg("aggregation"),
            nb::arg("max_text_bytes"), nb::arg("max_ast_depth"), nb::arg("max_ast_nodes"))
        .def(
            "score",
            [](const Model& self, const std::vector<std::string>& texts, int batchSize, std::size_t maxTextBytes) {
                nb::gil_scoped_release release;
                return scoreTexts(self, texts, batchSize, maxTextBytes);
            },
            nb::arg("texts"), nb::arg("batch_size"), nb::arg("max_text_bytes"));

    // core's one name table of the load options (model/loadoptions.h): ascviz.DEVICES, DTYPES and WEIGHTS.
    m.def("load_option_names", [] {
        return std::map<std::string, std::vector<std::string>>{{"device", loadOptionNames<Device>()},
                                                               {"dtype", loadOptionNames<Dtype>()},
                                                               {"weights", loadOptionNames<Weights>()}};
    });
    m.def(
        "load_model",
        [](const std::string& name, const std::string& device, const std::string& dtype, int threads,
           const std::string& weights) {
            LoadOptions o;
            o.device = loadOptionArg<Device>(device);
            o.dtype = loadOptionArg<Dtype>(dtype);
            o.threads = threads;
            o.weights = loadOptionArg<Weights>(weights);
            nb::gil_scoped_release release;
            const auto dir = resolveModelDir(name);
            std::shared_ptr<const LanguageModel> model = LanguageModel::load(dir, o);
            return Model{std::move(model), dir.string()};
        },
        nb::arg("name"), nb::arg("device"), nb::arg("dtype"), nb::arg("threads"), nb::arg("weights"));
    m.def(
        "parse_json",
        [](const std::string& code, const std::string& languageArg, std::size_t maxAstNodes) {
            nb::gil_scoped_release release;
            return syntaxTreeJson(SyntaxTree::parse(languageId(languageArg), code, maxAstNodes)).dump();
        },
        nb::arg("code"), nb::arg("language"), nb::arg("max_ast_nodes"));
    m.def("default_language", [] { return LanguageRegistry::instance().defaultLanguage().id; });
    m.def("language_id", &languageId, nb::arg("name"));
    m.def("resource_dir", [] { return resourceDir().string(); });
}

} // namespace ascviz::python
