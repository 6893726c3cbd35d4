// Treatment effects: the ATE by OLS against hand-computed values, over a runs database.
#include "ascviz/base/error.h"
#include "ascviz/galeras/effects.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ascviz;

TEST(GalerasEffects, AteHandComputed)
{
    // no confounder: the ATE is the difference of means (4 - 2); residuals -1,0,1 twice: RSS 4, df 4,
    // sigma² 1, se = sqrt(1/3 + 1/3); t(0.975, 4) = 2.7764451051977934
    const std::vector<double> d = {0, 0, 0, 1, 1, 1}, y = {1, 2, 3, 3, 4, 5};
    RefuteOptions o;
    o.simulations = 20;
    const auto e = estimateTreatment(d, y, {}, {}, o);
    ASSERT_TRUE(e.hasEffect);
    EXPECT_NEAR(e.ate, 2.0, 1e-12);
    EXPECT_NEAR(e.se, std::sqrt(2.0 / 3.0), 1e-12);
    EXPECT_NEAR(e.lo, -0.2669579355275191, 1e-9);
    EXPECT_NEAR(e.hi, 4.266957935527519, 1e-9);
    EXPECT_EQ(e.n, 6);
    EXPECT_EQ(e.nTreated, 3);
    ASSERT_EQ(e.refutations.size(), 3u);
}

TEST(GalerasEffects, OverARunsDatabase)
{
    const testdata::TempDir dir("galeras-effects");
    const auto path = dir / "runs.db";
    {
        const GalerasDb db = GalerasDb::create(path, {{"testbed", "randomcut"}, {"model", "m"}});
        // outcome levenshtein = 0.1 * prompt_size + 0.5 * T1 (exactly); other columns constant or absent
        for (int i = 0; i < 8; ++i)
            for (const std::string t : {"control", "T1"}) {
                GalerasRow r;
                r.recordId = "r" + std::to_string(i);
                r.treatment = t;
                r.isControl = t == "control";
                r.stop = "eos";
                const double ps = 10 + i * i % 7 + (t == "T1" ? 3 : 0);
                r.values["prompt_size"] = ps;
                r.values["nloc"] = 3.0;
                r.values["levenshtein"] = 0.1 * ps + (t == "T1" ? 0.5 : 0.0) + (i % 3 == 0 ? 0.01 : -0.005);
                r.recordConfounders["age_days"] = 100.0 + i * i; // a record's own field
                db.insert(r);
            }
        GalerasRow err;
        err.recordId = "r9";
        err.treatment = "T1";
        err.stop = "error";
        err.error = "boom";
        db.insert(err);
        EXPECT_THROW(db.insert(err), SqliteError); // one row per record × treatment
    }
    const GalerasDb db = GalerasDb::open(path);
    TreatmentAnalysisOptions o;
    o.confounders = {"prompt_size", "nloc"};
    o.refute.simulations = 10;
    const auto r = analyzeTreatments(db, o);
    EXPECT_EQ(r.control, "control");
    EXPECT_EQ(r.leftOut, 1);
    ASSERT_EQ(r.treatments.size(), 1u);
    const auto& t = r.treatments[0];
    ASSERT_TRUE(t.hasEffect) << t.note;
    EXPECT_EQ(t.n, 16);
    EXPECT_NEAR(t.ate, 0.5, 0.02);
    EXPECT_NE(t.note.find("constant confounder left out: nloc"), std::string::npos);
    const auto j = treatmentsToJson(r);
    EXPECT_EQ(j["control"], "control");
    EXPECT_EQ(j["outcome"], "levenshtein");
    EXPECT_EQ(j["treatments"][0]["name"], "T1");
    EXPECT_EQ(j["treatments"][0]["ci95"].size(), 2u);
    EXPECT_TRUE(j["treatments"][0]["refutations"]["placebo"].contains("p_value"));
    EXPECT_EQ(j["descriptive"]["T1"]["levenshtein"]["n"], 8);
    EXPECT_NE(treatmentsLatex(r).find("\\toprule"), std::string::npos);
    EXPECT_EQ(j["simulations"], 10);
    EXPECT_NE(treatmentsText(r).find("refutations: 10 simulations each"), std::string::npos);
    // 0 simulations (as analyze causal): no refuter runs, and the text and JSON say so
    {
        TreatmentAnalysisOptions none = o;
        none.refute.simulations = 0;
        const auto r0 = analyzeTreatments(db, none);
        ASSERT_TRUE(r0.treatments[0].hasEffect);
        EXPECT_DOUBLE_EQ(r0.treatments[0].ate, t.ate);
        EXPECT_TRUE(r0.treatments[0].refutations.empty());
        const auto j0 = treatmentsToJson(r0);
        EXPECT_EQ(j0["simulations"], 0);
        EXPECT_EQ(j0["treatments"][0]["refutations"], nlohmann::json::object());
        const auto text = treatmentsText(r0);
        EXPECT_NE(text.find("refutations: skipped (0 simulations)"), std::string::npos) << text;
        EXPECT_EQ(text.find("placebo (p)"), std::string::npos) << text;
    }
    // by default the paper's four confounders (seed 003), not all seven
    {
        TreatmentAnalysisOptions paper;
        paper.refute.simulations = 0;
        EXPECT_EQ(analyzeTreatments(db, paper).confounders,
                  (std::vector<std::string>{"prompt_size", "n_whitespaces", "token_count", "nloc"}));
    }
    // the records' own fields are confounders too (stored once per record)
    EXPECT_EQ(db.recordConfounders().size(), 8u);
    EXPECT_DOUBLE_EQ(db.recordConfounders().at("r3").at("age_days"), 109.0);
    o.confounders = {"prompt_size", "age_days"};
    const auto withAge = analyzeTreatments(db, o);
    ASSERT_TRUE(withAge.treatments[0].hasEffect) << withAge.treatments[0].note;
    EXPECT_NEAR(withAge.treatments[0].ate, 0.5, 0.02);
    o.outcome = "nope";
    EXPECT_THROW(analyzeTreatments(db, o), InputError);
    o.outcome = "bleu4";
    o.confounders = {"size"};
    try {
        analyzeTreatments(db, o);
        ADD_FAILURE() << "an unknown confounder was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("the records' own: age_days"), std::string::npos) << e.what();
    }
}

TEST(GalerasShards, MergeJoinsCompleteShardsAndRefusesTheRest)
{
    const testdata::TempDir dir("galeras-merge");
    auto shard = [&](int i, int rows, const std::string& seed) {
        const auto p = dir / ("s" + std::to_string(i) + "-" + seed + ".db");
        const GalerasDb db = GalerasDb::create(p, {{"shard", std::to_string(i) + "/2"}, {"seed", seed}});
        db.setMeta("planned", "2");
        for (int k = 0; k < rows; ++k) {
            GalerasRow r;
            r.recordId = "r" + std::to_string(i);
            r.treatment = k == 0 ? "control" : "T1";
            r.isControl = k == 0;
            r.stop = "eos";
            r.values["levenshtein"] = 0.25 * (i + k);
            db.insert(r);
        }
        db.insertSkipped({{"short" + std::to_string(i), "too short"}});
        return p;
    };
    const auto a = shard(0, 2, "1"), b = shard(1, 2, "1"), partial = shard(1, 1, "x"), other = shard(1, 2, "2");
    mergeGalerasShards(dir / "all.db", {a, b});
    const GalerasDb all = GalerasDb::open(dir / "all.db");
    const auto rows = all.rows();
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[3].recordId, "r1");
    EXPECT_DOUBLE_EQ(*rows[3].values.at("levenshtein"), 0.5);
    EXPECT_EQ(all.skipped().size(), 2u);
    EXPECT_EQ(all.meta().at("shard"), "merged/2");
    EXPECT_EQ(all.meta().at("planned"), "4");
    EXPECT_THROW(mergeGalerasShards(dir / "x1.db", {a}), InputError);          // shard 1 missing
    EXPECT_THROW(mergeGalerasShards(dir / "x2.db", {a, a}), InputError);       // twice
    EXPECT_THROW(mergeGalerasShards(dir / "x3.db", {a, partial}), InputError); // incomplete (and another seed)
    EXPECT_THROW(mergeGalerasShards(dir / "x4.db", {a, other}), InputError);   // another run
    EXPECT_THROW(mergeGalerasShards(dir / "all.db", {a, b}), InputError);      // exists
    EXPECT_FALSE(std::filesystem::exists(dir / "x1.db"));
    EXPECT_FALSE(std::filesystem::exists(dir / "x4.db"));
}
