// ascviz-cli figure KIND (docs/cli.md, docs/figures.md) on hand-made results databases and a hand-made study:
// each kind writes vector SVG at the requested width (no raster, labels >= 6 pt) or a PDF of that page size;
// the runs are labelled by what differs; usage errors exit 2.
#include "../figure/figure_test_util.h"
#include "../study/study_test_util.h"
#include "cli_runner.h"
#include "dbcontent.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {
std::string q(const std::filesystem::path& p)
{
    return "'" + p.string() + "'";
}

struct Runs {
    std::filesystem::path median, max;
};
const Runs& runs()
{
    static const Runs r = [] {
        Runs out;
        out.median = ascviz::testdata::writeComparedRun(clitest::tempDir() / "fig-median.db",
                                                        ascviz::Aggregation::Median, 0.444);
        out.max =
            ascviz::testdata::writeComparedRun(clitest::tempDir() / "fig-max.db", ascviz::Aggregation::Max, 0.755);
        return out;
    }();
    return r;
}

// Writes KIND as SVG at 85 mm and checks what every figure promises; returns the SVG.
std::string svgOf(const std::string& kindAndInputs, const std::string& extra = {})
{
    const auto out = clitest::tempDir() / "figure.svg";
    std::filesystem::remove(out);
    const auto r = clitest::run("figure " + kindAndInputs + " --svg " + q(out) + " --width-mm 85 " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string svg = clitest::readAll(out);
    EXPECT_NEAR(figtest::svgWidthMm(svg), 85.0, 0.01) << svg.substr(0, 300);
    EXPECT_EQ(svg.find("<image"), std::string::npos);
    const auto sizes = figtest::svgFontSizes(svg);
    EXPECT_FALSE(sizes.empty());
    if (!sizes.empty()) {
        EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 6.0);
    }
    return svg;
}
} // namespace

TEST(CliFigure, CategoriesLabelsRunsByWhatDiffersAndWritesPdf)
{
    const std::string svg = svgOf("categories --db " + q(runs().median) + " --db " + q(runs().max));
    // Natural Language: 12 values of 0.444 (θ=median) and of 0.755 (θ=max): median and CI are the value.
    EXPECT_NE(svg.find("<title>ascviz-tiny-code (θ=median): 0.44 [0.44, 0.44], n=12</title>"), std::string::npos)
        << svg;
    EXPECT_NE(svg.find("<title>ascviz-tiny-code (θ=max): 0.76 [0.76, 0.76], n=12</title>"), std::string::npos);
    EXPECT_NE(svg.find("the compared runs differ in θ"), std::string::npos);

    const auto pdf = clitest::tempDir() / "categories.pdf";
    const auto r = clitest::run("figure categories --db " + q(runs().median) + "," + q(runs().max) + " --pdf " +
                                q(pdf) + " --width-mm 170 --font-pt 9 --no-title --legend bottom");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string bytes = clitest::readAll(pdf);
    ASSERT_GE(bytes.size(), 5u);
    EXPECT_EQ(bytes.substr(0, 5), "%PDF-");
    EXPECT_NEAR(figtest::pdfMediaBox(bytes).first, 170 * 72 / 25.4, 0.5);
}

TEST(CliFigure, DistributionTreemapHeatmap)
{
    const std::string dist = svgOf("distribution --db " + q(runs().median) + "," + q(runs().max));
    // One snippet per run: its Natural Language value is the median of its 12 identifier values.
    EXPECT_NE(dist.find("<title>ascviz-tiny-code (θ=median): median 0.44, IQR [0.44, 0.44], n=1</title>"),
              std::string::npos)
        << dist;

    const std::string tree = svgOf("treemap --db " + q(runs().median), "--legend bottom");
    EXPECT_NE(tree.find("data-concept=\"identifier\" data-count=\"12.00\""), std::string::npos) << tree;
    EXPECT_NE(tree.find("concepts without a category are not drawn"), std::string::npos);

    const std::string heat = svgOf("heatmap --db " + q(runs().median) + "," + q(runs().max), "--no-title");
    EXPECT_NE(heat.find("data-row=\"Global\" data-column=\"1\" data-value=\"0.76\""), std::string::npos) << heat;
    EXPECT_EQ(heat.find("AsC-Eval by category</text>"), std::string::npos); // --no-title
}

TEST(CliFigure, LikertFromTheAnswersCsv)
{
    const auto studyFile = clitest::tempDir() / "fig-study.json";
    std::filesystem::remove(studyFile);
    ascviz::writeStudyFile(studyFile, studytest::handStudy(4, 1));
    const auto csv =
        clitest::writeTemp("fig-answers.csv", "participant,trial,sample,condition,question,answer,seconds\n"
                                              "P01,0,s0,C,useful,5,3\n"
                                              "P01,1,s1,S1,useful,1,3\n");
    const std::string svg = svgOf("likert --db " + q(csv) + " --study " + q(studyFile));
    EXPECT_NE(svg.find("<title>Strongly agree: 1</title>"), std::string::npos) << svg;
    EXPECT_NE(svg.find(">n=1<"), std::string::npos);
    // A CSV without the study file: a usage error naming --study.
    const auto r = clitest::run("figure likert --db " + q(csv) + " --svg " + q(clitest::tempDir() / "x.svg"));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--study"), std::string::npos) << r.err;
}

TEST(CliFigure, UsageErrors)
{
    const std::string db = q(runs().median);
    const std::string out = " --svg " + q(clitest::tempDir() / "u.svg");
    for (const std::string& args :
         {"figure categories --db " + db, "figure pie --db " + db + out, "figure categories" + out,
          "figure categories --db " + db + out + " --font-pt 5",
          "figure categories --db " + db + out + " --legend left", "figure treemap --db " + db + "," + db + out}) {
        const auto r = clitest::run(args);
        EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    }
    const auto missing = clitest::run("figure categories --db " + q(clitest::tempDir() / "none.db") + out);
    EXPECT_EQ(missing.status, 1) << missing.err;
    EXPECT_NE(missing.err.find("none.db"), std::string::npos) << missing.err;
}

namespace {
// A scored text without a model: "def f(x):\n    return x\n" in six tokens (score JSON, docs/cli.md).
std::pair<std::filesystem::path, std::filesystem::path> scoredText()
{
    const auto text = clitest::writeTemp("fig-code.py", "def f(x):\n    return x\n");
    const auto scores =
        clitest::writeTemp("fig-scores.json",
                           R"({"model": "hand-made", "tokens": [{"start": 0, "end": 3, "id": 1, "ntp": null},
            {"start": 3, "end": 5, "id": 2, "ntp": 0.2}, {"start": 5, "end": 9, "id": 3, "ntp": 0.6},
            {"start": 9, "end": 14, "id": 4, "ntp": 0.9}, {"start": 14, "end": 20, "id": 5, "ntp": 0.3},
            {"start": 20, "end": 23, "id": 6, "ntp": 0.7}]})");
    return {text, scores};
}
} // namespace

TEST(CliFigure, RenderOptionsDrawThroughTheFigureCode)
{
    const auto [text, scores] = scoredText();
    const std::string in = "render --scores " + q(scores) + " --text-file " + q(text);
    const auto svg = clitest::tempDir() / "render.svg";
    for (const std::string view : {"complete", "partial", "sequence"}) {
        const auto r = clitest::run(in + " --view " + view + " --svg " + q(svg) + " --width-mm 85 --font-pt 7");
        ASSERT_EQ(r.status, 0) << view << ": " << r.err;
        const std::string s = clitest::readAll(svg);
        EXPECT_NEAR(figtest::svgWidthMm(s), 85.0, 0.01) << view;
        const auto sizes = figtest::svgFontSizes(s);
        ASSERT_FALSE(sizes.empty());
        EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 6.0) << view;
        EXPECT_EQ(s.find("<image"), std::string::npos);
    }
    // The depth limit: the root alone, with the count of what it hides.
    auto r = clitest::run(in + " --view complete --max-depth 0 --no-title --svg " + q(svg));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(clitest::readAll(svg).find(">\u2026("), std::string::npos);
    // figure5 as PDF.
    const auto pdf = clitest::tempDir() / "figure5.pdf";
    r = clitest::run(in + " --prompt-bytes 14 --view figure5 --orientation lr --pdf " + q(pdf));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(clitest::readAll(pdf).substr(0, 5), "%PDF-");
    // Errors: a bad orientation or whitespace mode (usage), a node id the tree does not have (named).
    EXPECT_EQ(clitest::run(in + " --view complete --orientation up --svg " + q(svg)).status, 2);
    EXPECT_EQ(clitest::run(in + " --view sequence --whitespace dim --svg " + q(svg)).status, 2);
    EXPECT_EQ(clitest::run(in + " --view complete --svg " + q(svg) + " --pdf " + q(pdf)).status, 2);
    r = clitest::run(in + " --view complete --subtree 999 --svg " + q(svg));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("node 999"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--subtree NODE"), std::string::npos) << r.err; // core's Remedy::Subtree as the flag
}
