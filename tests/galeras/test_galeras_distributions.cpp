// analyze treatments --svg (issue 30): each outcome's values per treatment, drawn as one box per treatment
// through the figure room's distribution chart (galeras/distributions.h, figure/charts.h).
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/galeras/distributions.h"
#include "testdata.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {

std::vector<GalerasRow> rows()
{
    std::vector<GalerasRow> out;
    auto add = [&](const std::string& t, std::optional<double> lev, const std::string& error = {}) {
        GalerasRow r;
        r.recordId = "r" + std::to_string(out.size());
        r.treatment = t;
        r.isControl = t == "control";
        r.stop = error.empty() ? "eos" : "error";
        r.error = error;
        r.values["levenshtein"] = lev;
        r.values["bleu4"] = error.empty() ? std::optional<double>(0.5) : std::nullopt;
        out.push_back(r);
    };
    add("rename", 0.0); // a treatment before the control: the control still comes first
    for (double v : {0.1, 0.2, 0.3, 0.4, 0.5})
        add("control", v);
    add("rename", 1.0);
    add("rename", 0.5);
    add("rename", std::nullopt); // no value: left out
    add("rename", 0.9, "boom");  // an error: left out
    return out;
}

std::size_t count(const std::string& s, const std::string& what)
{
    std::size_t n = 0;
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
        ++n;
    return n;
}

} // namespace

TEST(GalerasDistributions, ValuesPerTreatmentAndBoxes)
{
    const auto d = outcomeDistributions(rows(), "levenshtein");
    ASSERT_EQ(d.treatments, (std::vector<std::string>{"control", "rename"}));
    ASSERT_EQ(d.outcomes, std::vector<std::string>{"levenshtein"});
    ASSERT_EQ(d.values.size(), 1u);
    EXPECT_EQ(d.values[0][0], (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5}));
    EXPECT_EQ(d.values[0][1], (std::vector<double>{0.0, 1.0, 0.5}));
    EXPECT_EQ(d.leftOut, 2);
    // control: quartiles of 0.1..0.5 (linear interpolation) 0.2, 0.3, 0.4; rename: of 0, 0.5, 1: 0.25, 0.5, 0.75
    const BoxStats c = boxStats(d.values[0][0]), r = boxStats(d.values[0][1]);
    EXPECT_NEAR(c.q1, 0.2, 1e-12);
    EXPECT_NEAR(c.median, 0.3, 1e-12);
    EXPECT_NEAR(c.q3, 0.4, 1e-12);
    EXPECT_NEAR(r.q1, 0.25, 1e-12);
    EXPECT_NEAR(r.median, 0.5, 1e-12);
    EXPECT_NEAR(r.q3, 0.75, 1e-12);

    DistributionData dd;
    dd.runs = d.treatments;
    dd.rows = d.outcomes;
    dd.values = d.values;
    dd.title = "levenshtein by treatment";
    FigureStyle style;
    style.widthPt = 85 * kPointsPerMm;
    const std::string svg = figureToSvg(distributionFigure(dd, style));
    EXPECT_NE(svg.find("width=\"85mm\""), std::string::npos) << svg.substr(0, 300);
    EXPECT_EQ(svg.find("<image"), std::string::npos);
    EXPECT_EQ(count(svg, "IQR ["), 2u); // one box per treatment
    EXPECT_NE(svg.find("control: median 0.30, IQR [0.20, 0.40], n=5"), std::string::npos);
    EXPECT_NE(svg.find("rename: median 0.50, IQR [0.25, 0.75], n=3"), std::string::npos);
    EXPECT_NE(svg.find("levenshtein by treatment"), std::string::npos);
}

TEST(GalerasDistributions, AllOutcomesAndErrors)
{
    const auto all = outcomeDistributions(rows());
    EXPECT_EQ(all.outcomes, galerasOutcomes());
    ASSERT_EQ(all.values.size(), galerasOutcomes().size());
    EXPECT_EQ(all.values[1][1].size(), 4u); // bleu4 (second outcome): rename's four rows without an error
    EXPECT_THROW(outcomeDistributions(rows(), "nope"), InputError);
    EXPECT_THROW(outcomeDistributions(std::vector<GalerasRow>{}, "levenshtein"), InputError);

    const testdata::TempDir dir("galeras-dist");
    const auto path = dir / "runs.db";
    {
        const GalerasDb db = GalerasDb::create(path, {{"testbed", "randomcut"}});
        for (const auto& r : rows())
            db.insert(r);
    }
    const auto fromDb = outcomeDistributions(GalerasDb::open(path), "levenshtein");
    EXPECT_EQ(fromDb.values[0][1].size(), 3u);
    EXPECT_EQ(fromDb.leftOut, 2);
}
