// The storing half of runBatch's pipeline (pipeline.h): each scored snippet evaluated and written in one
// transaction, in corpus order (the engine's loop calls store once per snippet).
#include "pipeline.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/evaluate.h"

#include <algorithm>

namespace ascviz {

namespace {

using Clock = std::chrono::steady_clock;

bool isWindowed(const LanguageModel& model, const ScoredText& s)
{
    const int64_t ctx = model.info().contextLength;
    const int64_t extra = model.tokenizer().addsBos() ? 1 : 0;
    return ctx > 0 && static_cast<int64_t>(s.tokens.size()) + extra > ctx;
}

void appendNote(std::string& note, const std::string& more)
{
    if (!more.empty())
        note += (note.empty() ? "" : "; ") + more;
}

} // namespace

void markPrompt(ScoredText& s, const CorpusEntry& e, std::string* note)
{
    // The scored text is the entry's code; base/scored.h states the split's edge rule.
    if (!splitAtPromptText(s, e.prompt) && note)
        *note = "prompt is not a prefix of code; all tokens treated as prompt";
}

SnippetWriter::SnippetWriter(const LanguageModel& model, const Corpus& corpus, const RunPlan& plan,
                             const std::vector<int>& pending, ResultsDb& db, BatchSummary& sum)
    : m_model(model), m_corpus(corpus), m_plan(plan), m_pending(pending), m_db(db), m_sum(sum)
{
}

ItemOutcome SnippetWriter::store(ScoredGroup& group, std::size_t k)
{
    const double scoreShare = group.seconds / static_cast<double>(std::max<std::size_t>(1, group.end - group.begin));
    std::optional<ScoredText>& pre = group.texts[k - group.begin];
    std::optional<SyntaxTree>& tree = group.trees[k - group.begin];
    const BatchOptions& opts = m_plan.opts;
    const auto s0 = Clock::now();
    const int idx = m_pending[k];
    const CorpusEntry& e = m_corpus.entries[static_cast<std::size_t>(idx)];
    SnippetMeta meta;
    meta.index = idx;
    meta.id = e.id;
    meta.location = e.location;
    meta.code = e.code;
    meta.promptBytes = e.code.size();
    meta.language = languageOf(e, opts);
    const CategoryMap& table = m_plan.categories.at(meta.language);
    std::optional<EvalResult> result;
    try {
        std::string note;
        if (pre && tree) {
            markPrompt(*pre, e, &note);
            result.emplace(evaluateScores(std::move(*pre), evalRequest(opts, meta.language, table), std::move(*tree)));
        } else {
            result.emplace(evaluateEntry(m_model, e, opts, table, &note));
        }
        // Syntax errors are kept (their nodes are stored with error = 1) and named in the message.
        appendNote(note, describeSyntaxProblems(result->tree));
        meta.ok = true;
        meta.message = note;
        meta.promptBytes = result->scored.promptBytes;
        meta.windowed = isWindowed(m_model, result->scored);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& err) {
        result.reset();
        meta.ok = false;
        meta.message = err.what();
    }
    meta.seconds = (pre ? scoreShare : 0.0) + std::chrono::duration<double>(Clock::now() - s0).count();
    m_db.writeSnippet(meta, result ? &*result : nullptr);
    if (meta.windowed)
        ++m_sum.windowed;
    ItemOutcome out;
    out.id = e.id;
    out.ok = meta.ok;
    out.tokens = result ? static_cast<int64_t>(result->scored.tokens.size()) : 0;
    return out;
}

} // namespace ascviz
