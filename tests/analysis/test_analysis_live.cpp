// Live conformance of AsC-Causal: the same results database analysed by AsC-Viz and by statsmodels
// (tests/live/causal_reference.py, reading the SQLite file on its own) agree: ρ to 1e-9, the OLS effect of T,
// its standard error and its 95 % interval to 1e-9 × max(1, |effect|) (the tiny fixture model's effects are in
// the thousands: its AsC-Eval values are near 0), globally and for three concepts.
#include "testdata.h"

#include "ascviz/analysis/causal.h"
#include "ascviz/batch/batch.h"
#include "ascviz/results/corpus.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ascviz;

#ifndef ASCVIZ_LIVE_PYTHON
#define ASCVIZ_LIVE_PYTHON ""
#endif
#ifndef ASCVIZ_CAUSAL_REFERENCE
#define ASCVIZ_CAUSAL_REFERENCE ""
#endif

TEST(CausalLive, MatchesStatsmodelsOnTheSameDatabase)
{
    const fs::path dir = fs::temp_directory_path() / ("ascviz-causal-live-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    struct Cleanup {
        fs::path d;
        ~Cleanup()
        {
            std::error_code ec;
            fs::remove_all(d, ec);
        }
    } cleanup{dir};

    // 60 functions of the sample corpus scored by the tiny fixture model.
    Corpus corpus = readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
    auto model = LanguageModel::load((testdata::dataDir() / "fixtures" / "models" / "tiny-gpt2").string());
    BatchOptions bo;
    bo.limit = 60;
    const fs::path db = dir / "r.db";
    runBatch(*model, corpus, db, bo);

    const std::vector<std::string> concepts = {"identifier", "return_statement", "if_statement"};
    std::string cmd = std::string("'") + ASCVIZ_LIVE_PYTHON + "' '" + ASCVIZ_CAUSAL_REFERENCE + "' '" + db.string() +
                      "' '" + (dir / "ref.json").string() + "'";
    for (const auto& c : concepts)
        cmd += " " + c;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(dir / "ref.json");
    const auto ref = nlohmann::json::parse(in);

    const auto dbh = ResultsDb::open(db);
    const CausalReport global = analyzeCausal(dbh, CausalBy::Global);
    const CausalReport byConcept = analyzeCausal(dbh, CausalBy::Concept);
    double maxEffect = 0, maxSe = 0, maxRho = 0;
    auto check = [&](const CausalEstimate& e, const nlohmann::json& r, const std::string& what) {
        ASSERT_TRUE(e.hasEffect) << what << ": " << e.note;
        EXPECT_EQ(e.n, r["n"].get<int>()) << what;
        EXPECT_NEAR(*e.rhoOutcome, r["rho"]["treatment"].get<double>(), 1e-9) << what;
        for (const auto& [name, v] : e.rhoConfounders) {
            if (r["rho"][name].is_null())
                EXPECT_FALSE(v.has_value()) << what << " " << name;
            else
                EXPECT_NEAR(*v, r["rho"][name].get<double>(), 1e-9) << what << " " << name;
        }
        const double scale = std::max(1.0, std::fabs(r["ate"]["estimate"].get<double>()));
        maxEffect = std::max(maxEffect, std::fabs(e.effect - r["ate"]["estimate"].get<double>()) / scale);
        maxSe = std::max(maxSe, std::fabs(e.se - r["ate"]["se"].get<double>()) / scale);
        maxRho = std::max(maxRho, std::fabs(*e.rhoOutcome - r["rho"]["treatment"].get<double>()));
        EXPECT_NEAR(e.effect, r["ate"]["estimate"].get<double>(), 1e-9 * scale) << what;
        EXPECT_NEAR(e.se, r["ate"]["se"].get<double>(), 1e-9 * scale) << what;
        EXPECT_NEAR(e.lo, r["ate"]["ci95"][0].get<double>(), 1e-9 * scale) << what;
        EXPECT_NEAR(e.hi, r["ate"]["ci95"][1].get<double>(), 1e-9 * scale) << what;
        ASSERT_TRUE(e.placebo.has_value());
        EXPECT_LT(std::fabs(*e.placebo), std::fabs(e.effect) + 4 * e.se) << what; // placebo within noise
    };
    check(global.global, ref["global"], "global");
    for (const auto& c : concepts) {
        ASSERT_TRUE(byConcept.groups.count(c)) << c;
        check(byConcept.groups.at(c), ref["by"][c], c);
    }
    std::printf("causal conformance (statsmodels %s): %zu analyses of %d snippets, max |d effect| %.2e, max |d se| "
                "%.2e (relative to max(1, |effect|)), max |d rho| %.2e\n",
                ref["statsmodels"].get<std::string>().c_str(), concepts.size() + 1, global.global.n, maxEffect, maxSe,
                maxRho);
}

#ifndef ASCVIZ_DOWHY_REFERENCE
#define ASCVIZ_DOWHY_REFERENCE ""
#endif

// DoWhy's own refuters (tests/live/dowhy_reference.py: placebo "permute", random_common_cause, data_subset 0.8)
// on the data frame of `analyze causal` (global), with the same number of simulations (the default, 100): the
// mean new effects agree within Monte-Carlo tolerance (4 standard errors of a difference of two means of N
// draws, taking the effect's OLS se as the spread of one draw: a bound for all three refuters), and each
// p-value falls on the same side of 0.05. DoWhy's bootstrap refuter has no counterpart here.
TEST(CausalLive, RefutersAgreeWithDoWhy)
{
    const testdata::TempDir dir("causal-dowhy-live");
    Corpus corpus = readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
    auto model = LanguageModel::load((testdata::dataDir() / "fixtures" / "models" / "tiny-gpt2").string());
    BatchOptions bo;
    bo.limit = 60;
    const fs::path db = dir / "r.db";
    runBatch(*model, corpus, db, bo);

    const CausalOptions opts; // analyze causal's defaults
    const std::string cmd = std::string("'") + ASCVIZ_LIVE_PYTHON + "' '" + ASCVIZ_DOWHY_REFERENCE + "' '" +
                            db.string() + "' '" + (dir / "dowhy.json").string() + "' " +
                            std::to_string(opts.simulations) + " 7";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(dir / "dowhy.json");
    const auto ref = nlohmann::json::parse(in);
    EXPECT_EQ(ref["dowhy"].get<std::string>(), "0.14");

    const CausalEstimate e = analyzeCausal(ResultsDb::open(db), CausalBy::Global, opts).global;
    ASSERT_TRUE(e.hasEffect) << e.note;
    EXPECT_EQ(e.n, ref["n"].get<int>());
    EXPECT_NEAR(e.effect, ref["estimate"].get<double>(), 1e-9 * std::max(1.0, std::fabs(e.effect)));
    ASSERT_EQ(e.refutations.size(), 3u);
    const double tol = 4 * std::sqrt(2.0) * e.se / std::sqrt(double(opts.simulations));
    for (const auto& r : e.refutations) {
        const auto& d = ref["refutations"][r.name];
        ASSERT_TRUE(r.p.has_value()) << r.name;
        EXPECT_EQ(r.simulations, opts.simulations) << r.name;
        EXPECT_NEAR(r.newEffect, d["new_effect"].get<double>(), tol) << r.name;
        EXPECT_EQ(*r.p > 0.05, d["p_value"].get<double>() > 0.05)
            << r.name << ": ours " << *r.p << ", DoWhy's " << d["p_value"].get<double>();
        std::printf("%s: new effect %.6g (DoWhy %.6g, tolerance %.3g), p %.3f (DoWhy %.3f)\n", r.name.c_str(),
                    r.newEffect, d["new_effect"].get<double>(), tol, *r.p, d["p_value"].get<double>());
    }
}
