// The calibration room (docs/method.md §17): §17's worked example by hand, the bins' edges, AUROC with ties,
// average precision, the bootstrap's interval and determinism, temperature scaling on a hand-made grid.
#include "ascviz/base/error.h"
#include "ascviz/calibration/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace ascviz::calibration;

namespace {

// §17's worked example: p1 and right/wrong of six tokens, B = 3.
const std::vector<double> kP1{0.9, 0.8, 0.7, 0.7, 0.3, 0.2};
const std::vector<bool> kRight{true, true, false, true, false, true};

std::vector<Labelled> example()
{
    std::vector<Labelled> v;
    for (std::size_t i = 0; i < kP1.size(); ++i)
        v.push_back({kP1[i], kRight[i]});
    return v;
}

std::vector<bool> errors(const std::vector<bool>& right)
{
    std::vector<bool> e;
    for (const bool r : right)
        e.push_back(!r);
    return e;
}

std::vector<double> negated(const std::vector<double>& v)
{
    std::vector<double> out;
    for (const double x : v)
        out.push_back(-x);
    return out;
}

} // namespace

TEST(Calibration, WorkedExampleOfMethodSection17)
{
    const auto width = equalWidthBins(example(), 3);
    ASSERT_EQ(width.size(), 3U);
    EXPECT_EQ(width[0].n, 2); // tokens 5 and 6
    EXPECT_NEAR(width[0].confidence, 0.25, 1e-15);
    EXPECT_NEAR(width[0].accuracy, 0.5, 1e-15);
    EXPECT_EQ(width[1].n, 0);
    EXPECT_EQ(width[2].n, 4);
    EXPECT_NEAR(width[2].confidence, 0.775, 1e-15);
    EXPECT_NEAR(width[2].accuracy, 0.75, 1e-15);
    EXPECT_NEAR(*expectedCalibrationError(width), 0.1, 1e-15);
    EXPECT_NEAR(*maximumCalibrationError(width), 0.25, 1e-15); // the empty bin does not count
    EXPECT_NEAR(*brierScore(example()), 17.0 / 75.0, 1e-15);
    EXPECT_NEAR(*expectedCalibrationError(equalMassBins(example(), 3)), 0.2, 1e-15);
    // s = −p1 ranks towards an error: (2.5 + 3) / (2 · 4).
    EXPECT_NEAR(*auroc(negated(kP1), errors(kRight)), 0.6875, 1e-15);
    EXPECT_NEAR(*averagePrecision(negated(kP1), errors(kRight)), 0.5, 1e-15);
}

TEST(Calibration, BinEdgesAndEmptyCases)
{
    // B = 4: 0.25 opens bin 2, 1.0 closes the last one, 0.999 too; a value below 0 or above 1 is clamped.
    const auto b = equalWidthBins({{0.25, true}, {1.0, true}, {0.999, false}, {0.0, false}, {-0.1, false}}, 4);
    EXPECT_EQ(b[0].n, 2);
    EXPECT_EQ(b[1].n, 1);
    EXPECT_EQ(b[2].n, 0);
    EXPECT_EQ(b[3].n, 2);
    // Equal mass with N < B: bins 0 and 2 of 4 over [⌊bN/B⌋, ⌊(b+1)N/B⌋) with N = 2: {}, {0}, {}, {1}.
    const auto m = equalMassBins({{0.9, true}, {0.1, false}}, 4);
    EXPECT_EQ(m[0].n, 0);
    EXPECT_EQ(m[1].n, 1);
    EXPECT_NEAR(m[1].confidence, 0.1, 1e-15);
    EXPECT_EQ(m[3].n, 1);
    EXPECT_NEAR(*expectedCalibrationError(m), (0.1 + 0.1) / 2, 1e-15);
    EXPECT_FALSE(expectedCalibrationError(equalWidthBins({}, 5)));
    EXPECT_FALSE(maximumCalibrationError(equalWidthBins({}, 5)));
    EXPECT_FALSE(brierScore({}));
    // No error, or nothing right: AUROC undefined; no error: AP undefined.
    EXPECT_FALSE(auroc({0.1, 0.2}, {false, false}));
    EXPECT_FALSE(auroc({0.1, 0.2}, {true, true}));
    EXPECT_FALSE(averagePrecision({0.1, 0.2}, {false, false}));
    EXPECT_NEAR(*averagePrecision({0.1, 0.2}, {true, true}), 1.0, 1e-15);
}

TEST(Calibration, AurocCountsTiesHalfAndAveragePrecisionIsStepwise)
{
    // All scores equal: AUROC ½; AP = the positives' share (one threshold).
    EXPECT_NEAR(*auroc({1, 1, 1, 1}, {true, false, false, true}), 0.5, 1e-15);
    EXPECT_NEAR(*averagePrecision({1, 1, 1, 1}, {true, false, false, false}), 0.25, 1e-15);
    // Perfect separation: 1; reversed: 0.
    EXPECT_NEAR(*auroc({0.9, 0.8, 0.1}, {true, true, false}), 1.0, 1e-15);
    EXPECT_NEAR(*auroc({0.1, 0.2, 0.9}, {true, true, false}), 0.0, 1e-15);
    // AP by hand: scores 0.9 (pos), 0.8 (neg), 0.7 (pos), 0.6 (neg): P@1 = 1, R 1/2; P@3 = 2/3, R 1 →
    // ½·1 + ½·⅔ = 5/6 (a trapezoid would give another number).
    EXPECT_NEAR(*averagePrecision({0.9, 0.8, 0.7, 0.6}, {true, false, true, false}), 5.0 / 6.0, 1e-15);
    EXPECT_NEAR(*auroc({0.9, 0.8, 0.7, 0.6}, {true, false, true, false}), 0.75, 1e-15);
}

TEST(Calibration, PercentileIntervalInterpolatesLinearly)
{
    // 0 … 100: the 2.5th percentile at position 2.5 → 2.5, the 97.5th → 97.5.
    std::vector<double> v;
    for (int i = 100; i >= 0; --i)
        v.push_back(i);
    const auto ci = percentileInterval(v);
    ASSERT_TRUE(ci);
    EXPECT_NEAR(ci->first, 2.5, 1e-12);
    EXPECT_NEAR(ci->second, 97.5, 1e-12);
    EXPECT_FALSE(percentileInterval({}));
}

TEST(Calibration, GroupMeasuresAndBootstrap)
{
    // The worked example as a group over three snippets (1–2, 3–4, 5–6).
    Options o;
    o.bins = 3;
    o.resamples = 200;
    const std::vector<int64_t> snippet{0, 0, 1, 1, 2, 2};
    const Group g = analyzeGroup("global", kP1, kRight, snippet, o);
    EXPECT_EQ(g.n, 6);
    EXPECT_EQ(g.errors, 2);
    EXPECT_EQ(g.snippets, 3);
    EXPECT_NEAR(g.meanConfidence, 3.6 / 6, 1e-15);
    EXPECT_NEAR(g.accuracy, 4.0 / 6, 1e-15);
    EXPECT_NEAR(*g.ece, 0.1, 1e-15);
    EXPECT_NEAR(*g.eceMass, 0.2, 1e-15);
    EXPECT_NEAR(*g.mce, 0.25, 1e-15);
    EXPECT_NEAR(*g.brier, 17.0 / 75.0, 1e-15);
    EXPECT_NEAR(*g.auroc, 0.6875, 1e-15);
    EXPECT_NEAR(*g.auprc, 0.5, 1e-15);
    ASSERT_TRUE(g.eceCi && g.aurocCi);
    EXPECT_LE(g.eceCi->first, g.eceCi->second);
    EXPECT_GE(g.eceCi->first, 0.0);
    EXPECT_LE(g.aurocCi->second, 1.0);
    // Seeded: the same again; another group name draws other resamples (the seed mixed with the name).
    const Group again = analyzeGroup("global", kP1, kRight, snippet, o);
    EXPECT_EQ(again.eceCi, g.eceCi);
    EXPECT_EQ(again.aurocCi, g.aurocCi);
    // One snippet only: every resample is the group itself, so the interval is the point.
    const Group one = analyzeGroup("one", kP1, kRight, std::vector<int64_t>(6, 7), o);
    EXPECT_NEAR(one.eceCi->first, 0.1, 1e-15);
    EXPECT_NEAR(one.eceCi->second, 0.1, 1e-15);
    EXPECT_NEAR(one.aurocCi->first, 0.6875, 1e-15);
    // Entropy: no calibration measures, the score is +H.
    o.confidence = Confidence::Entropy;
    const std::vector<double> h{0.1, 0.2, 2.0, 0.3, 1.5, 0.4}; // the two errors have the highest entropy
    const Group e = analyzeGroup("global", h, kRight, snippet, o);
    EXPECT_FALSE(e.ece);
    EXPECT_FALSE(e.eceCi);
    EXPECT_FALSE(e.brier);
    EXPECT_NEAR(*e.auroc, 1.0, 1e-15);
    EXPECT_NEAR(*e.auprc, 1.0, 1e-15);
}

TEST(Calibration, ConfidenceNames)
{
    EXPECT_EQ(parseConfidence("topk-entropy"), Confidence::TopkEntropy);
    EXPECT_EQ(parseConfidence("topk_entropy"), Confidence::TopkEntropy);
    EXPECT_STREQ(toString(parseConfidence("margin")), "margin");
    EXPECT_EQ(parseConfidence("asc-eval"), Confidence::AscEval);
    EXPECT_STREQ(toString(Confidence::AscEval), "asc_eval");
    EXPECT_FALSE(isProbabilityOfBeingRight(Confidence::AscEval));
    EXPECT_EQ(errorScore(Confidence::AscEval, 0.25), -0.25);
    EXPECT_THROW(parseConfidence("certainty"), ascviz::InputError);
    EXPECT_EQ(parseBy("concept"), By::Concept);
    EXPECT_STREQ(toString(parseBy("category")), "category");
    EXPECT_THROW(parseBy("node"), ascviz::InputError);
    EXPECT_EQ(errorScore(Confidence::P1, 0.25), -0.25);
    EXPECT_EQ(errorScore(Confidence::Entropy, 0.25), 0.25);
}

// Temperature scaling on hand-made logits: every snippet holds the same four tokens (logits z, targets), so whichever
// half the seeded split fits on, its mean NLL is the four tokens' mean; the test finds its minimum over the grid by
// brute force and computes the ECE of p1(T) = exp(z_max/T − lse(z/T)) at T = 1 and at that T itself.
TEST(Calibration, TemperatureScalingOnAHandMadeGrid)
{
    const std::vector<double> grid = temperatureGrid();
    ASSERT_EQ(grid.size(), 100U);
    EXPECT_NEAR(grid[19], 1.0, 1e-15);
    EXPECT_NEAR(grid.back(), 5.0, 1e-12);
    // Over-confident: the top logit far above the rest, but the target is the top only half the time.
    const std::vector<std::vector<double>> zs{{4, 0, 0, 0}, {4, 0.5, 0, 0}, {4, 0, 1, 0}, {3, 0, 0, 0.2}};
    const auto lse = [](const std::vector<double>& z, double T) {
        double sum = 0;
        for (const double v : z)
            sum += std::exp((v - z[0]) / T);
        return z[0] / T + std::log(sum);
    };
    std::vector<TemperatureToken> tokens;
    for (int s = 0; s < 8; ++s)
        for (std::size_t k = 0; k < 4; ++k) {
            TemperatureToken t;
            t.snippet = s;
            t.zMax = zs[k][0];
            const std::size_t target = k % 2; // tokens 0 and 2 right, 1 and 3 wrong
            t.zTarget = zs[k][target];
            t.correct = target == 0;
            for (const double T : grid)
                t.lse.push_back(lse(zs[k], T));
            tokens.push_back(t);
        }
    std::size_t best = 0;
    double bestNll = 1e300;
    for (std::size_t g = 0; g < grid.size(); ++g) {
        double nll = 0;
        for (std::size_t k = 0; k < 4; ++k)
            nll += lse(zs[k], grid[g]) - zs[k][k % 2] / grid[g];
        if (nll < bestNll) {
            bestNll = nll;
            best = g;
        }
    }
    // The ECE (15 bins) of the four tokens' p1 at T: the mean of |acc − conf| per bin, weighted.
    const auto ece = [&](double T) {
        std::vector<Labelled> v;
        for (std::size_t k = 0; k < 4; ++k)
            v.push_back({std::exp(zs[k][0] / T - lse(zs[k], T)), k % 2 == 0});
        return *expectedCalibrationError(equalWidthBins(v, 15));
    };
    const auto fit = fitTemperature(tokens, 15, 99);
    ASSERT_TRUE(fit);
    EXPECT_EQ(fit->fitTokens, 16); // ⌈8/2⌉ snippets of 4 tokens
    EXPECT_EQ(fit->evalTokens, 16);
    EXPECT_NEAR(fit->t, grid[best], 1e-15);
    EXPECT_GT(fit->t, 1.0); // over-confident: T > 1 softens
    EXPECT_NEAR(fit->eceBefore, ece(1.0), 1e-12);
    EXPECT_NEAR(fit->eceAfter, ece(grid[best]), 1e-12);
    EXPECT_LT(fit->eceAfter, fit->eceBefore);
    // A token without the whole grid makes the fit unavailable; so does a single snippet (nothing to evaluate on).
    auto cut = tokens;
    cut[3].lse.pop_back();
    EXPECT_FALSE(fitTemperature(cut, 15, 99));
    std::vector<TemperatureToken> single(tokens.begin(), tokens.begin() + 4);
    EXPECT_FALSE(fitTemperature(single, 15, 99));
}
