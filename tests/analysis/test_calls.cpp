// PERPLEXED's Table 1 by repository (calls.h, method.md §10) on a 3-file repository counted by hand, the
// whitespace label, Spearman's ρ, and repository-aware corpora (repo/path fields, source, a folder).
#include "ascviz/analysis/calls.h"
#include "ascviz/analysis/perplexed.h"
#include "ascviz/analysis/rank.h"
#include "ascviz/eval/eval.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace fs = std::filesystem;
using namespace ascviz;

namespace {

// Tokens separated by '|'; token k gets CE ces[k] (NtP = e^-CE).
ScoredText scoredBars(const std::string& bars, const std::vector<double>& ces, std::string* code)
{
    ScoredText s;
    s.model = "hand-made";
    std::size_t k = 0, i = 0;
    while (i <= bars.size()) {
        std::size_t j = bars.find('|', i);
        if (j == std::string::npos)
            j = bars.size();
        ScoredToken t;
        t.id = static_cast<int>(k);
        t.start = s.text.size();
        s.text.append(bars, i, j - i);
        t.end = s.text.size();
        t.ntp = std::exp(-ces.at(k));
        s.tokens.push_back(t);
        ++k;
        i = j + 1;
    }
    EXPECT_EQ(k, ces.size()) << bars;
    s.promptBytes = s.text.size();
    s.promptTokens = s.tokens.size();
    *code = s.text;
    return s;
}

void writeBars(ResultsDb& db, int64_t idx, const std::string& id, const std::string& bars,
               const std::vector<double>& ces)
{
    std::string code;
    const EvalResult r =
        evaluate(scoredBars(bars, ces, &code), "python", Aggregation::Median, CategoryMap::forLanguage("python"));
    SnippetMeta m;
    m.index = idx;
    m.id = id;
    m.code = code;
    m.promptBytes = code.size();
    m.language = "python";
    db.writeSnippet(m, &r);
}

const char* kA = "def helper(x):\n    return x\n";
const char* kB =
    "def| run|(|v|):|\n   | return| helper|(|v|)| +| local|(|v|)| +| len|(|v|)|\n\n|def| local|(|w|):|\n   | "
    "return| w|\n";
const char* kC = "def| go|(|q|):|\n   | print|(|q|)|\n   | return| helper|(|run|(|q|),| 7|)|\n";

} // namespace

TEST(CallTable, ThreeFileRepositoryCountedByHand)
{
    testdata::TempDir dir("calls");
    std::string codeB, codeC;
    // b.py: helper (declared in a.py) internal; local (declared only in b.py itself) external; len builtin.
    const std::vector<double> ceB = {1, 1,  1,  1,  1,  1, 1, 10, 11, 12, 13, 1, 20, 21, 22, 23,
                                     1, 30, 30, 30, 30, 1, 1, 1,  1,  1,  1,  1, 1,  1,  1};
    // c.py: print builtin; helper(run(q), 7) and the nested run(q) internal (run is declared in b.py).
    const std::vector<double> ceC = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1};
    {
        auto db = ResultsDb::create(dir / "r.db", [] {
            RunInfo r;
            r.modelName = "hand-made";
            r.modelDir = "/nowhere";
            r.corpusPath = "/nowhere/corpus.jsonl";
            r.corpusFingerprint = "0";
            r.language = "python";
            return r;
        }());
        writeBars(db, 0, "b", kB, ceB);
        writeBars(db, 1, "c", kC, ceC);
        writeBars(db, 2, "d", "x| =| f|(|1|)|\n", {1, 1, 1, 1, 1, 1, 1}); // no repository: not counted
    }
    scoredBars(kB, ceB, &codeB);
    scoredBars(kC, ceC, &codeC);
    CallRepository repo;
    repo.add("a", {"r", "a.py"}, "python", kA); // a.py is a source of declarations only (not evaluated)
    repo.add("b", {"r", "b.py"}, "python", codeB);
    repo.add("c", {"r", "c.py"}, "python", codeC);
    repo.add("x", {"other", "z.py"}, "python", "def local(y):\n    return y\n"); // another repository
    EXPECT_TRUE(repo.declaredElsewhere({"r", "c.py"}, "helper"));
    EXPECT_FALSE(repo.declaredElsewhere({"r", "b.py"}, "local")); // only in b.py itself
    EXPECT_FALSE(repo.declaredElsewhere({"r", "a.py"}, "helper"));

    const auto db = ResultsDb::open(dir / "r.db");
    PerplexedOptions o;
    o.minCount = 1;
    o.top = 100;
    o.repository = &repo;
    const PerplexedReport r = analyzePerplexed(db, o);
    ASSERT_TRUE(r.callTable.has_value());
    const CallTable& t = *r.callTable;
    EXPECT_EQ(t.internal.calls, 3); // helper (b), helper (c), run (c)
    EXPECT_EQ(t.external.calls, 1); // local (b)
    EXPECT_EQ(t.builtinCalls, 2);   // len, print
    EXPECT_EQ(t.unplacedSnippets, 1);
    EXPECT_EQ(t.repositories, 2u);
    auto row = [&](const std::string& node, bool internal) -> const CeStat* {
        for (const auto& x : t.rows)
            if (x.node == node && x.internal == internal)
                return &x.ce;
        return nullptr;
    };
    // Internal: names {2, 4, 10}; "(" {3, 5, 11}; ")" {7 (run's "),"), 9, 13}; q, v {6, 12}; 7 {8}. The
    // nested run(q) is not counted again in helper's argument list; "),"'s first byte is run's ")".
    struct Want {
        const char* node;
        int count;
        double mean;
    };
    for (const Want& w : {Want{"call -> identifier", 3, 16.0 / 3}, Want{"argument_list -> (", 3, 19.0 / 3},
                          Want{"argument_list -> )", 3, 29.0 / 3}, Want{"argument_list -> identifier", 2, 9.0},
                          Want{"argument_list -> integer", 1, 8.0}}) {
        const CeStat* s = row(w.node, true);
        ASSERT_NE(s, nullptr) << w.node;
        EXPECT_EQ(s->count, w.count) << w.node;
        EXPECT_NEAR(s->mean, w.mean, 1e-9) << w.node;
    }
    EXPECT_NEAR(row("call -> identifier", true)->std, std::sqrt(52.0 / 3), 1e-9); // sample std of 2, 4, 10
    for (const Want& w : {Want{"call -> identifier", 1, 20}, Want{"argument_list -> (", 1, 21},
                          Want{"argument_list -> identifier", 1, 22}, Want{"argument_list -> )", 1, 23}}) {
        const CeStat* s = row(w.node, false);
        ASSERT_NE(s, nullptr) << w.node;
        EXPECT_EQ(s->count, w.count) << w.node;
        EXPECT_NEAR(s->mean, w.mean, 1e-9) << w.node;
    }
    EXPECT_EQ(t.rows.size(), 9u);
    EXPECT_EQ(t.rows.front().node, "call -> identifier"); // the method name first, internal first
    EXPECT_TRUE(t.rows.front().internal);
    // Summary rows: the unweighted mean of the row means (16/3, 19/3, 29/3, 9, 8 -> 23/3) and their
    // population std (sqrt(118/45)); external: 20..23 -> 21.5, sqrt(1.25).
    EXPECT_EQ(t.internal.rows, 5);
    EXPECT_EQ(t.internal.tokens, 12);
    EXPECT_NEAR(t.internal.mean, 23.0 / 3, 1e-9);
    EXPECT_NEAR(t.internal.std, std::sqrt(118.0 / 45), 1e-9);
    EXPECT_NEAR(t.external.mean, 21.5, 1e-9);
    EXPECT_NEAR(t.external.std, std::sqrt(1.25), 1e-9);
    const auto j = perplexedToJson(r);
    EXPECT_EQ(j["call_table"]["summary"]["internal"]["calls"], 3);
    EXPECT_EQ(j["call_table"]["rows"].size(), 9u);

    // Whitespace-only tokens are labelled `whitespace` (b: 4, c: 3, d: 1), never the statement they indent.
    bool sawWhitespace = false;
    for (const auto& [label, s] : r.worstLabels) {
        EXPECT_EQ(label.find("block"), std::string::npos) << label;
        if (label == "whitespace") {
            sawWhitespace = true;
            EXPECT_EQ(s.count, 8);
            EXPECT_NEAR(s.mean, 1.0, 1e-9);
        }
    }
    EXPECT_TRUE(sawWhitespace);
    // The unfiltered top 10: " len" (CE 30, seen once) is among the worst tokens whatever --min-count.
    ASSERT_FALSE(r.worstTokensAll.empty());
    EXPECT_EQ(r.worstTokensAll.front().first, " len");
    EXPECT_EQ(r.worstTokensAll.front().second.count, 1);
    EXPECT_LE(r.worstTokensAll.size(), 10u);
    EXPECT_TRUE(r.spearmanTokens.has_value());

    // Without a repository: no table, the snippet-level counts unchanged.
    o.repository = nullptr;
    EXPECT_FALSE(analyzePerplexed(db, o).callTable.has_value());
}

// The paper's leaf rule (method.md §10): Table 1's rows are leaf labels whose parent is the call or its
// argument list. obj.helper(...) names helper inside an attribute node: no name row (the call still counts,
// and its argument list does); the argument subtrees o + 1, k=2 and [1] are no rows; "s" is one string leaf.
TEST(CallTable, PaperLeafRuleCountedByHand)
{
    // token k has CE k
    const std::string bars = "def| go|(|o|):|\n   | o|.|helper|(|o| +| 1|,| \"s\"|,| k|=|2|)|\n   | helper|(|[|1|]|,| "
                             "True|)|\n";
    std::string code;
    std::vector<CeToken> tokens;
    std::size_t i = 0;
    while (i <= bars.size()) {
        std::size_t j = bars.find('|', i);
        if (j == std::string::npos)
            j = bars.size();
        CeToken t;
        t.start = code.size();
        code.append(bars, i, j - i);
        t.end = code.size();
        t.ce = double(tokens.size());
        tokens.push_back(t);
        i = j + 1;
    }
    ASSERT_EQ(tokens.size(), 30u);
    CallRepository repo;
    repo.add("a", {"r", "a.py"}, "python", "def helper(x):\n    return x\n");
    repo.add("b", {"r", "b.py"}, "python", code);
    const LanguageInfo& py = LanguageRegistry::instance().get("python");
    CallTableBuilder b(repo);
    b.addSnippet("b", py, SyntaxTree::parse("python", code), tokens);
    const CallTable t = b.finish();
    EXPECT_EQ(t.internal.calls, 2);
    struct Want {
        const char* node;
        int count;
        double mean;
    };
    const std::vector<Want> want = {{"call -> identifier", 1, 21},      {"argument_list -> (", 2, 15.5},
                                    {"argument_list -> )", 2, 23.5},    {"argument_list -> ,", 3, 18},
                                    {"argument_list -> string", 1, 14}, {"argument_list -> true", 1, 27}};
    ASSERT_EQ(t.rows.size(), want.size());
    for (const Want& w : want) {
        const auto it =
            std::find_if(t.rows.begin(), t.rows.end(), [&](const CallTableRow& r) { return r.node == w.node; });
        ASSERT_NE(it, t.rows.end()) << w.node;
        EXPECT_TRUE(it->internal) << w.node;
        EXPECT_EQ(it->ce.count, w.count) << w.node;
        EXPECT_NEAR(it->ce.mean, w.mean, 1e-12) << w.node;
    }
    EXPECT_EQ(t.internal.tokens, 10);
    EXPECT_NEAR(t.internal.mean, 119.0 / 6, 1e-12);
}

TEST(Rank, AverageRanksAndSpearmanByHand)
{
    EXPECT_EQ(averageRanks({10, 30, 20, 30}), (std::vector<double>{1, 3.5, 2, 3.5}));
    // d = (0, 0, 1, 1): 1 - 6 * 2 / (4 * 15) = 0.8.
    EXPECT_NEAR(*spearman({1, 2, 3, 4}, {10, 20, 40, 30}), 0.8, 1e-12);
    EXPECT_NEAR(*spearman({1, 2, 3}, {9, 4, 1}), -1.0, 1e-12);
    EXPECT_FALSE(spearman({1, 1, 1}, {1, 2, 3}).has_value());
    EXPECT_THROW(spearman({1, 2}, {1}), std::invalid_argument);
}

TEST(RepositoryCorpus, RepoAndPathFromFieldsSourceOrFolder)
{
    const Corpus c = parseJsonLines(R"({"id": "1", "code": "x = 1\n", "repo": "proj", "path": "pkg/a.py"})"
                                    "\n"
                                    R"({"id": "2", "code": "y = 2\n", "source": "cpython-3.11/Lib/os.py::walk"})"
                                    "\n"
                                    R"({"id": "3", "code": "z = 3\n"})"
                                    "\n"
                                    R"({"id": "4", "code": "w = 4\n", "repo": 7})"
                                    "\n",
                                    "mem.jsonl");
    ASSERT_EQ(c.entries.size(), 3u);
    EXPECT_EQ(c.entries[0].repo, "proj");
    EXPECT_EQ(c.entries[0].path, "pkg/a.py");
    EXPECT_EQ(c.entries[1].repo, "cpython-3.11");
    EXPECT_EQ(c.entries[1].path, "Lib/os.py");
    EXPECT_TRUE(c.entries[2].repo.empty());
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_NE(c.issues[0].message.find("\"repo\" must be a string"), std::string::npos);
    EXPECT_EQ(c.issues[0].location, "mem.jsonl:4");

    const Corpus csv = parseCsv("id,code,repo,path\n1,x = 1,proj,a.py\n", "mem.csv");
    ASSERT_EQ(csv.entries.size(), 1u);
    EXPECT_EQ(csv.entries[0].repo, "proj");
    EXPECT_EQ(csv.entries[0].path, "a.py");

    testdata::TempDir dir("repocorpus");
    fs::create_directories(dir / "myrepo" / "pkg");
    std::ofstream(dir / "myrepo" / "pkg" / "m.py") << "def f():\n    return g()\n";
    std::ofstream(dir / "myrepo" / "n.py") << "def g():\n    return 1\n";
    const Corpus folder = readCorpus(dir / "myrepo", {{".py"}, "python"});
    ASSERT_EQ(folder.entries.size(), 2u);
    EXPECT_EQ(folder.entries[0].repo, "myrepo");
    EXPECT_EQ(folder.entries[0].path, "n.py");
    EXPECT_EQ(folder.entries[1].path, "pkg/m.py");
    const CallRepository repo = CallRepository::fromCorpus(folder);
    EXPECT_TRUE(repo.declaredElsewhere({"myrepo", "pkg/m.py"}, "g"));
    EXPECT_FALSE(repo.declaredElsewhere({"myrepo", "n.py"}, "g"));
}
