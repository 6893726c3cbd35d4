// ascviz-cli probe (method.md §14.4, docs/cli.md): a hand-made corpus of three snippets — one the spacing rewrite
// changes and keeps, one whose rewrite changes the tree (rejected, named), one it leaves unchanged — and the rename
// rewrite; the table's rows follow the ablate contract.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace clitest;

namespace {

std::string corpus()
{
    json lines = json::array({{{"id", "s1"}, {"code", "def add_one(some_value):\n    return some_value+1\n"}},
                              {{"id", "s2"}, {"code", "y = 1 .real\n"}},
                              {{"id", "s3"}, {"code", "x\n"}}});
    std::string out;
    for (const auto& l : lines)
        out += l.dump() + "\n";
    return writeTemp("probe.jsonl", out).string();
}

} // namespace

TEST(CliProbe, SpacingKeepsSameShapeRewritesAndCountsTheOthers)
{
    const Result r = run("probe --rewrite spacing --model default --language python --corpus '" + corpus() +
                         "' --json --quiet --resamples 50");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("rewrite"), "spacing");
    EXPECT_EQ(j.at("snippets"), 3);
    EXPECT_EQ(j.at("rewritten"), 1);
    EXPECT_EQ(j.at("unchanged"), 1);
    EXPECT_EQ(j.at("rejected"), 1);
    ASSERT_EQ(j.at("rejections").size(), 1u);
    EXPECT_EQ(j.at("rejections")[0].at("id"), "s2");
    // s1: add_one|(, (|some_value, some_value|), )|: and around +: some_value|+, +|1 each gain a space
    EXPECT_EQ(j.at("edits"), 6);
    ASSERT_FALSE(j.at("rows").empty());
    for (const auto& row : j.at("rows")) {
        EXPECT_EQ(row.at("n"), 1) << "one rewritten snippet";
        // one snippet: every resample is that snippet, the interval is the delta itself
        EXPECT_DOUBLE_EQ(row.at("ci_low").get<double>(), row.at("delta").get<double>());
        EXPECT_DOUBLE_EQ(row.at("ci_high").get<double>(), row.at("delta").get<double>());
    }
}

TEST(CliProbe, RenameAndRefusals)
{
    const Result r =
        run("probe --rewrite rename --model default --language python --corpus '" + corpus() + "' --quiet");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("rewritten"), 1);
    EXPECT_EQ(j.at("edits"), 3) << "add_one, the parameter some_value and its use";
    EXPECT_EQ(run("probe --rewrite shuffle --model default --corpus '" + corpus() + "'").status, 2);
    const auto plain = writeTemp("probe-plain.jsonl", "{\"id\": \"a\", \"code\": \"x\\n\"}\n");
    const Result none =
        run("probe --rewrite rename --model default --language python --corpus '" + plain.string() + "' --quiet");
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.err.find("1 unchanged"), std::string::npos) << none.err;
}
