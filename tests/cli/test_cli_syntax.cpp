// End-to-end tests of `ascviz-cli parse`, `eval` and `render` (docs/cli.md).
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

using nlohmann::json;

namespace {

const std::string kUnicode =
    "def \xe5\x87\xbd\xe6\x95\xb0(\xcf\x80): return \"\xf0\x9f\x98\x80\"\n"; // def 函数(π): return "😀"
const std::string kCode = "def add(a, b):\n    if a > b:\n        return a - b\n    return a + b\n";

std::string q(const std::filesystem::path& p)
{
    std::string s = p.string();
    s.insert(s.begin(), '\'');
    s.push_back('\'');
    return s;
}

json parseJson(const clitest::Result& r)
{
    EXPECT_EQ(r.status, 0) << r.err;
    if (r.status != 0)
        return json::object();
    try {
        return json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\n" << r.out.substr(0, 500);
        return json::object();
    }
}

std::optional<double> median(std::vector<double> v)
{
    if (v.empty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int countOf(const std::string& hay, const std::string& needle)
{
    int n = 0;
    for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1))
        ++n;
    return n;
}

} // namespace

TEST(CliParse, NonAsciiByteOffsets)
{
    const auto f = clitest::writeTemp("unicode.py", kUnicode);
    const json j = parseJson(clitest::run("parse --language python --text-file " + q(f)));
    const auto& nodes = j.at("nodes");
    ASSERT_GT(nodes.size(), 10u);
    EXPECT_EQ(nodes[0]["type"], "module");
    EXPECT_TRUE(nodes[0]["parent"].is_null());
    EXPECT_EQ(nodes[0]["end"], kUnicode.size());
    std::set<std::string> identifiers;
    std::string emoji;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto& n = nodes[i];
        EXPECT_EQ(n["id"], i);
        for (const char* k : {"id", "type", "named", "start", "end", "parent", "depth", "error"})
            EXPECT_TRUE(n.contains(k)) << k;
        const auto start = n["start"].get<std::size_t>(), end = n["end"].get<std::size_t>();
        ASSERT_LE(end, kUnicode.size());
        const std::string text = kUnicode.substr(start, end - start);
        if (n["type"] == "identifier")
            identifiers.insert(text);
        if (n["type"] == "string_content")
            emoji = text;
        if (!n["named"].get<bool>()) {
            EXPECT_EQ(text, n["type"].get<std::string>()); // anonymous leaves: their text is their type
        }
        if (i > 0) {
            EXPECT_EQ(n["depth"].get<int>(), nodes[n["parent"].get<std::size_t>()]["depth"].get<int>() + 1);
        }
    }
    EXPECT_EQ(identifiers, (std::set<std::string>{"\xe5\x87\xbd\xe6\x95\xb0", "\xcf\x80"}));
    EXPECT_EQ(emoji, "\xf0\x9f\x98\x80");
}

TEST(CliParse, BrokenCodeHasErrorNodes)
{
    const auto f = clitest::writeTemp("broken.py", "def f(:\n    return (1,\n");
    const json j = parseJson(clitest::run("parse --language python --text-file " + q(f)));
    int errors = 0;
    for (const auto& n : j.at("nodes"))
        errors += n["error"].get<bool>() ? 1 : 0;
    EXPECT_GE(errors, 1);
    bool sawErrorType = false;
    for (const auto& n : j.at("nodes"))
        sawErrorType |= n["type"] == "ERROR" || n["missing"].get<bool>();
    EXPECT_TRUE(sawErrorType);
}

TEST(CliParse, ErrorsAndUsage)
{
    const auto bad = clitest::writeTemp("latin1.py", "x = '\xe9t\xe9'\n");
    auto r = clitest::run("parse --language python --text-file " + q(bad));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err; // one line

    EXPECT_EQ(clitest::run("parse --language python").status, 2);
    EXPECT_EQ(clitest::run("parse --language cobol --text-file " + q(bad)).status, 2);
    EXPECT_EQ(clitest::run("parse --text-file x.py --bogus 1").status, 2);
    EXPECT_EQ(clitest::run("parse --language python --text-file /no/such/file.py").status, 1);

    // stdin and --out
    const auto out = clitest::tempDir() / "parse-out.json";
    r = clitest::run("parse --language python --text-file - --out " + q(out), "x = 1\n");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(clitest::readAll(out));
    EXPECT_EQ(j["nodes"][0]["end"], 6);
}

TEST(CliEval, ScoredWithTheBundledModel)
{
    const auto f = clitest::writeTemp("code.py", kCode);
    const json j = parseJson(clitest::run("eval --model default --text-file " + q(f) + " --prompt-bytes 30"));
    ASSERT_TRUE(j.contains("model") && j.contains("tokens") && j.contains("cross_entropy") && j.contains("nodes") &&
                j.contains("summary"))
        << j.dump().substr(0, 300);
    EXPECT_EQ(j["model"], "ascviz-tiny-code");
    const auto& tokens = j["tokens"];
    ASSERT_GT(tokens.size(), 5u);
    std::size_t covered = 0;
    int generated = 0;
    for (const auto& t : tokens) {
        EXPECT_TRUE(t.contains("id") && t.contains("start") && t.contains("end") && t.contains("ntp"));
        covered = std::max(covered, t["end"].get<std::size_t>());
        const bool gen = t["generated"].get<bool>();
        EXPECT_EQ(gen, t["start"].get<std::size_t>() >= 30);
        generated += gen ? 1 : 0;
        if (!t["ntp"].is_null()) {
            EXPECT_GT(t["ntp"].get<double>(), 0.0);
            EXPECT_LE(t["ntp"].get<double>(), 1.0);
        }
    }
    EXPECT_EQ(covered, kCode.size());
    EXPECT_GT(generated, 0);
    EXPECT_LT(generated, static_cast<int>(tokens.size()));

    // every node's asc_eval is the median of its aligned tokens' NtP (recomputed from the JSON)
    const auto& nodes = j["nodes"];
    int withValue = 0, maxDepth = 0;
    for (const auto& n : nodes) {
        for (const char* k :
             {"id", "type", "named", "start", "end", "parent", "depth", "error", "category", "asc_eval", "tokens"})
            ASSERT_TRUE(n.contains(k)) << k;
        std::vector<double> v;
        for (const auto& ti : n["tokens"]) {
            const auto& t = tokens[ti.get<std::size_t>()];
            EXPECT_LT(t["start"].get<std::size_t>(), n["end"].get<std::size_t>());
            EXPECT_GT(t["end"].get<std::size_t>(), n["start"].get<std::size_t>());
            if (!t["ntp"].is_null())
                v.push_back(t["ntp"].get<double>());
        }
        const auto m = median(v);
        EXPECT_EQ(m.has_value(), !n["asc_eval"].is_null());
        if (m) {
            EXPECT_NEAR(n["asc_eval"].get<double>(), *m, 1e-9);
            ++withValue;
        }
        if (n["type"] == "identifier") {
            EXPECT_EQ(n["category"], "Natural Language");
        }
        if (n["type"] == "if_statement") {
            EXPECT_EQ(n["category"], "Decision");
        }
        maxDepth = std::max(maxDepth, n["depth"].get<int>());
    }
    EXPECT_GT(withValue, 10);
    const auto& s = j["summary"];
    EXPECT_EQ(s["ast_nodes"], nodes.size());
    EXPECT_EQ(s["ast_levels"], maxDepth + 1);
    EXPECT_EQ(s["cyclomatic"], 2); // one if
    EXPECT_EQ(s["tokens"], tokens.size());
    EXPECT_GT(s["asc_eval"].get<double>(), 0.0);
    EXPECT_LT(s["asc_eval"].get<double>(), 1.0);
    EXPECT_GT(j["cross_entropy"].get<double>(), 0.0);

    // max aggregation is never below median, node by node
    const json jm = parseJson(clitest::run("eval --text-file " + q(f) + " --aggregation max"));
    ASSERT_EQ(jm["nodes"].size(), nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (!nodes[i]["asc_eval"].is_null()) {
            EXPECT_GE(jm["nodes"][i]["asc_eval"].get<double>(), nodes[i]["asc_eval"].get<double>() - 1e-12);
        }
    EXPECT_EQ(jm["aggregation"], "max");
}

TEST(CliEval, FromAScoresFile)
{
    // The paper's example with hand-made scores: parameters <- ( str ing , char acter ) -> mean 0.234.
    const std::string code = "def f(string, character):\n    pass\n";
    const auto f = clitest::writeTemp("paper.py", code);
    const json scores = {{"model", "hand"},
                         {"tokens",
                          {{{"id", 1}, {"start", 0}, {"end", 3}, {"ntp", nullptr}},
                           {{"id", 2}, {"start", 3}, {"end", 5}, {"ntp", 0.9}},
                           {{"id", 3}, {"start", 5}, {"end", 6}, {"ntp", 0.07}},
                           {{"id", 4}, {"start", 6}, {"end", 9}, {"ntp", 0.4}},
                           {{"id", 5}, {"start", 9}, {"end", 12}, {"ntp", 0.5}},
                           {{"id", 6}, {"start", 12}, {"end", 13}, {"ntp", 0.1}},
                           {{"id", 7}, {"start", 13}, {"end", 18}, {"ntp", 0.1}},
                           {{"id", 8}, {"start", 18}, {"end", 23}, {"ntp", 0.234}},
                           {{"id", 9}, {"start", 23}, {"end", 24}, {"ntp", 0.234}},
                           {{"id", 10}, {"start", 24}, {"end", 35}, {"ntp", 0.6}}}}};
    const auto sf = clitest::writeTemp("paper-scores.json", scores.dump());
    const json j = parseJson(clitest::run("eval --scores " + q(sf) + " --text-file " + q(f) + " --aggregation mean"));
    bool found = false;
    for (const auto& n : j["nodes"])
        if (n["type"] == "parameters") {
            found = true;
            EXPECT_EQ(n["tokens"], json({2, 3, 4, 5, 6, 7, 8}));
            EXPECT_NEAR(n["asc_eval"].get<double>(), 0.234, 1e-12);
        }
    EXPECT_TRUE(found);
    EXPECT_EQ(j["model"], "hand");

    EXPECT_EQ(clitest::run("eval --scores " + q(sf) + " --model default --text-file " + q(f)).status, 2);
    const auto badScores =
        clitest::writeTemp("bad-scores.json", "{\"tokens\": [{\"id\": 1, \"start\": 0, \"end\": 999}]}");
    EXPECT_EQ(clitest::run("eval --scores " + q(badScores) + " --text-file " + q(f)).status, 1);
    // Issue 54 (hostile runs 9): reversed and overlapping tokens and a span inside a character are refused,
    // naming the token, as a session file with the same is.
    const auto cjk = clitest::writeTemp("cjk.py", "x = \"\u4e2d\"\n");
    for (const auto& [tokens, message] : std::vector<std::pair<std::string, std::string>>{
             {R"([{"id": 1, "start": 2, "end": 3}, {"id": 2, "start": 0, "end": 1}])",
              "token 1 [0, 1) goes back before token 0 [2, 3)"},
             {R"([{"id": 1, "start": 0, "end": 3}, {"id": 1, "start": 0, "end": 3}])",
              "token 1 [0, 3) overlaps token 0 [0, 3) by more than one character"},
             {R"([{"id": 1, "start": 0, "end": 6}])", "token 0 [0, 6) begins or ends inside a UTF-8 character"}}) {
        const auto file = clitest::writeTemp("span-scores.json", "{\"tokens\": " + tokens + "}");
        const auto r = clitest::run("eval --scores " + q(file) + " --text-file " + q(cjk));
        EXPECT_EQ(r.status, 1) << tokens;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }
}

TEST(CliEval, ErrorsAndUsage)
{
    const auto f = clitest::writeTemp("small.py", "x = 1\n");
    EXPECT_EQ(clitest::run("eval --model default").status, 2);
    EXPECT_EQ(clitest::run("eval --text-file " + q(f) + " --aggregation mode").status, 2);
    EXPECT_EQ(clitest::run("eval --text-file " + q(f) + " --prompt-bytes -3").status, 2);
    auto r = clitest::run("eval --text-file " + q(f) + " --prompt-bytes 99");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--prompt-bytes"), std::string::npos) << r.err;
    r = clitest::run("eval --model /no/such/model --text-file " + q(f));
    EXPECT_EQ(r.status, 1) << r.err;
    const auto bad = clitest::writeTemp("latin1b.py", "x = '\xe9'\n");
    EXPECT_EQ(clitest::run("eval --text-file " + q(bad)).status, 1);
}

TEST(CliRender, ThreeViews)
{
    const auto f = clitest::writeTemp("render.py", kCode);
    const json parsed = parseJson(clitest::run("parse --language python --text-file " + q(f)));
    std::set<int> parents;
    for (const auto& n : parsed["nodes"])
        if (!n["parent"].is_null())
            parents.insert(n["parent"].get<int>());
    for (const std::string view : {"complete", "partial", "sequence"}) {
        const auto out = clitest::tempDir() / ("view-" + view + ".svg");
        const auto r = clitest::run("render --model default --text-file " + q(f) + " --view " + view + " --svg " +
                                    q(out) + " --prompt-bytes 30");
        ASSERT_EQ(r.status, 0) << r.err;
        const std::string svg = clitest::readAll(out);
        EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << view;
        EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
        EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
        EXPECT_NE(svg.find("ascviz-tiny-code"), std::string::npos);
        if (view == "complete") {
            EXPECT_EQ(countOf(svg, "data-node="), static_cast<int>(parsed["nodes"].size()));
        }
        if (view == "partial") {
            EXPECT_EQ(countOf(svg, "data-node="), static_cast<int>(parents.size()));
            for (int p : parents)
                EXPECT_NE(svg.find("id=\"node-" + std::to_string(p) + "\""), std::string::npos) << p;
        }
        if (view == "sequence") {
            EXPECT_GT(countOf(svg, "data-token="), 10);
            EXPECT_GT(countOf(svg, "class=\"token generated\""), 0);
        }
    }
    const auto out = clitest::tempDir() / "x.svg";
    EXPECT_EQ(clitest::run("render --text-file " + q(f) + " --view tree --svg " + q(out)).status, 2);
    EXPECT_EQ(clitest::run("render --text-file " + q(f) + " --view partial").status, 2);
    EXPECT_EQ(clitest::run("render --text-file " + q(f) + " --view partial --svg /no/such/dir/x.svg").status, 1);
}
