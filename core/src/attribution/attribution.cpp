#include "ascviz/attribution/attribution.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/evaluate.h"

#include <algorithm>
#include <map>

namespace ascviz {

AttributionMethod parseAttributionMethod(const std::string& s)
{
    if (s == "occlusion")
        return AttributionMethod::Occlusion;
    if (s == "gradxinput")
        return AttributionMethod::GradientTimesInput;
    if (s == "surrogate")
        return AttributionMethod::Surrogate;
    throw InputError("unknown attribution method '" + s + "' (occlusion, gradxinput or surrogate)");
}

std::string toString(AttributionMethod m)
{
    switch (m) {
    case AttributionMethod::Occlusion:
        return "occlusion";
    case AttributionMethod::GradientTimesInput:
        return "gradxinput";
    case AttributionMethod::Surrogate:
        return "surrogate";
    }
    return "occlusion";
}

NodeOrder parseNodeOrder(const std::string& s)
{
    if (s == "deepest")
        return NodeOrder::Deepest;
    if (s == "level")
        return NodeOrder::Level;
    throw InputError("unknown node order '" + s + "' (deepest or level)");
}

AttributionTargetSpec parseAttributionTarget(const std::string& s)
{
    AttributionTargetSpec t;
    if (s == "all")
        return t;
    std::string digits = s;
    t.kind = AttributionTargetSpec::Kind::Node;
    if (s.rfind("token:", 0) == 0) {
        t.kind = AttributionTargetSpec::Kind::Token;
        digits = s.substr(6);
    }
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw InputError("attribution target '" + s + "': expected all, a node id (as in eval) or token:K");
    t.index = std::stoi(digits);
    return t;
}

namespace {

const char* kindName(AttributionTargetSpec::Kind k)
{
    switch (k) {
    case AttributionTargetSpec::Kind::Completion:
        return "completion";
    case AttributionTargetSpec::Kind::Node:
        return "node";
    case AttributionTargetSpec::Kind::Token:
        return "token";
    }
    return "completion";
}

// Sets the target's tokens, bytes and type in `r` from the spec.
void resolveTarget(const ScoredText& s, const SyntaxTree& tree, const AttributionTargetSpec& spec,
                   const CategoryMap* categories, AttributionResult& r)
{
    const std::size_t first = s.promptTokens, count = s.tokens.size();
    const std::string where = "the completion (tokens " + std::to_string(first) + " to " + std::to_string(count) +
                              ", from byte " + std::to_string(s.promptBytes) + ")";
    r.targetKind = spec.kind;
    switch (spec.kind) {
    case AttributionTargetSpec::Kind::Completion:
        r.tokenBegin = first;
        r.tokenEnd = count;
        r.targetType = "completion";
        break;
    case AttributionTargetSpec::Kind::Token:
        if (spec.index < 0 || static_cast<std::size_t>(spec.index) < first ||
            static_cast<std::size_t>(spec.index) >= count)
            throw InputError("attribution target token:" + std::to_string(spec.index) + " is not a token of " + where);
        r.tokenBegin = static_cast<std::size_t>(spec.index);
        r.tokenEnd = r.tokenBegin + 1;
        r.targetType = "token";
        break;
    case AttributionTargetSpec::Kind::Node: {
        const auto& nodes = tree.nodes();
        if (spec.index < 0 || static_cast<std::size_t>(spec.index) >= nodes.size())
            throw InputError("attribution target node " + std::to_string(spec.index) +
                             " does not exist (the tree has " + std::to_string(nodes.size()) +
                             " nodes, ids as in eval)");
        const AstNode& n = nodes[static_cast<std::size_t>(spec.index)];
        if (n.start < s.promptBytes)
            throw InputError("attribution target node " + std::to_string(n.id) + " (" + n.type + ", bytes " +
                             std::to_string(n.start) + "-" + std::to_string(n.end) + ") is not inside " + where);
        std::vector<int> aligned = alignNode(s.tokens, n.start, n.end);
        aligned.erase(
            std::remove_if(aligned.begin(), aligned.end(), [&](int t) { return static_cast<std::size_t>(t) < first; }),
            aligned.end());
        if (aligned.empty())
            throw InputError("attribution target node " + std::to_string(n.id) + " (" + n.type +
                             ") has no completion token (a zero-width node?)");
        r.tokenBegin = static_cast<std::size_t>(aligned.front());
        r.tokenEnd = static_cast<std::size_t>(aligned.back()) + 1;
        r.targetNode = n.id;
        r.targetType = n.type;
        if (categories)
            r.targetCategory = categories->categoryOf(n.type);
        break;
    }
    }
    if (r.tokenEnd <= r.tokenBegin)
        throw InputError("the completion is empty: nothing to attribute (a prompt of " + std::to_string(s.promptBytes) +
                         " bytes leaves no token after it)");
    r.targetStart = s.tokens[r.tokenBegin].start;
    r.targetEnd = s.tokens[r.tokenEnd - 1].end;
}

} // namespace

AttributionResult attribute(const LanguageModel& model, const std::string& text, std::size_t promptBytes,
                            const std::string& language, const AttributionTargetSpec& target,
                            const AttributionOptions& opts, const CategoryMap* categories)
{
    if (promptBytes == 0)
        throw InputError("the prompt is empty: attribution needs prompt nodes to weigh (a prompt of 1 byte or more)");
    if (promptBytes > text.size())
        throw InputError("the prompt of " + std::to_string(promptBytes) + " bytes is beyond the end of the text (" +
                         std::to_string(text.size()) + " bytes)");
    // The text through the one entry point (eval/evaluate.h): its size and tree within the limits, then its tokens
    // with their spans (no NtP needed: the "scorer" only tokenizes), split at the prompt as everywhere else.
    Encoding enc;
    EvalRequest req;
    req.language = language;
    req.categories = categories;
    req.promptBytes = promptBytes;
    req.maxAstDepth = opts.maxAstDepth;
    req.maxAstNodes = opts.maxAstNodes;
    const EvalResult base = evaluateText(text, req, [&](const std::string& code, const SyntaxTree&) {
        enc = model.tokenizer().encode(code, false);
        ScoredText tokens;
        tokens.text = code;
        for (std::size_t j = 0; j < enc.ids.size(); ++j) {
            ScoredToken t;
            t.id = enc.ids[j];
            t.start = enc.offsets[j].first;
            t.end = enc.offsets[j].second;
            tokens.tokens.push_back(t);
        }
        return tokens;
    });
    const SyntaxTree& tree = base.tree;
    const ScoredText& s = base.scored;
    if (s.promptTokens == 0)
        throw InputError("the prompt (" + std::to_string(promptBytes) + " bytes) has no token");

    AttributionResult r;
    r.method = opts.method;
    r.order = opts.order;
    r.promptBytes = promptBytes;
    resolveTarget(s, tree, target, categories, r);

    std::vector<int32_t> ids;
    std::size_t prefix = 0;
    if (model.tokenizer().addsBos() && model.tokenizer().bosId()) {
        ids.push_back(*model.tokenizer().bosId());
        prefix = 1;
    }
    ids.insert(ids.end(), enc.ids.begin(), enc.ids.end());
    const TargetTokens tt{r.tokenBegin + prefix, r.tokenEnd + prefix};
    if (tt.begin < 1)
        throw InputError("the first token of the text has no prediction: it cannot be a target");

    // The prompt nodes: inside the prompt, with at least one token.
    struct Candidate {
        const AstNode* node;
        std::vector<std::size_t> positions;
    };
    std::vector<Candidate> candidates;
    for (const auto& n : tree.nodes()) {
        if (n.end > promptBytes || n.end <= n.start)
            continue;
        Candidate c{&n, {}};
        for (const int t : alignNode(s.tokens, n.start, n.end))
            if (static_cast<std::size_t>(t) < s.promptTokens)
                c.positions.push_back(static_cast<std::size_t>(t) + prefix);
        if (!c.positions.empty())
            candidates.push_back(std::move(c));
    }
    if (candidates.empty())
        throw InputError("the prompt (" + std::to_string(promptBytes) + " bytes) holds no complete AST node");
    r.promptNodes = candidates.size();

    // The budget's nodes first (deepest first or by level): occlusion and the surrogate keep only them, and the
    // faithfulness curves of every method run over them.
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
        return opts.order == NodeOrder::Deepest ? a.node->depth > b.node->depth : a.node->depth < b.node->depth;
    });
    const std::size_t kept = opts.budget > 0 ? std::min(opts.budget, candidates.size()) : candidates.size();
    MaskedRunOptions run;
    run.batch = opts.batch;
    run.cancel = opts.cancel;
    run.progress = opts.progress;
    const HiddenLogProbs hiddenLogProbs = [&](const std::vector<std::vector<std::size_t>>& hidden) {
        return maskedTargetLogProbs(model, ids, tt, hidden, run);
    };
    std::vector<double> values(candidates.size());
    if (opts.method == AttributionMethod::GradientTimesInput) {
        const std::vector<double> g = gradientTimesInput(model, ids, tt);
        r.targetLogProb = maskedTargetLogProbs(model, ids, tt, {{}}).front();
        for (std::size_t i = 0; i < candidates.size(); ++i)
            for (const std::size_t p : candidates[i].positions)
                values[i] += g[p];
    } else if (opts.method == AttributionMethod::Surrogate) {
        candidates.resize(kept);
        std::vector<std::vector<std::size_t>> nodes;
        for (const auto& c : candidates)
            nodes.push_back(c.positions);
        // the clean copy rides in the same batches as the masks
        const HiddenLogProbs withClean = [&](const std::vector<std::vector<std::size_t>>& hidden) {
            std::vector<std::vector<std::size_t>> all{{}};
            all.insert(all.end(), hidden.begin(), hidden.end());
            std::vector<double> lp = hiddenLogProbs(all);
            r.targetLogProb = lp.front();
            lp.erase(lp.begin());
            return lp;
        };
        r.surrogate = surrogateAttribution(nodes, withClean, opts.surrogateMasks, opts.seed);
        r.forwardPasses = opts.surrogateMasks + 1;
        values = r.surrogate->attribution;
    } else {
        candidates.resize(kept);
        values.resize(candidates.size());
        // One masked copy per distinct token set (a node and its only child share one).
        std::map<std::vector<std::size_t>, std::size_t> maskIndex;
        std::vector<std::vector<std::size_t>> masks{{}}; // mask 0: nothing hidden
        for (const auto& c : candidates)
            if (maskIndex.emplace(c.positions, masks.size()).second)
                masks.push_back(c.positions);
        const std::vector<double> lp = maskedTargetLogProbs(model, ids, tt, masks, run);
        r.targetLogProb = lp[0];
        r.forwardPasses = masks.size();
        for (std::size_t i = 0; i < candidates.size(); ++i)
            values[i] = lp[0] - lp[maskIndex.at(candidates[i].positions)];
    }
    if (opts.faithfulness) {
        std::vector<std::vector<std::size_t>> nodes;
        for (std::size_t i = 0; i < kept; ++i)
            nodes.push_back(candidates[i].positions);
        r.faithfulnessNodes = kept;
        r.faithfulness = ascviz::faithfulness(nodes, std::vector<double>(values.begin(), values.begin() + kept),
                                              hiddenLogProbs, opts.randomOrders, opts.seed);
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const AstNode& n = *candidates[i].node;
        NodeAttribution a;
        a.id = n.id;
        a.type = n.type;
        a.start = n.start;
        a.end = n.end;
        a.depth = n.depth;
        if (categories)
            a.category = categories->categoryOf(n.type);
        a.attribution = values[i];
        r.nodes.push_back(std::move(a));
    }
    std::sort(r.nodes.begin(), r.nodes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return r;
}

nlohmann::json attributionJson(const AttributionResult& r)
{
    using nlohmann::json;
    json target = {{"kind", kindName(r.targetKind)},
                   {"id", r.targetNode ? json(*r.targetNode) : json(nullptr)},
                   {"type", r.targetType},
                   {"category", r.targetCategory ? json(*r.targetCategory) : json(nullptr)},
                   {"start", r.targetStart},
                   {"end", r.targetEnd},
                   {"tokens", {r.tokenBegin, r.tokenEnd}},
                   {"log_prob", r.targetLogProb}};
    json nodes = json::array();
    for (const auto& n : r.nodes)
        nodes.push_back({{"id", n.id},
                         {"type", n.type},
                         {"start", n.start},
                         {"end", n.end},
                         {"depth", n.depth},
                         {"category", n.category ? json(*n.category) : json(nullptr)},
                         {"attribution", n.attribution}});
    json out = {{"target", std::move(target)},
                {"method", toString(r.method)},
                {"order", r.order == NodeOrder::Deepest ? "deepest" : "level"},
                {"prompt_bytes", r.promptBytes},
                {"prompt_nodes", r.promptNodes},
                {"forward_passes", r.forwardPasses},
                {"nodes", std::move(nodes)}};
    if (r.surrogate)
        out["surrogate"] = {{"held_out_r2", r.surrogate->heldOutR2},
                            {"lambda", r.surrogate->lambda},
                            {"masks", r.surrogate->masks},
                            {"train_masks", r.surrogate->trainMasks}};
    if (r.faithfulness) {
        const Faithfulness& f = *r.faithfulness;
        out["faithfulness"] = {{"deletion_auc", f.deletionAuc},
                               {"insertion_auc", f.insertionAuc},
                               {"random_deletion_auc", f.randomDeletionAuc},
                               {"random_insertion_auc", f.randomInsertionAuc},
                               {"nodes", r.faithfulnessNodes},
                               {"random_orders", f.randomOrders},
                               {"forward_passes", f.evaluations},
                               {"deletion", f.deletion},
                               {"insertion", f.insertion}};
    }
    return out;
}

} // namespace ascviz
