// Live conformance of the calibration measures: Brier, AUROC and AUPRC against scikit-learn (brier_score_loss,
// roc_auc_score, average_precision_score) and the equal-width ECE and MCE against numpy from §17's definition
// (tests/live/calibration_reference.py), to 1e-12, on seeded random cases with many ties (confidences rounded to
// two decimals) and one without.
#include "testdata.h"

#include "ascviz/calibration/metrics.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>

using namespace ascviz::calibration;

#ifndef ASCVIZ_LIVE_PYTHON
#define ASCVIZ_LIVE_PYTHON ""
#endif
#ifndef ASCVIZ_CALIBRATION_REFERENCE
#define ASCVIZ_CALIBRATION_REFERENCE ""
#endif

TEST(CalibrationLive, MeasuresMatchScikitLearn)
{
    const ascviz::testdata::TempDir dir("calibration-live");
    std::mt19937_64 rng(59);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::vector<Labelled>> cases;
    for (const auto& [n, round] : std::vector<std::pair<int, bool>>{{50, true}, {500, true}, {300, false}, {7, true}}) {
        std::vector<Labelled> c;
        for (int i = 0; i < n; ++i) {
            double conf = u(rng);
            if (round)
                conf = std::round(conf * 100) / 100;
            c.push_back({conf, u(rng) < conf}); // roughly calibrated
        }
        c[0].correct = true; // both classes present
        c[1].correct = false;
        cases.push_back(c);
    }
    nlohmann::json in{{"bins", 15}, {"cases", nlohmann::json::array()}};
    for (const auto& c : cases) {
        nlohmann::json conf = nlohmann::json::array(), correct = nlohmann::json::array();
        for (const auto& t : c) {
            conf.push_back(t.confidence);
            correct.push_back(t.correct ? 1 : 0);
        }
        in["cases"].push_back({{"confidence", conf}, {"correct", correct}});
    }
    std::ofstream(dir / "in.json") << in.dump();
    const std::string cmd = std::string("'") + ASCVIZ_LIVE_PYTHON + "' '" + ASCVIZ_CALIBRATION_REFERENCE + "' '" +
                            (dir / "in.json").string() + "' '" + (dir / "out.json").string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream f(dir / "out.json");
    const auto ref = nlohmann::json::parse(f);
    ASSERT_EQ(ref["cases"].size(), cases.size());
    for (std::size_t k = 0; k < cases.size(); ++k) {
        SCOPED_TRACE("case " + std::to_string(k));
        const auto& c = cases[k];
        const auto& x = ref["cases"][k];
        std::vector<double> score;
        std::vector<bool> error;
        for (const auto& t : c) {
            score.push_back(-t.confidence);
            error.push_back(!t.correct);
        }
        const auto bins = equalWidthBins(c, 15);
        EXPECT_NEAR(*brierScore(c), x["brier"].get<double>(), 1e-12);
        EXPECT_NEAR(*auroc(score, error), x["auroc"].get<double>(), 1e-12);
        EXPECT_NEAR(*averagePrecision(score, error), x["auprc"].get<double>(), 1e-12);
        EXPECT_NEAR(*expectedCalibrationError(bins), x["ece"].get<double>(), 1e-12);
        EXPECT_NEAR(*maximumCalibrationError(bins), x["mce"].get<double>(), 1e-12);
    }
}
