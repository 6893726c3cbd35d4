// Bootstrap and corpus statistics (method.md §6) against values worked out by hand.
#include "ascviz/results/stats.h"

#include <gtest/gtest.h>

#include <random>

using namespace ascviz;

TEST(Median, OddEvenAndSingle)
{
    EXPECT_DOUBLE_EQ(median({0.3}), 0.3);
    EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
    EXPECT_DOUBLE_EQ(median({0.07, 0.4, 0.5, 0.1, 0.1}), 0.1);
    EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Percentile, LinearInterpolationLikeNumpy)
{
    const std::vector<double> s = {1, 2, 3, 4};
    EXPECT_DOUBLE_EQ(percentileSorted(s, 0), 1);
    EXPECT_DOUBLE_EQ(percentileSorted(s, 100), 4);
    EXPECT_DOUBLE_EQ(percentileSorted(s, 50), 2.5);
    // position 0.025 * 3 = 0.075 -> 1 + 0.075
    EXPECT_NEAR(percentileSorted(s, 2.5), 1.075, 1e-12);
    // position 0.975 * 3 = 2.925 -> 3 + 0.925
    EXPECT_NEAR(percentileSorted(s, 97.5), 3.925, 1e-12);
}

TEST(Bootstrap, SingleValue)
{
    const auto r = bootstrapMedian({0.42});
    EXPECT_DOUBLE_EQ(r.median, 0.42);
    EXPECT_DOUBLE_EQ(r.se, 0.0);
    EXPECT_DOUBLE_EQ(r.lo, 0.42);
    EXPECT_DOUBLE_EQ(r.hi, 0.42);
    EXPECT_EQ(r.n, 1);
}

TEST(Bootstrap, IdenticalValues)
{
    const auto r = bootstrapMedian(std::vector<double>(37, 0.75));
    EXPECT_DOUBLE_EQ(r.median, 0.75);
    EXPECT_DOUBLE_EQ(r.se, 0.0);
    EXPECT_DOUBLE_EQ(r.lo, 0.75);
    EXPECT_DOUBLE_EQ(r.hi, 0.75);
    EXPECT_EQ(r.n, 37);
}

TEST(Bootstrap, EmptyThrows)
{
    EXPECT_THROW(bootstrapMedian({}), std::invalid_argument);
}

// Two values {0, 1}: a resample of two draws has median 0 (both 0, p = 1/4), 0.5 (p = 1/2) or 1 (p = 1/4).
// So every resample median is one of those three, the median of medians is 0.5 (the middle half), the
// interval spans [0, 1] and the SE is near sqrt(1/8) = 0.354.
TEST(Bootstrap, TwoValuesKnownDistribution)
{
    const auto r = bootstrapMedian({0.0, 1.0}, {500, 7});
    EXPECT_DOUBLE_EQ(r.median, 0.5);
    EXPECT_DOUBLE_EQ(r.lo, 0.0);
    EXPECT_DOUBLE_EQ(r.hi, 1.0);
    EXPECT_NEAR(r.se, 0.3536, 0.03);
    EXPECT_EQ(r.n, 2);
}

// 0.1 ... 0.9 (n = 9): the resample medians are symmetric about 0.5; the interval lies inside the data.
TEST(Bootstrap, KnownMedianSmallSet)
{
    std::vector<double> v;
    for (int i = 1; i <= 9; ++i)
        v.push_back(i / 10.0);
    const auto r = bootstrapMedian(v);
    EXPECT_NEAR(r.median, 0.5, 1e-12);
    EXPECT_GT(r.se, 0.0);
    EXPECT_LT(r.se, 0.2);
    EXPECT_GE(r.lo, 0.1);
    EXPECT_LE(r.hi, 0.9);
    EXPECT_LT(r.lo, 0.5);
    EXPECT_GT(r.hi, 0.5);
}

// The documented algorithm, written out: mt19937_64(seed), uniform_int_distribution over indices, 500
// resamples, median of each; median/percentiles by linear interpolation; SE = population std.
TEST(Bootstrap, FollowsTheDocumentedAlgorithm)
{
    const std::vector<double> v = {0.9, 0.05, 0.33, 0.71, 0.2, 0.64, 0.48};
    const uint64_t seed = 12345;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
    std::vector<double> meds;
    for (int r = 0; r < 500; ++r) {
        std::vector<double> s;
        for (std::size_t i = 0; i < v.size(); ++i)
            s.push_back(v[pick(rng)]);
        std::sort(s.begin(), s.end());
        meds.push_back(s[s.size() / 2]); // odd n
    }
    std::sort(meds.begin(), meds.end());
    double mean = 0;
    for (double m : meds)
        mean += m;
    mean /= 500;
    double var = 0;
    for (double m : meds)
        var += (m - mean) * (m - mean);
    const auto r = bootstrapMedian(v, {500, seed});
    EXPECT_DOUBLE_EQ(r.median, (meds[249] + meds[250]) / 2);
    EXPECT_NEAR(r.se, std::sqrt(var / 500), 1e-12);
    EXPECT_NEAR(r.lo, meds[12] + (meds[13] - meds[12]) * 0.475, 1e-12);    // 0.025 * 499 = 12.475
    EXPECT_NEAR(r.hi, meds[486] + (meds[487] - meds[486]) * 0.525, 1e-12); // 0.975 * 499 = 486.525
}

TEST(Bootstrap, SeededReproducibleAndSeedsDiffer)
{
    std::vector<double> v;
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < 40; ++i)
        v.push_back(u(gen));
    const auto a = bootstrapMedian(v, {500, 1});
    const auto b = bootstrapMedian(v, {500, 1});
    const auto c = bootstrapMedian(v, {500, 2});
    EXPECT_EQ(a.median, b.median);
    EXPECT_EQ(a.se, b.se);
    EXPECT_EQ(a.lo, b.lo);
    EXPECT_EQ(a.hi, b.hi);
    EXPECT_NE(a.se, c.se);
}

TEST(Thresholds, Flags)
{
    EXPECT_EQ(thresholdFlag(0.6), ThresholdFlag::Confident);
    EXPECT_EQ(thresholdFlag(0.95), ThresholdFlag::Confident);
    EXPECT_EQ(thresholdFlag(0.5999), ThresholdFlag::Neutral);
    EXPECT_EQ(thresholdFlag(0.5), ThresholdFlag::Neutral);
    EXPECT_EQ(thresholdFlag(0.4999), ThresholdFlag::Erroneous);
    EXPECT_EQ(toString(ThresholdFlag::Confident), "confident");
    EXPECT_EQ(toString(ThresholdFlag::Erroneous), "erroneous");
}

// Issue: a concept seen once (n = 1, value 0.873, SE 0) was flagged "confident". Below the minimum count a
// flag is "too few", whatever the value: one value 0.9 -> too_few; ten values 0.9 (bootstrapped median 0.9,
// every resample is ten 0.9s) -> confident; ten values 0.3 -> erroneous.
TEST(ThresholdFlagTest, FewerValuesThanTheMinimumAreTooFew)
{
    EXPECT_EQ(kDefaultMinN, 10);
    EXPECT_EQ(toString(ThresholdFlag::TooFew), "too_few");
    ResultsDb::NodeValues v;
    v.byConcept["escape_sequence"] = {0.9};
    v.byConcept["identifier"] = std::vector<double>(10, 0.9);
    v.byConcept["string"] = std::vector<double>(10, 0.3);
    CorpusStats s = computeStats(v);
    const BootstrapResult& one = s.concepts.at("escape_sequence");
    EXPECT_DOUBLE_EQ(one.median, 0.9);
    EXPECT_EQ(one.n, 1);
    EXPECT_EQ(thresholdFlag(one, kDefaultMinN), ThresholdFlag::TooFew);
    EXPECT_EQ(thresholdFlag(s.concepts.at("identifier"), kDefaultMinN), ThresholdFlag::Confident);
    EXPECT_EQ(thresholdFlag(s.concepts.at("string"), kDefaultMinN), ThresholdFlag::Erroneous);
    EXPECT_EQ(thresholdFlag(s.concepts.at("identifier"), 11), ThresholdFlag::TooFew); // 10 < 11

    s.minN = kDefaultMinN; // what computeStats(db) and report set
    const auto j = statsToJson(s);
    EXPECT_EQ(j["concepts"]["escape_sequence"]["flag"].get<std::string>(), "too_few");
    EXPECT_EQ(j["concepts"]["identifier"]["flag"].get<std::string>(), "confident");
    EXPECT_EQ(j["concepts"]["string"]["flag"].get<std::string>(), "erroneous");
    EXPECT_EQ(j["min_n"].get<int>(), 10);
    EXPECT_EQ(j["thresholds"]["min_n"].get<int>(), 10);
    // The existing fields keep their names.
    for (const char* k : {"median", "se", "ci95", "n", "flag", "category"})
        EXPECT_TRUE(j["concepts"]["escape_sequence"].contains(k)) << k;
}

TEST(CorpusStatsTest, TableIGlobalAndCategoriesAreMeansOfConceptMedians)
{
    ResultsDb::NodeValues v;
    v.byConcept["identifier"] = {0.2, 0.2};
    v.byConcept["string"] = {0.6};
    v.byConcept["("] = {0.8};
    v.byConcept["block"] = {0.5, 0.5, 0.5}; // no category: not in the Table I global
    v.byCategory["Natural Language"] = {0.2, 0.2, 0.6};
    v.byCategory["Scope"] = {0.8};
    v.categoryOf = {{"identifier", "Natural Language"}, {"string", "Natural Language"}, {"(", "Scope"}};
    const auto s = computeStats(v);
    ASSERT_EQ(s.concepts.size(), 4u);
    EXPECT_DOUBLE_EQ(s.concepts.at("identifier").median, 0.2);
    EXPECT_EQ(s.concepts.at("block").n, 3);
    // Global (Table I): categorized concepts only.
    ASSERT_TRUE(s.globalAscEval);
    EXPECT_NEAR(*s.globalAscEval, (0.2 + 0.6 + 0.8) / 3, 1e-12);
    ASSERT_TRUE(s.globalAllConcepts);
    EXPECT_NEAR(*s.globalAllConcepts, (0.2 + 0.6 + 0.8 + 0.5) / 4, 1e-12);
    // Category: the mean of its concepts' medians (0.4), not the pooled median (0.2).
    ASSERT_EQ(s.categories.size(), 2u);
    EXPECT_NEAR(s.categories.at("Natural Language").median, 0.4, 1e-12);
    EXPECT_EQ(s.categoryConcepts.at("Natural Language"), 2);
    EXPECT_EQ(s.categories.at("Natural Language").n, 3);
    EXPECT_DOUBLE_EQ(s.categoriesPooled.at("Natural Language").median, 0.2);
    EXPECT_DOUBLE_EQ(s.categories.at("Scope").median, 0.8);

    const auto j = statsToJson(s);
    EXPECT_NEAR(j["global_asc_eval"].get<double>(), (0.2 + 0.6 + 0.8) / 3, 1e-12);
    EXPECT_NEAR(j["global_asc_eval_all_concepts"].get<double>(), 0.525, 1e-12);
    EXPECT_EQ(j["concepts"]["identifier"]["n"].get<int>(), 2);
    EXPECT_EQ(j["concepts"]["identifier"]["category"].get<std::string>(), "Natural Language");
    EXPECT_TRUE(j["concepts"]["block"]["category"].is_null());
    EXPECT_EQ(j["concepts"]["("]["flag"].get<std::string>(), "confident");
    EXPECT_EQ(j["categories"]["Natural Language"]["ci95"].size(), 2u);
    EXPECT_EQ(j["categories"]["Natural Language"]["concepts"].get<int>(), 2);
    EXPECT_NEAR(j["categories_pooled"]["Natural Language"]["median"].get<double>(), 0.2, 1e-12);
}

// Table I by hand on fixed node values under the bundled Python table: the five keyword leaves count for
// Decision and Exceptions (their clause nodes do not), concepts without a category stay out of the global,
// and a category with no concept in the corpus is absent rather than 0. Single values make every
// bootstrapped median equal to the value itself.
TEST(CorpusStatsTest, TableIByHandWithTheBundledPythonTable)
{
    const CategoryMap table = CategoryMap::forLanguage("python");
    EXPECT_EQ(table.categoryOf("elif"), std::optional<std::string>("Decision"));
    EXPECT_EQ(table.categoryOf("else"), std::optional<std::string>("Decision"));
    EXPECT_EQ(table.categoryOf("except"), std::optional<std::string>("Exceptions"));
    EXPECT_EQ(table.categoryOf("raise"), std::optional<std::string>("Exceptions"));
    EXPECT_EQ(table.categoryOf("finally"), std::optional<std::string>("Exceptions"));
    EXPECT_FALSE(table.categoryOf("else_clause"));
    EXPECT_FALSE(table.categoryOf("except_clause"));
    EXPECT_FALSE(table.categoryOf("raise_statement"));

    const std::map<std::string, std::vector<double>> nodes = {
        {"if_statement", {0.9}},  {"elif", {0.3}},   {"else", {0.6, 0.6, 0.6}},                     // Decision
        {"try_statement", {0.5}}, {"except", {0.7}}, {"raise", {0.2}},          {"finally", {0.4}}, // Exceptions
        {"identifier", {0.1}},                                                                      // Natural Language
        {"else_clause", {0.0}},   {"module", {1.0}}, {"ERROR", {0.0}},                              // no category
    };
    ResultsDb::NodeValues v;
    for (const auto& [type, vals] : nodes) {
        v.byConcept[type] = vals;
        if (auto c = table.categoryOf(type)) {
            v.categoryOf[type] = *c;
            auto& pool = v.byCategory[*c];
            pool.insert(pool.end(), vals.begin(), vals.end());
        }
    }
    const auto s = computeStats(v);
    EXPECT_NEAR(s.categories.at("Decision").median, (0.9 + 0.3 + 0.6) / 3, 1e-12);
    EXPECT_NEAR(s.categories.at("Exceptions").median, (0.5 + 0.7 + 0.2 + 0.4) / 4, 1e-12);
    EXPECT_NEAR(s.categories.at("Natural Language").median, 0.1, 1e-12);
    EXPECT_EQ(s.categories.size(), 3u) << "Scope, Types, ... have no concept here: absent, not 0";
    EXPECT_FALSE(s.categories.count("Scope"));
    // Global: the 8 categorized concepts only (not else_clause, module, ERROR).
    EXPECT_NEAR(*s.globalAscEval, (0.9 + 0.3 + 0.6 + 0.5 + 0.7 + 0.2 + 0.4 + 0.1) / 8, 1e-12);
    EXPECT_NEAR(*s.globalAllConcepts, (0.9 + 0.3 + 0.6 + 0.5 + 0.7 + 0.2 + 0.4 + 0.1 + 0.0 + 1.0 + 0.0) / 11, 1e-12);
    // Pooled Decision (beside Table I): the median of 0.9, 0.3, 0.6, 0.6, 0.6.
    EXPECT_NEAR(s.categoriesPooled.at("Decision").median, 0.6, 1e-12);
}

// A group's statistic does not depend on which other groups exist (per-group seeds).
TEST(CorpusStatsTest, GroupResultIndependentOfOtherGroups)
{
    ResultsDb::NodeValues a, b;
    a.byConcept["x"] = {0.1, 0.5, 0.9, 0.3, 0.7};
    b = a;
    b.byConcept["y"] = {0.4, 0.6};
    const auto sa = computeStats(a), sb = computeStats(b);
    EXPECT_EQ(sa.concepts.at("x").se, sb.concepts.at("x").se);
    EXPECT_EQ(sa.concepts.at("x").lo, sb.concepts.at("x").lo);
}

TEST(CorpusStatsTest, EmptyHasNoGlobal)
{
    const auto s = computeStats(ResultsDb::NodeValues{});
    EXPECT_FALSE(s.globalAscEval);
    EXPECT_TRUE(s.concepts.empty());
}

TEST(Csv, FieldQuoting)
{
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
}
