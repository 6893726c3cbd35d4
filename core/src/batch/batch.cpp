// The batch runner (batch.h).
#include "ascviz/batch/batch.h"

#include "ascviz/base/error.h"
#include "ascviz/base/version.h"
#include "ascviz/syntax/language.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace ascviz {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

void markPrompt(ScoredText& s, const CorpusEntry& e, std::string* note)
{
    s.promptBytes = s.text.size();
    s.promptTokens = s.tokens.size();
    for (auto& t : s.tokens)
        t.generated = false;
    if (!e.prompt)
        return;
    const std::string& p = *e.prompt;
    if (p.size() <= e.code.size() && e.code.compare(0, p.size(), p) == 0) {
        s.promptBytes = p.size();
        std::size_t promptTokens = 0;
        for (auto& t : s.tokens) {
            t.generated = t.start >= p.size();
            if (!t.generated)
                ++promptTokens;
        }
        s.promptTokens = promptTokens;
    } else if (note) {
        *note = "prompt is not a prefix of code; all tokens treated as prompt";
    }
}

bool isWindowed(const LanguageModel& model, const ScoredText& s)
{
    const int64_t ctx = model.info().contextLength;
    const int64_t extra = model.tokenizer().addsBos() ? 1 : 0;
    return ctx > 0 && static_cast<int64_t>(s.tokens.size()) + extra > ctx;
}

RunInfo requestedRun(const LanguageModel& model, const Corpus& corpus, const BatchOptions& opts, int runTotal)
{
    const auto& mi = model.info();
    RunInfo r;
    r.modelName = mi.name;
    std::error_code ec;
    const fs::path dir = opts.modelDir.empty() ? mi.dir : fs::path(opts.modelDir);
    const fs::path canon = fs::weakly_canonical(dir, ec);
    r.modelDir = (ec ? dir : canon).string();
    r.architecture = mi.architecture;
    r.device = mi.device;
    r.dtype = mi.dtype;
    r.parameters = mi.parameters;
    r.contextLength = mi.contextLength;
    r.vocabSize = mi.vocabSize;
    r.corpusPath = corpus.source.string();
    r.corpusFormat = toString(corpus.format);
    r.corpusFingerprint = corpus.fingerprint();
    r.corpusEntries = static_cast<int64_t>(corpus.entries.size());
    r.language = opts.language;
    r.aggregation = opts.aggregation;
    r.planned = opts.shard.planned(runTotal);
    r.runPlanned = runTotal;
    r.shardIndex = opts.shard.index;
    r.shardCount = opts.shard.count;
    r.status = RunStatus::Running;
    r.version = ascvizVersion();
    return r;
}

// Throws InputError naming every difference between a stored run and the request.
void checkResumable(const RunInfo& have, const RunInfo& want, const fs::path& db)
{
    std::string diff;
    auto cmp = [&diff](const char* what, const std::string& a, const std::string& b) {
        if (a != b)
            diff += std::string(diff.empty() ? "" : "; ") + what + " is '" + a + "' in the DB but '" + b + "' now";
    };
    cmp("model", have.modelName, want.modelName);
    cmp("architecture", have.architecture, want.architecture);
    cmp("model parameters", std::to_string(have.parameters), std::to_string(want.parameters));
    cmp("vocabulary size", std::to_string(have.vocabSize), std::to_string(want.vocabSize));
    cmp("corpus content (fingerprint)", have.corpusFingerprint, want.corpusFingerprint);
    cmp("aggregation", toString(have.aggregation), toString(want.aggregation));
    cmp("language", have.language, want.language);
    cmp("shard", ShardSpec{have.shardIndex, have.shardCount}.toString(),
        ShardSpec{want.shardIndex, want.shardCount}.toString());
    // A whole run may be resumed with another --limit; a shard's slice depends on the run's size.
    if (have.shardCount > 1 || want.shardCount > 1)
        cmp("run size (--limit)", std::to_string(have.runPlanned), std::to_string(want.runPlanned));
    if (!diff.empty())
        throw InputError("cannot resume " + db.string() + ": " + diff +
                         " (use the same model, corpus and options, or a new --db)");
}

std::string languageOf(const BatchOptions& opts)
{
    return opts.language.empty() ? LanguageRegistry::instance().defaultLanguage().id : opts.language;
}

// A corpus entry's language: its own (readCorpus fills it in), else the run's.
std::string languageOf(const CorpusEntry& e, const BatchOptions& opts)
{
    return e.language.empty() ? languageOf(opts) : e.language;
}

void appendNote(std::string& note, const std::string& more)
{
    if (!more.empty())
        note += (note.empty() ? "" : "; ") + more;
}

// One writer per results database: an exclusive flock(2) on the file for the whole run, so a second batch
// on the same file fails at once with a message instead of racing for the same snippets. flock locks are
// independent of SQLite's POSIX locks; the descriptor stays open until the run's connection has closed
// (closing any descriptor of the file would drop SQLite's POSIX locks).
class RunLock {
public:
    explicit RunLock(const fs::path& db)
    {
        m_fd = ::open(db.c_str(), O_RDONLY | O_CLOEXEC);
        if (m_fd < 0)
            return; // SQLite reports what is wrong with the file
        if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            ::close(m_fd);
            m_fd = -1;
            if (err == EWOULDBLOCK)
                throw InputError("results database " + db.string() +
                                 " is being written by another batch run; wait for it to end (or stop it), then "
                                 "continue with --resume — or choose another --db");
        }
    }
    ~RunLock()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;

private:
    int m_fd = -1;
};

} // namespace

EvalResult evaluateEntry(const LanguageModel& model, const CorpusEntry& entry, const BatchOptions& opts,
                         const CategoryMap& categories, std::string* note)
{
    limits::checkTextSize(entry.code.size(), opts.maxTextBytes, "the snippet");
    // The tree's limits before the model runs.
    SyntaxTree tree = parseForEval(languageOf(entry, opts), entry.code, opts.maxAstDepth, opts.maxAstNodes);
    ScoreOptions so;
    so.topK = 0;
    ScoredText s = model.score(entry.code, so);
    markPrompt(s, entry, note);
    return evaluate(std::move(s), std::move(tree), opts.aggregation, categories);
}

BatchSummary runBatch(const LanguageModel& model, const Corpus& corpus, const fs::path& dbPath,
                      const BatchOptions& request)
{
    BatchOptions opts = request;
    opts.language = languageOf(request);
    if (corpus.entries.empty())
        throw InputError("empty corpus: nothing to evaluate");
    if (opts.shard.count < 1 || opts.shard.index < 0 || opts.shard.index >= opts.shard.count)
        throw InputError("shard " + opts.shard.toString() + " is not I/N with 0 <= I < N");
    const int runTotal = opts.limit > 0 ? std::min<int>(opts.limit, static_cast<int>(corpus.entries.size()))
                                        : static_cast<int>(corpus.entries.size());
    RunInfo want = requestedRun(model, corpus, opts, runTotal);
    // The corpus positions this call evaluates (all of the run, or its shard).
    std::vector<int> mine;
    for (int i = 0; i < runTotal; ++i)
        if (opts.shard.contains(i))
            mine.push_back(i);
    const int total = static_cast<int>(mine.size());
    // Every language's category table, loaded (and checked against its grammar) before any work.
    std::map<std::string, CategoryMap> categories;
    for (int i : mine) {
        const std::string lang = languageOf(corpus.entries[static_cast<std::size_t>(i)], opts);
        if (!categories.count(lang))
            categories.emplace(lang, CategoryMap::forLanguage(lang));
    }

    std::error_code ec;
    std::optional<RunLock> lock; // declared before the DB: released after its connection closed
    std::optional<ResultsDb> db;
    std::set<int64_t> done;
    if (opts.resume && fs::exists(dbPath, ec)) {
        lock.emplace(dbPath);
        db.emplace(ResultsDb::open(dbPath, ResultsDb::Mode::ReadWrite));
        const RunInfo have = db->runInfo();
        checkResumable(have, want, dbPath);
        done = db->doneIndices();
        want.created = have.created; // corpus_path is updated: the same content may have moved
        db->updateRun(want);
    } else {
        db.emplace(ResultsDb::create(dbPath, want));
        lock.emplace(dbPath);
    }

    BatchSummary sum;
    sum.db = dbPath;
    sum.total = total;
    for (int i : mine)
        if (done.count(i))
            ++sum.resumed;

    BatchProgress prog;
    prog.total = total;
    prog.done = sum.resumed;
    prog.resumed = sum.resumed;
    const auto runStart = Clock::now();
    double pausedSeconds = 0;
    auto worked = [&] { // seconds of work in this call, paused time excluded
        return std::chrono::duration<double>(Clock::now() - runStart).count() - pausedSeconds;
    };
    auto emit = [&](const std::string& id) {
        prog.currentId = id;
        prog.elapsed = worked();
        const int storedNow = prog.done - prog.resumed;
        prog.snippetsPerSecond = prog.elapsed > 0 ? storedNow / prog.elapsed : 0;
        prog.tokensPerSecond = prog.elapsed > 0 ? static_cast<double>(prog.tokens) / prog.elapsed : 0;
        prog.etaSeconds = prog.snippetsPerSecond > 0 ? (total - prog.done) / prog.snippetsPerSecond
                                                     : (prog.done >= total ? 0.0 : -1.0);
        if (opts.progress)
            opts.progress(prog);
    };
    emit({});

    auto cancelled = [&] { return opts.cancel && opts.cancel->load(); };
    // Waits while paused; returns false when cancelled.
    auto waitWhilePaused = [&]() {
        if (!opts.pause || !opts.pause->load())
            return !cancelled();
        const auto p0 = Clock::now();
        prog.paused = true;
        emit(prog.currentId);
        while (opts.pause->load() && !cancelled())
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        prog.paused = false;
        pausedSeconds += std::chrono::duration<double>(Clock::now() - p0).count();
        if (!cancelled())
            emit(prog.currentId);
        return !cancelled();
    };

    std::vector<int> pending;
    for (int i : mine)
        if (!done.count(i))
            pending.push_back(i);

    // Producer/consumer: a scoring thread scores the pending snippets group by group (opts.batchSize texts per
    // scoreBatch call) while this thread parses, aligns, aggregates and stores them one by one in corpus order
    // (one transaction per snippet, as before). At most kAhead scored groups wait, so memory stays bounded and
    // a cancel or crash loses at most the groups scored but not stored (they are not in the DB and are redone
    // on resume). The two overlap when the model leaves a core free (a GPU, or fewer CPU threads than cores);
    // when its threads use every core, this thread scores and stores in turn (no second thread): on 2 cores
    // with 2 threads, overlapping made the batch ~15 % slower (the parser's thread stalls the model's parallel
    // matrix products), and handing each group to a scoring thread that waited for its turn made the
    // 600-function batch 43 % slower in wall time than scoring on this thread.
    constexpr std::size_t kAhead = 2;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const bool overlap = model.info().threads == 0 || model.info().threads < cores;
    struct ScoredGroup {
        std::size_t begin = 0, end = 0; // positions in `pending`
        std::vector<std::optional<ScoredText>> texts;
        std::vector<std::optional<SyntaxTree>> trees; // parsed before scoring, within the tree limits
        double seconds = 0;                           // parsing and scoring time of the group
    };
    const std::size_t group = static_cast<std::size_t>(std::max(1, opts.batchSize));
    // Parses and scores pending[g, g + group). Each text is parsed first, so that one past a limit (size, tree
    // nodes or depth) is never scored: the consumer's evaluateEntry refuses it with the limit's message. A
    // failing batch leaves every text unscored, so that the consumer scores them one by one and errors stay
    // per snippet.
    auto scoreGroup = [&](std::size_t g) {
        ScoredGroup sg;
        sg.begin = g;
        sg.end = std::min(pending.size(), g + group);
        sg.texts.resize(sg.end - g);
        sg.trees.resize(sg.end - g);
        const auto t0 = Clock::now();
        std::vector<std::string> texts;
        std::vector<std::size_t> slot;
        for (std::size_t k = g; k < sg.end; ++k) {
            const CorpusEntry& e = corpus.entries[static_cast<std::size_t>(pending[k])];
            if (opts.maxTextBytes > 0 && e.code.size() > opts.maxTextBytes)
                continue;
            try {
                sg.trees[k - g].emplace(parseForEval(languageOf(e, opts), e.code, opts.maxAstDepth, opts.maxAstNodes));
            } catch (const std::exception&) {
                continue;
            }
            texts.push_back(e.code);
            slot.push_back(k - g);
        }
        if (!texts.empty()) {
            try {
                ScoreOptions so;
                so.topK = 0;
                auto res = model.scoreBatch(texts, so);
                for (std::size_t k = 0; k < res.size() && k < slot.size(); ++k)
                    sg.texts[slot[k]] = std::move(res[k]);
            } catch (const std::exception&) {
                for (auto& t : sg.texts)
                    t.reset();
            }
        }
        sg.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        return sg;
    };
    std::mutex mu;
    std::condition_variable cv;
    std::deque<ScoredGroup> ready;
    bool producerDone = false, stopProducer = false;
    std::exception_ptr producerError;
    std::thread producer;
    if (overlap)
        producer = std::thread([&] {
            try {
                for (std::size_t g = 0; g < pending.size(); g += group) {
                    {
                        std::unique_lock lk(mu);
                        cv.wait(lk, [&] { return stopProducer || ready.size() < kAhead; });
                        if (stopProducer)
                            break;
                    }
                    while (opts.pause && opts.pause->load() && !cancelled() && !stopProducer)
                        std::this_thread::sleep_for(std::chrono::milliseconds(30));
                    if (cancelled() || stopProducer)
                        break;
                    ScoredGroup sg = scoreGroup(g);
                    {
                        std::lock_guard lk(mu);
                        ready.push_back(std::move(sg));
                    }
                    cv.notify_all();
                }
            } catch (...) {
                std::lock_guard lk(mu);
                producerError = std::current_exception();
            }
            {
                std::lock_guard lk(mu);
                producerDone = true;
            }
            cv.notify_all();
        });
    // The producer is stopped and joined however this thread leaves (a DB error propagates after the join).
    struct JoinProducer {
        std::mutex& mu;
        std::condition_variable& cv;
        bool& stop;
        std::thread& t;
        ~JoinProducer()
        {
            {
                std::lock_guard lk(mu);
                stop = true;
            }
            cv.notify_all();
            if (t.joinable())
                t.join();
        }
    } joinProducer{mu, cv, stopProducer, producer};

    std::size_t processed = 0, nextGroup = 0;
    for (;;) {
        ScoredGroup item;
        if (!overlap) { // taking turns on this thread: score a group, then store it
            if (nextGroup >= pending.size())
                break;
            if (!waitWhilePaused()) {
                sum.cancelled = true;
                break;
            }
            item = scoreGroup(nextGroup);
            nextGroup += group;
        } else {
            std::unique_lock lk(mu);
            cv.wait(lk, [&] { return !ready.empty() || producerDone; });
            if (ready.empty()) {
                if (producerError)
                    std::rethrow_exception(producerError);
                break;
            }
            item = std::move(ready.front());
            ready.pop_front();
            lk.unlock();
            cv.notify_all();
        }
        const double scoreShare = item.seconds / static_cast<double>(std::max<std::size_t>(1, item.end - item.begin));
        for (std::size_t k = item.begin; k < item.end; ++k) {
            if (!waitWhilePaused()) {
                sum.cancelled = true;
                break;
            }
            const auto s0 = Clock::now();
            const int idx = pending[k];
            const CorpusEntry& e = corpus.entries[static_cast<std::size_t>(idx)];
            SnippetMeta meta;
            meta.index = idx;
            meta.id = e.id;
            meta.location = e.location;
            meta.code = e.code;
            meta.promptBytes = e.code.size();
            meta.language = languageOf(e, opts);
            const CategoryMap& table = categories.at(meta.language);
            std::optional<EvalResult> result;
            auto& pre = item.texts[k - item.begin];
            auto& tree = item.trees[k - item.begin];
            try {
                std::string note;
                if (pre && tree) {
                    markPrompt(*pre, e, &note);
                    result.emplace(evaluate(std::move(*pre), std::move(*tree), opts.aggregation, table));
                } else {
                    result.emplace(evaluateEntry(model, e, opts, table, &note));
                }
                // Syntax errors are kept (their nodes are stored with error = 1) and named in the message.
                appendNote(note, describeSyntaxProblems(result->tree));
                meta.ok = true;
                meta.message = note;
                meta.promptBytes = result->scored.promptBytes;
                meta.windowed = isWindowed(model, result->scored);
            } catch (const Cancelled&) {
                throw;
            } catch (const std::exception& err) {
                result.reset();
                meta.ok = false;
                meta.message = err.what();
            }
            meta.seconds = (pre ? scoreShare : 0.0) + std::chrono::duration<double>(Clock::now() - s0).count();
            db->writeSnippet(meta, result ? &*result : nullptr);
            ++processed;
            ++sum.stored;
            ++prog.done;
            if (!meta.ok) {
                ++sum.errors;
                ++prog.errors;
            }
            if (meta.windowed)
                ++sum.windowed;
            if (result) {
                sum.tokens += static_cast<int64_t>(result->scored.tokens.size());
                prog.tokens = sum.tokens;
            }
            emit(e.id);
        }
        if (sum.cancelled)
            break;
    }
    if (processed < pending.size() && cancelled())
        sum.cancelled = true;
    sum.seconds = worked();

    const std::set<int64_t> after = db->doneIndices();
    int have = 0;
    for (int i : mine)
        if (after.count(i))
            ++have;
    sum.complete = have == total;
    want.status = sum.complete ? RunStatus::Complete : (sum.cancelled ? RunStatus::Cancelled : RunStatus::Running);
    db->updateRun(want);
    return sum;
}

} // namespace ascviz
