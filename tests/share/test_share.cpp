// The share room (docs/share.md): the JSON embedded in the page survives hostile strings, the page is written
// whole or not at all, refusals name the path, and the compiled-in assets are the files of resources/share/.
#include "ascviz/base/error.h"
#include "ascviz/share/share.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The text of <script type="application/json" id="ascviz-data">…</script>, as an HTML parser ends it: at the
// first "</script" (any case).
std::string dataElement(const std::string& html)
{
    const std::string open = "<script type=\"application/json\" id=\"ascviz-data\">";
    const auto a = html.find(open);
    EXPECT_NE(a, std::string::npos);
    std::string lower = html;
    for (auto& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto b = lower.find("</script", a + open.size());
    EXPECT_NE(b, std::string::npos);
    return html.substr(a + open.size(), b - a - open.size());
}

const std::string kHostile = "x = \"</script><script>alert(1)</script>\"  # </SCRIPT > <!-- -->\n"
                             "s = \"\u2028\u2029\"  # 你好, 😀, ☃\n";

json hostileDoc()
{
    return {{"model", "m</script>"},
            {"text", kHostile},
            {"tokens", json::array({{{"id", 1}, {"start", 0}, {"end", 3}, {"ntp", 0.25}}})},
            {"nodes", json::array()},
            {"share", {{"note", "<!--<script>"}}}};
}

} // namespace

TEST(Share, EmbeddedJsonSurvivesHostileStrings)
{
    const json doc = hostileDoc();
    const std::string text = ascviz::shareJsonText(doc);
    EXPECT_EQ(text.find('<'), std::string::npos) << "every '<' is escaped: neither </script> nor <!-- can occur";
    EXPECT_EQ(text.find("\u2028"), std::string::npos);
    EXPECT_EQ(text.find("\u2029"), std::string::npos);
    EXPECT_NE(text.find("你好"), std::string::npos) << "CJK stays UTF-8 (not \\u escapes: a third of the size)";
    EXPECT_NE(text.find("😀"), std::string::npos);
    EXPECT_EQ(json::parse(text), doc);

    // in the page, the element ends where the JSON ends, and its text parses back to the document
    const std::string html = ascviz::shareHtml(doc, ascviz::SharePage::Snippet, "t");
    EXPECT_EQ(json::parse(dataElement(html)), doc);
}

TEST(Share, TitleIsEscapedAndThePageIsSelfContained)
{
    const std::string html = ascviz::shareHtml(hostileDoc(), ascviz::SharePage::Run, "a <b> & \"c\"");
    EXPECT_NE(html.find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
    // base/xml.h's escaper, the SVG's: a control character in a file name is no raw byte in the page
    const std::string odd = ascviz::shareHtml(hostileDoc(), ascviz::SharePage::Run, "x\x01'y");
    EXPECT_NE(odd.find("x\xef\xbf\xbd&apos;y"), std::string::npos);
    EXPECT_NE(html.find("data-kind=\"run\""), std::string::npos);
    EXPECT_EQ(html.find("@ASCVIZ_"), std::string::npos) << "every slot of page.html is filled";
    EXPECT_NE(html.find(ascviz::shareAsset("page.js")), std::string::npos);
    EXPECT_NE(html.find(ascviz::shareAsset("page.css")), std::string::npos);
    // nothing is loaded from elsewhere: no src/href attribute, no import, url() only of the page's own #ids; the
    // CSP forbids it anyway
    for (const char* bad : {" src=", " href=", "@import", "fetch(", "XMLHttpRequest", "<link"})
        EXPECT_EQ(html.find(bad), std::string::npos) << bad;
    for (auto at = html.find("url("); at != std::string::npos; at = html.find("url(", at + 1))
        EXPECT_EQ(html.compare(at, 5, "url(#"), 0) << html.substr(at, 40);
    EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
    // the script and style cannot end their own elements early
    for (const char* asset : {"page.js", "page.css"}) {
        std::string lower = ascviz::shareAsset(asset);
        for (auto& c : lower)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        EXPECT_EQ(lower.find("</script"), std::string::npos) << asset;
        EXPECT_EQ(lower.find("</style"), std::string::npos) << asset;
    }
}

TEST(Share, AssetsAreTheResourceFiles)
{
    const fs::path dir = ascviz::testdata::envDir("ASCVIZ_RESOURCES") / "share";
    for (const char* name : {"page.html", "page.css", "page.js"})
        EXPECT_EQ(ascviz::shareAsset(name), readAll(dir / name)) << name << " was not rebuilt into the library";
    EXPECT_THROW(ascviz::shareAsset("other.js"), ascviz::Error);
}

TEST(Share, WritesWholeAndReplaces)
{
    ascviz::testdata::TempDir dir("share");
    const fs::path out = dir / "page.html";
    std::ofstream(out) << "old";
    ascviz::writeShareHtml(out, hostileDoc(), ascviz::SharePage::Snippet, "t");
    const std::string html = readAll(out);
    EXPECT_EQ(html, ascviz::shareHtml(hostileDoc(), ascviz::SharePage::Snippet, "t"));
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        (void)e;
        ++files;
    }
    EXPECT_EQ(files, 1u) << "no temporary file is left next to the page";
}

TEST(Share, RefusesAMissingFolderAndNamesIt)
{
    ascviz::testdata::TempDir dir("share");
    const fs::path out = dir / "no-such-folder" / "page.html";
    try {
        ascviz::writeShareHtml(out, hostileDoc(), ascviz::SharePage::Snippet, "t");
        FAIL() << "expected an InputError";
    } catch (const ascviz::InputError& e) {
        EXPECT_NE(std::string(e.what()).find(out.string()), std::string::npos) << e.what();
        EXPECT_EQ(e.context().path, out.string());
        EXPECT_TRUE(ascviz::hasRemedy(e.context().remedy, ascviz::Remedy::NewOutput));
    }
    EXPECT_FALSE(fs::exists(out));
    // a folder in the way
    fs::create_directory(dir / "a-folder.html");
    EXPECT_THROW(ascviz::writeShareHtml(dir / "a-folder.html", hostileDoc(), ascviz::SharePage::Snippet, "t"),
                 ascviz::InputError);
}

TEST(Share, AFailedWriteLeavesTheOldPageAndNoTemporaryFile)
{
    // A file size limit (ulimit -f) makes the write fail half-way, also for root; SIGXFSZ ignored as ascviz-cli does.
    ascviz::testdata::TempDir dir("share");
    const fs::path out = dir / "page.html";
    std::ofstream(out) << "old";
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 1024; // the page is ~60 KB
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool threw = false;
    try {
        ascviz::writeShareHtml(out, hostileDoc(), ascviz::SharePage::Snippet, "t");
    } catch (const ascviz::InputError& e) {
        threw = true;
        EXPECT_NE(std::string(e.what()).find(out.string()), std::string::npos) << e.what();
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, oldHandler);
    EXPECT_TRUE(threw);
    EXPECT_EQ(readAll(out), "old");
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        (void)e;
        ++files;
    }
    EXPECT_EQ(files, 1u) << "the temporary file is removed";
}

TEST(Share, RefusesInvalidUtf8InTheData)
{
    ascviz::testdata::TempDir dir("share");
    json doc = hostileDoc();
    doc["text"] = std::string("bad \xC3\x28 byte");
    const fs::path out = dir / "page.html";
    try {
        ascviz::writeShareHtml(out, doc, ascviz::SharePage::Snippet, "t");
        FAIL() << "expected an InputError";
    } catch (const ascviz::InputError& e) {
        EXPECT_NE(std::string(e.what()).find(out.string()), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out));
}
