// export-html (docs/share.md, issue 46): the page's embedded data is eval's document, a session's alternatives are
// kept, a run page lists its snippets; refusals (an output folder that does not exist, a text over the limits, a
// session of a newer version, a run over 1,000 snippets) name the path or setting and write nothing.
#include "cli_runner.h"

#include "ascviz/eval/eval.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

using nlohmann::json;
using namespace clitest;
namespace fs = std::filesystem;

namespace {

// The JSON of the page's <script type="application/json" id="ascviz-data"> element.
json embedded(const fs::path& page)
{
    const std::string html = readAll(page);
    const std::string open = "<script type=\"application/json\" id=\"ascviz-data\">";
    const auto a = html.find(open);
    EXPECT_NE(a, std::string::npos);
    const auto b = html.find("</script>", a);
    return json::parse(html.substr(a + open.size(), b - a - open.size()));
}

const char* kCode = "def add(a, b):\n    return a + b  # 和 </script> 😀\n";

// A results database of `n` snippets, scored by hand (one token per line, NtP 0.5 and 0.75), no model.
fs::path handMadeRun(const std::string& name, int n)
{
    const fs::path path = tempDir() / name;
    ascviz::RunInfo run;
    run.modelName = "hand-made";
    run.language = "python";
    run.dtype = "float32";
    run.planned = n;
    auto db = ascviz::ResultsDb::create(path, run);
    const auto categories = ascviz::CategoryMap::forLanguage("python");
    for (int i = 0; i < n; ++i) {
        ascviz::ScoredText s;
        s.model = "hand-made";
        s.text = "x = " + std::to_string(i) + "\ny = x\n";
        const std::size_t nl = s.text.find('\n') + 1;
        ascviz::ScoredToken a, b;
        a.start = 0;
        a.end = nl;
        a.ntp = 0.5;
        b.start = nl;
        b.end = s.text.size();
        b.ntp = 0.75;
        s.tokens = {a, b};
        s.promptBytes = s.text.size();
        s.promptTokens = 2;
        const auto r = ascviz::evaluate(s, "python", ascviz::Aggregation::Median, categories);
        ascviz::SnippetMeta meta;
        meta.index = i;
        meta.id = "s" + std::to_string(i);
        meta.code = s.text;
        meta.promptBytes = s.text.size();
        db.writeSnippet(meta, &r);
    }
    run.status = ascviz::RunStatus::Complete;
    db.updateRun(run);
    return path;
}

} // namespace

TEST(CliShare, EmbedsEvalsDocumentWithTheTextAndSettings)
{
    const auto code = writeTemp("share.py", kCode);
    const auto page = tempDir() / "share.html";
    const Result r = run("export-html --model default --text-file '" + code.string() + "' --aggregation mean --out '" +
                         page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("wrote " + page.string()), std::string::npos) << r.err;
    const Result e = run("eval --model default --text-file '" + code.string() + "' --aggregation mean");
    ASSERT_EQ(e.status, 0) << e.err;
    json doc = embedded(page);
    EXPECT_EQ(doc.at("text"), kCode);
    EXPECT_EQ(doc.at("share").at("source"), code.filename().string()) << "the file's name, not the sender's folders";
    EXPECT_EQ(doc.at("share").at("model_fingerprint").get<std::string>().size(), 64u) << "a SHA-256 in hex";
    EXPECT_FALSE(doc.at("share").at("ascviz_version").get<std::string>().empty());
    doc.erase("text");
    doc.erase("share");
    EXPECT_EQ(doc, json::parse(e.out)) << "the embedded data is exactly eval's document";
}

// Issue 54: a page sent to a colleague named the sender's folders (share.source, a run's model folder and corpus).
// The page holds file names only, nowhere the folder the files are in, unless --full-paths asks for the paths.
TEST(CliShare, PagesNameFilesWithoutTheSendersFolders)
{
    const auto code = writeTemp("private.py", kCode);
    const std::string folder = code.parent_path().string();
    const auto page = tempDir() / "private.html";
    const Result r =
        run("export-html --model default --text-file '" + code.string() + "' --out '" + page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(page);
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(html.find(folder), std::string::npos) << "the page names the folder " << folder;
    EXPECT_EQ(embedded(page).at("share").at("source"), "private.py");

    const Result full = run("export-html --model default --text-file '" + code.string() + "' --full-paths --out '" +
                            page.string() + "'");
    ASSERT_EQ(full.status, 0) << full.err;
    EXPECT_EQ(embedded(page).at("share").at("source"), code.string()) << "asked for: the path as given";

    const auto db = handMadeRun("private.db", 2);
    const auto runPage = tempDir() / "private-run.html";
    const Result rr = run("export-html --db '" + db.string() + "' --out '" + runPage.string() + "'");
    ASSERT_EQ(rr.status, 0) << rr.err;
    std::ifstream runIn(runPage);
    const std::string runHtml((std::istreambuf_iterator<char>(runIn)), std::istreambuf_iterator<char>());
    EXPECT_EQ(runHtml.find(db.parent_path().string() + "/"), std::string::npos) << "the run page names the folder";
    EXPECT_EQ(embedded(runPage).at("snippets").at(0).at("eval").at("share").at("source"), "private.db snippet s0");
}

TEST(CliShare, RefusesAMissingOutputFolderBeforeTheModelRuns)
{
    const auto code = writeTemp("share2.py", kCode);
    const std::string out = (tempDir() / "no-such-folder" / "x.html").string();
    const Result r = run("export-html --model default --text-file '" + code.string() + "' --out '" + out + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("loading"), std::string::npos) << "no model was loaded: " << r.err;
}

TEST(CliShare, RefusesATextOverTheLimitAndWritesNothing)
{
    const auto code = writeTemp("share3.py", kCode);
    const auto page = tempDir() / "over.html";
    const Result r = run("export-html --model default --text-file '" + code.string() + "' --max-text-bytes 10 --out '" +
                         page.string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--max-text-bytes"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(page));
}

TEST(CliShare, SessionKeepsAlternativesAndRefusesANewerVersion)
{
    ascviz::SessionData s;
    s.prompt = "x = 1\n";
    s.language = "python";
    s.modelName = "hand-made";
    s.modelFingerprint = std::string(64, 'a');
    s.scored.model = "hand-made";
    s.scored.text = "x = 1\ny = x\n";
    ascviz::ScoredToken a, b;
    a.id = 1;
    a.end = 6;
    a.ntp = 0.5;
    a.top = {{1, "x = 1\n", 0.5}, {2, "z", 0.25}};
    b.id = 2;
    b.start = 6;
    b.end = s.scored.text.size();
    b.ntp = 0.25;
    b.generated = true;
    s.scored.tokens = {a, b};
    s.scored.promptBytes = 6;
    s.scored.promptTokens = 1;
    const auto file = tempDir() / "s.ascviz";
    ascviz::writeSessionFile(file, s);
    const auto page = tempDir() / "session.html";
    const Result r = run("export-html --session '" + file.string() + "' --out '" + page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = embedded(page);
    EXPECT_EQ(doc.at("share").at("model_fingerprint"), s.modelFingerprint);
    ASSERT_EQ(doc.at("tokens").at(0).at("top").size(), 2u);
    EXPECT_EQ(doc.at("tokens").at(0).at("top").at(1).at("text"), "z");
    EXPECT_EQ(doc.at("tokens").at(0).at("top").at(1).at("prob"), 0.25);
    EXPECT_FALSE(doc.at("tokens").at(1).contains("top"));

    json newer = ascviz::sessionToJson(s);
    newer["version"] = ascviz::kSessionVersion + 1;
    const auto future = writeTemp("future.ascviz", newer.dump());
    const auto page2 = tempDir() / "future.html";
    const Result f = run("export-html --session '" + future.string() + "' --out '" + page2.string() + "'");
    EXPECT_EQ(f.status, 1);
    EXPECT_NE(f.err.find(future.string()), std::string::npos) << f.err;
    EXPECT_NE(f.err.find("newer"), std::string::npos) << f.err;
    EXPECT_FALSE(fs::exists(page2));
}

TEST(CliShare, RunPageListsTheSnippetsAndRefusesOverAThousand)
{
    const auto small = handMadeRun("small.db", 4);
    const auto page = tempDir() / "run.html";
    const Result r = run("export-html --db '" + small.string() + "' --out '" + page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = embedded(page);
    EXPECT_EQ(doc.at("kind"), "run");
    ASSERT_EQ(doc.at("snippets").size(), 4u);
    const json& first = doc.at("snippets").at(0);
    EXPECT_EQ(first.at("id"), "s0");
    EXPECT_EQ(first.at("eval").at("text"), "x = 0\ny = x\n");
    // the stored value and the page's evaluation of the stored tokens agree
    EXPECT_EQ(first.at("asc_eval"), first.at("eval").at("summary").at("asc_eval"));
    EXPECT_TRUE(doc.at("report").contains("categories"));

    const auto big = handMadeRun("big.db", 1001);
    const auto page2 = tempDir() / "big.html";
    const Result f = run("export-html --db '" + big.string() + "' --out '" + page2.string() + "'");
    EXPECT_EQ(f.status, 1);
    EXPECT_NE(f.err.find("1001 snippets"), std::string::npos) << f.err;
    EXPECT_NE(f.err.find("--limit"), std::string::npos) << f.err;
    EXPECT_FALSE(fs::exists(page2));
    const Result l = run("export-html --db '" + big.string() + "' --limit 3 --out '" + page2.string() + "'");
    ASSERT_EQ(l.status, 0) << l.err;
    const json limited = embedded(page2);
    EXPECT_EQ(limited.at("snippets").size(), 3u);
    EXPECT_NE(limited.at("note").get<std::string>().find("first 3 of the run's 1001"), std::string::npos);
}

TEST(CliShare, UsageErrors)
{
    EXPECT_EQ(run("export-html --model default --text-file x.py").status, 2) << "--out is required";
    EXPECT_EQ(run("export-html --scores s.json --text-file x.py --out x.html --heads").status, 2)
        << "--heads needs a model";
    EXPECT_EQ(run("export-html --session s.ascviz --out x.html --heads").status, 2);
    EXPECT_EQ(run("export-html --model default --text-file x.py --out x.html --limit 3").status, 2);
    EXPECT_EQ(run("export-html --session s.ascviz --model default --out x.html").status, 2);
}

TEST(CliShare, HeadsEmbedEvalHeadsAttention)
{
    const auto code = writeTemp("heads.py", kCode);
    const auto page = tempDir() / "heads.html";
    const Result r =
        run("export-html --model default --text-file '" + code.string() + "' --heads --out '" + page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const Result e = run("eval --model default --text-file '" + code.string() + "' --heads");
    ASSERT_EQ(e.status, 0) << e.err;
    const json want = json::parse(e.out);
    json doc = embedded(page);
    doc.erase("text");
    doc.erase("share");
    EXPECT_EQ(doc, want) << "the embedded data is exactly eval --heads' document";
    const json& a = want.at("attention");
    const int tokens = static_cast<int>(want.at("tokens").size());
    ASSERT_EQ(a.at("rows").size(), a.at("layers").get<std::size_t>());
    int arcs = 0;
    for (const auto& layer : a.at("rows")) {
        ASSERT_EQ(layer.size(), a.at("heads").get<std::size_t>());
        for (const auto& head : layer) {
            ASSERT_EQ(static_cast<int>(head.size()), tokens);
            for (int q = 0; q < tokens; ++q) {
                const json& row = head[static_cast<std::size_t>(q)];
                ASSERT_EQ(row.size() % 2, 0u);
                ASSERT_LE(row.size(), 2 * a.at("keep").get<std::size_t>());
                double previous = 1.0;
                for (std::size_t k = 0; k < row.size(); k += 2) {
                    const int key = row[k].get<int>();
                    const double w = row[k + 1].get<double>();
                    EXPECT_TRUE(key >= -1 && key <= q) << "a causal key: at most the query itself";
                    EXPECT_GE(w, a.at("min_weight").get<double>() - 5e-4);
                    EXPECT_LE(w, previous) << "heaviest first";
                    previous = w;
                    ++arcs;
                }
            }
        }
    }
    EXPECT_GT(arcs, tokens) << "every query keeps at least its heaviest key in most heads";
    // the scores are eval's own: --heads takes its attention from a pass of its own
    const Result plain = run("eval --model default --text-file '" + code.string() + "'");
    json without = want;
    without.erase("attention");
    EXPECT_EQ(without, json::parse(plain.out));
}

TEST(CliShare, AttributionEmbedsAttributesDocument)
{
    const auto code = writeTemp("attr.py", kCode);
    const auto page = tempDir() / "attr.html";
    const std::string common = "--model default --text-file '" + code.string() + "' --prompt-bytes 15";
    const Result r = run("export-html " + common + " --attribution all --out '" + page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const Result a = run("attribute " + common + " --target all --json --quiet");
    ASSERT_EQ(a.status, 0) << a.err;
    json want = json::parse(a.out);
    for (const char* k : {"model", "language", "budget"})
        want.erase(k); // the command's own settings; the page has them in its header
    const json doc = embedded(page);
    EXPECT_EQ(doc.at("attribution"), want) << "the embedded attribution is attribute's (occlusion, its defaults)";
    EXPECT_FALSE(want.at("nodes").empty());
    const Result e = run("eval " + common);
    ASSERT_EQ(e.status, 0) << e.err;
    json rest = doc;
    for (const char* k : {"text", "share", "attribution"})
        rest.erase(k);
    EXPECT_EQ(rest, json::parse(e.out));
    EXPECT_EQ(run("export-html --model default --text-file '" + code.string() + "' --attribution all --out '" +
                  (tempDir() / "attr2.html").string() + "'")
                  .status,
              2)
        << "--attribution needs --prompt-bytes";
}

TEST(CliShare, ScoresFileGivesEvalScoresDocument)
{
    const auto code = writeTemp("scored.py", kCode);
    const Result s = run("score --model default --text-file '" + code.string() + "'");
    ASSERT_EQ(s.status, 0) << s.err;
    const auto scores = writeTemp("scored.json", s.out);
    const auto page = tempDir() / "scored.html";
    const std::string common = "--scores '" + scores.string() + "' --text-file '" + code.string() + "'";
    const Result r = run("export-html " + common + " --aggregation max --out '" + page.string() + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    const Result e = run("eval " + common + " --aggregation max");
    ASSERT_EQ(e.status, 0) << e.err;
    json doc = embedded(page);
    EXPECT_TRUE(doc.at("share").at("model_fingerprint").is_null()) << "no model folder: no fingerprint";
    EXPECT_EQ(doc.at("share").at("source"), code.filename().string());
    doc.erase("text");
    doc.erase("share");
    EXPECT_EQ(doc, json::parse(e.out));
}

TEST(CliShare, AnUnwritableOutputLeavesTheOlderPageAndNoTemporaryFile)
{
    const auto code = writeTemp("unwritable.py", kCode);
    const fs::path dir = tempDir() / "unwritable";
    fs::create_directories(dir);
    const fs::path page = dir / "page.html";
    std::ofstream(page) << "older page";
    // a file size limit of 8 blocks: the page (some 40 KB) cannot be written
    const std::string cmd = "(ulimit -f 8; '" + std::string(ASCVIZ_CLI_PATH) +
                            "' export-html --model default --text-file '" + code.string() + "' --out '" +
                            page.string() + "') >/dev/null 2>'" + (dir.parent_path() / "unwritable.err").string() + "'";
    const int rc = std::system(cmd.c_str());
    EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 1);
    const std::string err = readAll(dir.parent_path() / "unwritable.err");
    EXPECT_NE(err.find("cannot write " + page.string()), std::string::npos) << err;
    EXPECT_EQ(readAll(page), "older page") << "the older page stays";
    int files = 0;
    for (const auto& f : fs::directory_iterator(dir))
        files += f.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 1) << "the temporary file is removed";
    // an output that is a folder
    const Result r =
        run("export-html --model default --text-file '" + code.string() + "' --out '" + dir.string() + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("it is a folder"), std::string::npos) << r.err;
    fs::remove_all(dir);
}
