// parse, eval, render (docs/cli.md): tree-sitter AST, AsC-Eval of a scored text, and the three views as SVG.
#include "commands.h"
#include "common.h"
#include "evaldoc.h"

#include "ascviz/attention/topkeys.h"
#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/tokenspans.h"
#include "ascviz/base/utf8.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/experts/experts.h"
#include "ascviz/lens/layers.h"
#include "ascviz/model/ablation.h"
#include "ascviz/model/lens.h"
#include "ascviz/model/observer.h"
#include "ascviz/render/svg.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"
#include "render_figure.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ascviz::cli {

using nlohmann::json;

namespace {

// A `score`/`generate` JSON ({"model", "tokens": [{"id","start","end","ntp"[,"generated"]}][, "text"]}) as a
// ScoredText over `text` (or over its own "text" when no text file was given).
ScoredText scoredFromJson(const std::string& file, const std::optional<std::string>& text)
{
    const std::string raw = readUtf8File(file);
    json j;
    try {
        j = json::parse(raw);
    } catch (const json::parse_error& e) {
        throw InputError(file + " is not valid JSON: " + e.what());
    }
    const std::string where = "--scores " + file;
    if (!j.is_object() || !j.contains("tokens") || !j["tokens"].is_array())
        throw InputError(where + ": expected the JSON of `ascviz-cli score` ({\"model\", \"tokens\": [...]})");
    ScoredText s;
    if (text) {
        s.text = *text;
        if (j.contains("text") && j["text"].is_string() && j["text"].get<std::string>() != *text)
            throw InputError(where + ": its \"text\" differs from --text-file");
    } else if (j.contains("text") && j["text"].is_string()) {
        s.text = j["text"].get<std::string>();
    } else {
        throw UsageError("--text-file is required (the --scores JSON has no \"text\")");
    }
    s.model = j.value("model", std::string("scores"));
    try {
        for (const auto& t : j["tokens"]) {
            ScoredToken tok;
            tok.id = t.at("id").get<int32_t>();
            tok.start = t.at("start").get<std::size_t>();
            tok.end = t.at("end").get<std::size_t>();
            if (t.contains("ntp") && !t["ntp"].is_null()) {
                tok.ntp = t["ntp"].get<double>();
                if (!isValidNtp(*tok.ntp))
                    throw InputError(where + ": token " + std::to_string(s.tokens.size()) + " has ntp outside [0, 1]");
            }
            tok.generated = t.value("generated", false);
            // The uncertainty `score` and `generate` write (issue 59): all five or none.
            if (t.contains("p1") && !t["p1"].is_null()) {
                TokenUncertainty u;
                u.entropy = t.at("entropy").get<double>();
                u.topkEntropy = t.at("topk_entropy").get<double>();
                u.p1 = t.at("p1").get<double>();
                u.margin = t.at("margin").get<double>();
                u.rank = t.at("rank").get<int64_t>();
                if (!(u.entropy >= 0.0) || !(u.topkEntropy >= 0.0) || !isValidNtp(u.p1) || !isValidNtp(u.margin) ||
                    u.rank < 1)
                    throw InputError(where + ": token " + std::to_string(s.tokens.size()) +
                                     " has an uncertainty outside its range (entropies >= 0, p1 and margin in [0, 1], "
                                     "rank >= 1)");
                tok.uncertainty = u;
            }
            s.tokens.push_back(std::move(tok));
        }
    } catch (const json::exception& e) {
        throw InputError(where + ": token " + std::to_string(s.tokens.size()) + " is malformed: " + e.what());
    }
    if (const auto problem = tokenSpanProblem(s))
        throw InputError(where + ": " + *problem);
    s.promptBytes = s.text.size();
    for (const auto& t : s.tokens)
        if (t.generated)
            s.promptBytes = std::min(s.promptBytes, t.start);
    s.promptTokens = static_cast<std::size_t>(
        std::count_if(s.tokens.begin(), s.tokens.end(), [](const ScoredToken& t) { return !t.generated; }));
    return s;
}

struct EvalInputs {
    std::optional<std::string> textFile;
    std::optional<std::string> scoresFile;
    std::optional<std::string> modelDir;
    LoadOptions load;
    std::optional<long long> promptBytes;
    Aggregation aggregation = Aggregation::Median;
    AggregationScope scope = AggregationScope::Tokens;
    std::string language;
    std::optional<std::string> categoriesFile;
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes;
    int maxAstDepth = limits::kDefaultMaxAstDepth;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
    // eval --ablate-heads / --ablation (method.md §14.1): the heads to ablate (none: the clean model) and how.
    std::vector<AttentionHead> ablateHeads;
    AblationMode ablation = AblationMode::Zero;
};

// eval --heads (docs/share.md "attention"): each layer's attention reduced to the heaviest keys per query as it
// arrives.
class AttentionToTopKeys : public IntermediateObserver {
public:
    explicit AttentionToTopKeys(AttentionTopKeys& t) : m_top(t) {}
    bool wants(std::string_view name, int) const override { return name == intermediate::kAttention; }
    void observe(const Intermediate& v) override { m_top.observeAttention(v.layer, v.position, v.shape, v.data); }

private:
    AttentionTopKeys& m_top;
};

// The heads view keeps this many keys per query (docs/share.md: the size of the page).
constexpr int kHeadsKeep = 3;

// Reads the options shared by eval and render (the caller reads its own, then calls args.finish()).
EvalInputs readEvalOptions(Args& args)
{
    EvalInputs in;
    in.scoresFile = args.value("--scores");
    in.textFile = args.value("--text-file");
    if (!in.scoresFile && !in.textFile)
        throw UsageError("missing required option --text-file");
    if (in.scoresFile) {
        if (args.value("--model"))
            throw UsageError("give either --model or --scores, not both");
    } else {
        in.modelDir = args.valueOr("--model", "default");
        in.load = loadOptions(args);
    }
    if (auto pb = args.value("--prompt-bytes")) {
        try {
            std::size_t pos = 0;
            in.promptBytes = std::stoll(*pb, &pos);
            if (pos != pb->size() || *in.promptBytes < 0)
                throw std::invalid_argument("bad");
        } catch (const std::exception&) {
            throw UsageError("--prompt-bytes expects a byte count >= 0, got '" + *pb + "'");
        }
    }
    in.aggregation = aggregationOption(args);
    try {
        in.scope = parseAggregationScope(args.valueOr("--aggregation-scope", "tokens"));
    } catch (const InputError&) {
        throw UsageError("--aggregation-scope must be tokens or children");
    }
    in.language = languageOption(args, in.textFile);
    in.categoriesFile = args.value("--categories");
    in.maxTextBytes = maxTextBytesOption(args);
    in.maxAstDepth = maxAstDepthOption(args);
    in.maxAstNodes = maxAstNodesOption(args);
    return in;
}

// `dtype` (when given) receives the compute dtype of the scores: the model's, or the scores file's "dtype".
// `lens` (when given) receives the layer lens, whose forward pass also gives the NtP (eval --layers).
// `experts` (when given) receives the router's choices per token (eval --experts; a dense model is refused).
// `heads` (when given) receives the heaviest keys per query of every head, from a pass of its own (eval --heads;
// the NtP are the other pass's, so --heads changes no number).
EvalResult runEval(const EvalInputs& in, std::string* dtype = nullptr, LayerLens* lens = nullptr,
                   std::vector<TokenExperts>* experts = nullptr, std::optional<AttentionTopKeys>* heads = nullptr)
{
    EvalRequest req;
    req.language = in.language;
    req.aggregation = in.aggregation;
    req.scope = in.scope;
    std::optional<CategoryMap> categories;
    if (in.categoriesFile)
        req.categories = &categories.emplace(CategoryMap::fromFile(*in.categoriesFile, in.language));
    if (in.promptBytes)
        req.promptBytes = static_cast<std::size_t>(*in.promptBytes);
    req.promptName = "--prompt-bytes";
    req.maxTextBytes = in.maxTextBytes;
    req.maxAstDepth = in.maxAstDepth;
    req.maxAstNodes = in.maxAstNodes;
    std::optional<std::string> text;
    if (in.textFile)
        text = readUtf8File(*in.textFile);
    if (in.scoresFile)
        return evaluateScores(scoredFromJson(*in.scoresFile, text), req);
    req.source = *in.textFile;
    // The model loads after the text's size and tree passed their limits (evaluateText calls the scorer last).
    return evaluateText(*text, req, [&](const std::string& code, const SyntaxTree&) -> ScoredText {
        auto model = LanguageModel::load(resolveModelDir(*in.modelDir), in.load);
        if (!in.ablateHeads.empty()) {
            usageOf("--ablate-heads", [&] { checkHeads(*model, in.ablateHeads); });
            const auto means = in.ablation == AblationMode::Mean ? meanHeadOutputs(*model, code, in.ablateHeads)
                                                                 : std::vector<std::vector<double>>{};
            model = withAblatedHeads(*model, in.ablateHeads, means);
        }
        if (dtype)
            *dtype = model->info().dtype;
        ScoredText scored;
        if (lens) {
            *lens = scoreLayers(*model, code);
            scored = lens->scored;
        } else if (experts) {
            ScoredExperts se = scoreExperts(*model, code);
            *experts = std::move(se.tokens);
            scored = std::move(se.scored);
        } else {
            scored = model->score(code);
        }
        if (heads) {
            heads->emplace(model->info().layers, model->tokenizer().addsBos() ? 1 : 0, kHeadsKeep);
            AttentionToTopKeys obs(**heads);
            ScoreOptions so;
            so.topK = 0;
            so.observer = &obs;
            model->score(code, so);
        }
        return scored;
    });
}

} // namespace

int cmdParse(Args& args)
{
    const std::string file = args.require("--text-file");
    const std::string language = languageOption(args, file);
    const std::size_t maxAstNodes = maxAstNodesOption(args);
    const auto out = args.value("--out");
    args.finish();

    const SyntaxTree tree = SyntaxTree::parse(language, readUtf8File(file), maxAstNodes);
    warnSyntaxProblems(tree, file);
    writeJson(syntaxTreeJson(tree), out);
    return 0;
}

int cmdNodeTypes(Args& args)
{
    const std::string language = languageOption(args, std::nullopt);
    const auto out = args.value("--out");
    args.finish();

    const LanguageInfo& info = LanguageRegistry::instance().get(language);
    const CategoryMap table = CategoryMap::forLanguage(language);
    json named = json::array(), anonymous = json::array(), categories = json::object();
    for (const auto& t : SyntaxTree::nodeTypes(language)) {
        (t.named ? named : anonymous).push_back(t.name);
        if (const auto c = table.categoryOf(t.name))
            categories[t.name] = *c;
    }
    writeJson({{"language", language},
               {"grammar", info.grammarDistribution + " " + info.grammarVersion},
               {"named", std::move(named)},
               {"anonymous", std::move(anonymous)},
               {"categories", std::move(categories)},
               {"decision_points", {{"types", info.decisionPoints}, {"tokens", info.decisionTokens}}}},
              out);
    return 0;
}

EvalDocument evalDocument(Args& args)
{
    EvalInputs in = readEvalOptions(args);
    const bool layers = args.flag("--layers");
    const bool experts = args.flag("--experts");
    const bool withHeads = args.flag("--heads");
    const auto ablateHeads = args.value("--ablate-heads");
    const auto ablation = args.value("--ablation");
    args.finish();
    if (layers && in.scoresFile)
        throw UsageError("--layers runs the layer lens of a model: give --model, not --scores");
    if (experts && in.scoresFile)
        throw UsageError("--experts records the routing of a mixture-of-experts model: give --model, not --scores");
    if (experts && layers)
        throw UsageError("--experts and --layers are separate runs of the model: give one of them");
    if (withHeads && in.scoresFile)
        throw UsageError("--heads records the attention of a model: give --model, not --scores");
    if ((ablateHeads || ablation) && in.scoresFile)
        throw UsageError("--ablate-heads runs an ablated model: give --model, not --scores");
    if (ablation && !ablateHeads)
        throw UsageError("--ablation needs --ablate-heads L.H,…");
    usageOf(ablation && !ablateHeads ? "--ablation" : "--ablate-heads/--ablation", [&] {
        if (ablateHeads)
            in.ablateHeads = parseHeadList(*ablateHeads);
        if (ablation)
            in.ablation = parseAblationMode(*ablation);
    });

    std::string dtype;
    LayerLens lens;
    std::vector<TokenExperts> routed;
    std::optional<AttentionTopKeys> top;
    const EvalResult r =
        runEval(in, &dtype, layers ? &lens : nullptr, experts ? &routed : nullptr, withHeads ? &top : nullptr);
    EvalDocument d;
    d.source = in.textFile ? *in.textFile : *in.scoresFile;
    warnSyntaxProblems(r.tree, d.source);
    json j = evalDocumentJson(r, in.language, dtype);
    if (layers)
        addLayerFields(j, lens.ntp, evaluateLayers(r, lens.ntp, lens.layers, lens.commit));
    if (experts)
        addExpertFields(j, routed);
    if (withHeads)
        j["attention"] = attentionArcsJson(*top, static_cast<int>(r.scored.tokens.size()));
    if (!in.ablateHeads.empty()) {
        json heads = json::array();
        for (const auto& h : in.ablateHeads)
            heads.push_back(toString(h));
        j["ablation"] = {{"heads", std::move(heads)}, {"mode", toString(in.ablation)}};
    }
    d.json = std::move(j);
    d.text = r.scored.text;
    d.language = in.language;
    if (in.modelDir)
        d.modelDir = resolveModelDir(*in.modelDir);
    d.load = in.load;
    if (in.promptBytes)
        d.promptBytes = static_cast<std::size_t>(*in.promptBytes);
    return d;
}

int cmdEval(Args& args)
{
    const auto out = args.value("--out");
    writeJson(evalDocument(args).json, out);
    return 0;
}

int cmdRender(Args& args)
{
    const EvalInputs in = readEvalOptions(args);
    const std::string view = args.require("--view");
    const auto svgFile = args.value("--svg");
    const auto pdfFile = args.value("--pdf");
    LayoutOptions layout;
    layout.maxGraphvizNodes =
        static_cast<std::size_t>(args.uint64Value("--max-graphviz-nodes", layout.maxGraphvizNodes));
    ViewRequest request = readRenderRequest(args, layout);
    if (view != "complete" && view != "partial" && view != "sequence" && view != "figure5")
        throw UsageError("--view must be complete, partial, sequence or figure5");
    request.view = parseViewKind(view);
    request.pdf = pdfFile.has_value();
    args.finish();
    if (svgFile.has_value() == pdfFile.has_value())
        throw UsageError("render writes exactly one of --svg OUT or --pdf OUT");
    const std::string outFile = svgFile ? *svgFile : *pdfFile;
    {
        // fail before loading a model when the file cannot be written there
        std::error_code ec;
        const auto dir = std::filesystem::absolute(outFile, ec).parent_path();
        if (!std::filesystem::is_directory(dir, ec))
            throw InputError("cannot write " + outFile + ": the folder " + dir.string() + " does not exist");
    }

    const EvalResult r = runEval(in);
    warnSyntaxProblems(r.tree, in.textFile ? *in.textFile : *in.scoresFile);
    const DrawnView drawn = drawView(r, request); // the screen view, or the paper figure (docs/figures.md)
    {
        std::ofstream f(outFile, std::ios::binary);
        if (!f)
            throw InputError("cannot write " + outFile);
        f << drawn.bytes;
        f.close();
        if (!f)
            throw InputError("failed writing " + outFile);
    }
    if (!drawn.note.empty())
        std::cerr << "render: " << drawn.note << remedyForCli(drawn.noteRemedy, "render") << '\n';
    if (!drawn.summary.empty())
        std::cerr << "render: " << drawn.summary << '\n';
    std::cerr << "wrote " << outFile << " (" << view << " view, " << r.tree.nodes().size() << " AST nodes, "
              << r.scored.tokens.size() << " tokens)\n";
    return 0;
}

} // namespace ascviz::cli
