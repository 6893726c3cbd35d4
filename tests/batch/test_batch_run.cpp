// The batch runner end to end with the tiny fixture model: DB contents, cancel + resume, report numbers.
#include "ascviz/base/error.h"
#include "ascviz/batch/batch.h"
#include "ascviz/results/stats.h"
#include "ascviz/syntax/syntax.h"
#include "dbcontent.h"
#include "testdata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <unistd.h>

using namespace ascviz;
namespace fs = std::filesystem;

namespace {

fs::path tempDir()
{
    static const testdata::TempDir dir("ascviz-batch-test"); // removed at exit
    return dir.path();
}

fs::path dataDir()
{
    return testdata::dataDir();
}
fs::path resources()
{
    return testdata::resourcesDir();
}

std::vector<std::string> dump(const ResultsDb& db, const std::string& sql)
{
    return testdata::dumpRows(db, sql);
}

// Every table's content except timestamps and timings.
struct DbContent {
    std::vector<std::string> snippets, tokens, nodes;
};
DbContent content(const fs::path& p)
{
    auto c = testdata::dbContent(p);
    return {std::move(c[0]), std::move(c[1]), std::move(c[2])};
}

class BatchRun : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        LoadOptions o;
        o.device = ascviz::Device::Cpu;
        s_model = LanguageModel::load(dataDir() / "fixtures" / "models" / "tiny-gpt2", o).release();
        s_corpus = new Corpus(readCorpus(resources() / "corpus" / "stdlib-functions.jsonl"));
        BatchOptions opts;
        opts.limit = 20;
        opts.batchSize = 1; // one by one: the reference of the batched tests below
        s_full = tempDir() / "full.db";
        s_summary = runBatch(*s_model, *s_corpus, s_full, opts);
    }
    static void TearDownTestSuite()
    {
        delete s_model;
        delete s_corpus;
    }
    static LanguageModel* s_model;
    static Corpus* s_corpus;
    static fs::path s_full;
    static BatchSummary s_summary;
};
LanguageModel* BatchRun::s_model = nullptr;
Corpus* BatchRun::s_corpus = nullptr;
fs::path BatchRun::s_full;
BatchSummary BatchRun::s_summary;

} // namespace

TEST_F(BatchRun, DatabaseHoldsExactlyTheExpectedRows)
{
    EXPECT_EQ(s_summary.total, 20);
    EXPECT_EQ(s_summary.stored, 20);
    EXPECT_TRUE(s_summary.complete);
    EXPECT_FALSE(s_summary.cancelled);
    const auto db = ResultsDb::open(s_full);
    const auto counts = db.counts();
    EXPECT_EQ(counts.snippets, 20);
    EXPECT_EQ(counts.ok, 20);
    EXPECT_EQ(counts.errors, 0);

    // Independent recount: tokenizer ids and tree-sitter nodes of each snippet.
    int64_t tokens = 0, nodes = 0, windowed = 0;
    for (int i = 0; i < 20; ++i) {
        const auto& code = s_corpus->entries[static_cast<std::size_t>(i)].code;
        const auto n = static_cast<int64_t>(s_model->tokenizer().encode(code).ids.size());
        tokens += n;
        nodes += static_cast<int64_t>(SyntaxTree::parse("python", code).nodes().size());
        windowed += n > s_model->info().contextLength ? 1 : 0;
    }
    EXPECT_EQ(counts.tokens, tokens);
    EXPECT_EQ(counts.nodes, nodes);
    EXPECT_EQ(s_summary.tokens, tokens);
    // The tiny model has a 128-token context: long snippets are scored in windows and marked so.
    EXPECT_EQ(counts.windowed, windowed);
    EXPECT_GT(windowed, 0);
    EXPECT_EQ(s_summary.windowed, windowed);

    // Per-snippet features agree with the token/node tables.
    const auto perSnippet = dump(db, "SELECT s.idx FROM snippets s WHERE s.tokens != (SELECT COUNT(*) FROM tokens t "
                                     "WHERE t.snippet = s.idx) OR s.ast_nodes != (SELECT COUNT(*) FROM nodes n WHERE "
                                     "n.snippet = s.idx)");
    EXPECT_TRUE(perSnippet.empty());
    // Every token but the first of each snippet (no BOS for gpt2) has an NtP in (0, 1].
    const auto nulls = dump(db, "SELECT COUNT(*) FROM tokens WHERE ntp IS NULL");
    EXPECT_EQ(nulls[0], "20\x1f");
    const auto range = dump(db, "SELECT COUNT(*) FROM tokens WHERE ntp <= 0 OR ntp > 1");
    EXPECT_EQ(range[0], "0\x1f");

    const auto run = db.runInfo();
    EXPECT_EQ(run.modelName, "tiny-gpt2");
    EXPECT_EQ(run.status, RunStatus::Complete);
    EXPECT_EQ(run.planned, 20);
    EXPECT_EQ(run.corpusEntries, 600);
    EXPECT_EQ(run.aggregation, Aggregation::Median);
    EXPECT_EQ(run.corpusFingerprint, s_corpus->fingerprint());
    EXPECT_FALSE(run.created.empty());
}

TEST_F(BatchRun, CancelledThenResumedEqualsUninterrupted)
{
    const fs::path p = tempDir() / "resumed.db";
    std::atomic<bool> cancel{false};
    // One by one, like s_full: the rows must be equal exactly, and a pack's float sums depend on its texts.
    BatchOptions opts;
    opts.limit = 20;
    opts.batchSize = 1;
    opts.cancel = &cancel;
    int lastDone = 0;
    opts.progress = [&](const BatchProgress& pr) {
        lastDone = pr.done;
        if (pr.done >= 7)
            cancel = true;
    };
    const auto first = runBatch(*s_model, *s_corpus, p, opts);
    EXPECT_TRUE(first.cancelled);
    EXPECT_FALSE(first.complete);
    EXPECT_EQ(first.stored, 7);
    {
        const auto db = ResultsDb::open(p);
        EXPECT_EQ(db.counts().snippets, 7);
        EXPECT_EQ(db.runInfo().status, RunStatus::Cancelled);
    }
    // Creating it again without resume is refused.
    BatchOptions fresh;
    fresh.limit = 20;
    EXPECT_THROW(runBatch(*s_model, *s_corpus, p, fresh), InputError);

    cancel = false;
    BatchOptions res;
    res.limit = 20;
    res.batchSize = 1;
    res.resume = true;
    BatchProgress firstProgress;
    bool gotFirst = false;
    res.progress = [&](const BatchProgress& pr) {
        if (!gotFirst) {
            firstProgress = pr;
            gotFirst = true;
        }
    };
    const auto second = runBatch(*s_model, *s_corpus, p, res);
    EXPECT_EQ(second.resumed, 7);
    EXPECT_EQ(second.stored, 13);
    EXPECT_TRUE(second.complete);
    ASSERT_TRUE(gotFirst);
    EXPECT_EQ(firstProgress.done, 7);
    EXPECT_EQ(firstProgress.total, 20);

    const auto a = content(s_full), b = content(p);
    EXPECT_EQ(a.snippets, b.snippets);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(ResultsDb::open(p).runInfo().status, RunStatus::Complete);

    // Resuming a complete run does nothing.
    const auto third = runBatch(*s_model, *s_corpus, p, res);
    EXPECT_EQ(third.stored, 0);
    EXPECT_EQ(third.resumed, 20);
    EXPECT_EQ(content(p).tokens, a.tokens);
}

TEST_F(BatchRun, ResumeRefusesAnotherCorpusOrModelOrAggregation)
{
    const fs::path p = tempDir() / "mismatch.db";
    BatchOptions opts;
    opts.limit = 2;
    runBatch(*s_model, *s_corpus, p, opts);

    BatchOptions res = opts;
    res.resume = true;
    Corpus other = *s_corpus;
    other.entries[0].code += "\n# changed\n";
    try {
        runBatch(*s_model, other, p, res);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("corpus"), std::string::npos) << e.what();
    }
    res.aggregation = Aggregation::Mean;
    try {
        runBatch(*s_model, *s_corpus, p, res);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("aggregation"), std::string::npos) << e.what();
    }
    LoadOptions o;
    o.device = ascviz::Device::Cpu;
    const auto neo = LanguageModel::load(dataDir() / "fixtures" / "models" / "tiny-gpt_neo", o);
    res.aggregation = Aggregation::Median;
    try {
        runBatch(*neo, *s_corpus, p, res);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("model"), std::string::npos) << e.what();
    }
    EXPECT_EQ(ResultsDb::open(p).counts().snippets, 2);
}

TEST_F(BatchRun, ReportNumbersEqualARecomputationFromTheDb)
{
    const auto db = ResultsDb::open(s_full);
    const auto stats = computeStats(db);
    // Recompute from raw SQL by the Table I rules: pool node values per type; categories by the bundled
    // table (by type); category = mean of its concepts' medians; global = mean over categorized concepts.
    const CategoryMap table = CategoryMap::forLanguage("python");
    std::map<std::string, std::vector<double>> byType;
    testdata::query(
        db,
        "SELECT n.type, n.asc_eval FROM nodes n JOIN snippets s ON s.idx = n.snippet "
        "WHERE s.status = 'ok' AND n.asc_eval IS NOT NULL ORDER BY n.snippet, n.node",
        [&](const std::vector<std::optional<std::string>>& c) { byType[*c[0]].push_back(std::stod(*c[1])); });
    ASSERT_FALSE(byType.empty());
    ASSERT_EQ(stats.concepts.size(), byType.size());
    double categorizedSum = 0;
    int categorized = 0;
    std::map<std::string, std::vector<double>> conceptMediansByCat;
    for (const auto& [type, vals] : byType) {
        const auto r = bootstrapMedian(vals, {500, groupSeed(BootstrapOptions{}.seed, type)});
        const auto& s = stats.concepts.at(type);
        EXPECT_NEAR(s.median, r.median, 1e-12) << type;
        EXPECT_NEAR(s.se, r.se, 1e-12) << type;
        EXPECT_NEAR(s.lo, r.lo, 1e-12) << type;
        EXPECT_NEAR(s.hi, r.hi, 1e-12) << type;
        EXPECT_EQ(s.n, static_cast<int64_t>(vals.size()));
        if (auto cat = table.categoryOf(type)) {
            categorizedSum += r.median;
            ++categorized;
            conceptMediansByCat[*cat].push_back(r.median);
        }
    }
    ASSERT_GT(categorized, 0);
    ASSERT_TRUE(stats.globalAscEval);
    EXPECT_NEAR(*stats.globalAscEval, categorizedSum / categorized, 1e-12);
    ASSERT_EQ(stats.categories.size(), conceptMediansByCat.size());
    for (const auto& [cat, medians] : conceptMediansByCat) {
        double sum = 0;
        for (double m : medians)
            sum += m;
        EXPECT_NEAR(stats.categories.at(cat).median, sum / static_cast<double>(medians.size()), 1e-12) << cat;
    }
    EXPECT_TRUE(stats.categories.count("Natural Language"));
    EXPECT_EQ(stats.snippetAscEval.size(), 20u);

    // The JSON report carries the same numbers.
    const auto j = statsToJson(stats);
    EXPECT_EQ(j["snippets"].get<int>(), 20);
    EXPECT_NEAR(j["global_asc_eval"].get<double>(), *stats.globalAscEval, 1e-12);
    EXPECT_NEAR(j["concepts"]["identifier"]["median"].get<double>(), stats.concepts.at("identifier").median, 1e-12);

    // CSV export: one row per concept / category / snippet plus a header.
    const auto files = writeCsvReport(stats, db, tempDir() / "csv");
    ASSERT_EQ(files.size(), 4u);
    auto lines = [](const fs::path& f) {
        std::ifstream in(f);
        std::string l;
        std::size_t n = 0;
        while (std::getline(in, l))
            ++n;
        return n;
    };
    EXPECT_EQ(lines(files[0]), stats.concepts.size() + 1);
    EXPECT_EQ(lines(files[1]), stats.categories.size() + 1);
    // languages.csv: per language, one global row + one row per category and per concept (one language here).
    ASSERT_EQ(stats.languages.size(), 1u);
    EXPECT_EQ(lines(files[2]), 1 + 1 + stats.languages[0].categories.size() + stats.languages[0].concepts.size());
    EXPECT_GE(lines(files[3]), 21u); // codes are not in snippets.csv, ids are single-line
    // One language: its Table I equals the whole run's.
    EXPECT_FALSE(stats.mixedLanguages);
    EXPECT_NEAR(*stats.languages[0].globalAscEval, *stats.globalAscEval, 1e-12);
    EXPECT_EQ(j["languages"].size(), 1u);
}

TEST_F(BatchRun, PromptPrefixMarksGeneratedTokens)
{
    Corpus c;
    c.source = "mem";
    CorpusEntry e;
    e.id = "p1";
    e.code = "def add(a, b):\n    return a + b\n";
    e.prompt = "def add(a, b):\n";
    e.location = "mem:1";
    c.entries.push_back(e);
    CorpusEntry e2 = e;
    e2.id = "p2";
    e2.prompt = "something else";
    e2.location = "mem:2";
    c.entries.push_back(e2);
    const fs::path p = tempDir() / "prompt.db";
    runBatch(*s_model, c, p, {});
    const auto db = ResultsDb::open(p);
    const auto rows = db.snippets();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].promptBytes, e.prompt->size());
    EXPECT_EQ(rows[1].promptBytes, e2.code.size());
    EXPECT_NE(rows[1].message.find("not a prefix"), std::string::npos);
    const auto wrong = dump(db, "SELECT COUNT(*) FROM tokens WHERE snippet = 0 AND generated != (start_byte >= " +
                                    std::to_string(e.prompt->size()) + ")");
    EXPECT_EQ(wrong[0], "0\x1f");
    const auto gen = dump(db, "SELECT COUNT(*) FROM tokens WHERE snippet = 0 AND generated = 1");
    EXPECT_NE(gen[0], "0\x1f");
    const auto gen2 = dump(db, "SELECT COUNT(*) FROM tokens WHERE snippet = 1 AND generated = 1");
    EXPECT_EQ(gen2[0], "0\x1f");
}

namespace {

// The token rows of two results databases are the same (ids, spans) with NtP equal within 1e-4.
void expectSameTokenRows(const fs::path& a_, const fs::path& b_)
{
    const auto a = content(a_), b = content(b_);
    EXPECT_EQ(a.nodes.size(), b.nodes.size());
    ASSERT_EQ(a.tokens.size(), b.tokens.size());
    const auto da = ResultsDb::open(a_), db = ResultsDb::open(b_);
    std::vector<std::pair<std::string, double>> ta, tb;
    auto collect = [](const ResultsDb& d, std::vector<std::pair<std::string, double>>& out) {
        testdata::query(d, "SELECT snippet, idx, id, start_byte, end_byte, ntp FROM tokens ORDER BY snippet, idx",
                        [&](const std::vector<std::optional<std::string>>& c) {
                            out.emplace_back(*c[0] + "/" + *c[1] + "/" + *c[2] + "/" + *c[3] + "/" + *c[4],
                                             c[5] ? std::stod(*c[5]) : -1.0);
                        });
    };
    collect(da, ta);
    collect(db, tb);
    ASSERT_EQ(ta.size(), tb.size());
    for (std::size_t i = 0; i < ta.size(); ++i) {
        ASSERT_EQ(ta[i].first, tb[i].first);
        ASSERT_NEAR(ta[i].second, tb[i].second, 1e-4) << ta[i].first;
    }
}

} // namespace

// Scoring ahead on its own thread while this one parses and stores (a model that leaves a core free: one CPU
// thread on a machine with more cores) stores the same rows as taking turns (s_model uses every core), with
// groups of three so that groups end inside the run.
TEST_F(BatchRun, ScoringAheadStoresTheSameRows)
{
    LoadOptions o;
    o.device = ascviz::Device::Cpu;
    o.threads = 1;
    const auto one = LanguageModel::load(dataDir() / "fixtures" / "models" / "tiny-gpt2", o);
    EXPECT_EQ(one->info().threads, 1);
    const fs::path p = tempDir() / "ahead.db";
    BatchOptions opts;
    opts.limit = 20;
    opts.batchSize = 3;
    int calls = 0, last = -1;
    bool ordered = true;
    opts.progress = [&](const BatchProgress& pr) {
        ordered = ordered && pr.done >= last;
        last = pr.done;
        ++calls;
    };
    const auto sum = runBatch(*one, *s_corpus, p, opts);
    EXPECT_EQ(sum.stored, 20);
    EXPECT_TRUE(sum.complete);
    EXPECT_TRUE(ordered);
    EXPECT_EQ(calls, 21); // once at the start, then once per stored snippet
    expectSameTokenRows(s_full, p);
}

// Batched scoring (scoreBatch, --batch-size) stores the same rows as one-by-one scoring; NtP equal within
// float tolerance (packing or padding may change the order of float operations).
TEST_F(BatchRun, BatchedScoringStoresTheSameRows)
{
    const fs::path p = tempDir() / "batched.db";
    BatchOptions opts;
    opts.limit = 20;
    opts.batchSize = 4;
    const auto sum = runBatch(*s_model, *s_corpus, p, opts);
    EXPECT_EQ(sum.stored, 20);
    expectSameTokenRows(s_full, p);
}

// Issue 54: NaN weights made every NtP null while batch stored the snippets as "ok" and reported "0 errors". A
// forward pass that diverges is an error for that snippet, stored as one.
TEST(BatchDiverging, NonFiniteForwardPassesAreStoredAsErrors)
{
    const fs::path model = tempDir() / "nan-gpt2";
    fs::create_directories(model);
    for (const auto& e : fs::directory_iterator(dataDir() / "fixtures" / "models" / "tiny-gpt2"))
        fs::copy_file(e.path(), model / e.path().filename(), fs::copy_options::overwrite_existing);
    std::string bytes;
    {
        std::ifstream in(model / "model.safetensors", std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i)
        headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
    const auto header = nlohmann::json::parse(bytes.substr(8, headerLen));
    const auto& w = header.at("transformer.ln_f.weight");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(bytes.data() + 8 + headerLen + w.at("data_offsets").at(0).get<std::size_t>(), &nan, sizeof nan);
    std::ofstream(model / "model.safetensors", std::ios::binary | std::ios::trunc) << bytes;

    LoadOptions o;
    o.device = ascviz::Device::Cpu;
    const auto m = LanguageModel::load(model, o);
    const Corpus corpus = readCorpus(resources() / "corpus" / "stdlib-functions.jsonl");
    BatchOptions opts;
    opts.limit = 3;
    const fs::path db = tempDir() / "nan.db";
    const BatchSummary s = runBatch(*m, corpus, db, opts);
    EXPECT_EQ(s.stored, 3);
    EXPECT_EQ(s.errors, 3) << "a NaN forward pass was stored as ok";
    for (const auto& row : ResultsDb::open(db).snippets()) {
        EXPECT_FALSE(row.ok) << row.id;
        EXPECT_NE(row.message.find("non-finite"), std::string::npos) << row.message;
    }
}
