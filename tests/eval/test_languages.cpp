// The language registry (syntax/language.h): the bundled descriptors and the rules a descriptor obeys.
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/syntax/language.h"
#include "ascviz/syntax/syntax.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ascviz;

namespace {

fs::path freshDir(const std::string& name)
{
    return ascviz::testdata::freshTempDir(name);
} // removed at exit

void writeDescriptor(const fs::path& root, const std::string& folder, const std::string& json)
{
    fs::create_directories(root / folder);
    std::ofstream(root / folder / "language.json") << json;
}

std::string descriptor(const std::string& id, bool isDefault = false)
{
    return R"({"id": ")" + id + R"(", "name": "X", "default": )" + (isDefault ? "true" : "false") +
           R"(, "grammar": {"distribution": "tree-sitter-)" + id +
           R"(", "version": "1.0", "sha256": "00", "symbol": "s"}, "extensions": [".X1"], "categories": "c.json",
              "decision_points": {"types": ["if_statement"]},
              "highlight": {"keywords": ["if"], "line_comment": "//", "block_comments": [["/*", "*/"]]}})";
}

} // namespace

TEST(LanguageRegistry, EveryCompiledGrammarHasADescriptorWithACategoryTable)
{
    const auto& reg = LanguageRegistry::instance();
    EXPECT_EQ(reg.ids(), SyntaxTree::languages());
    for (const auto& l : reg.languages()) {
        EXPECT_FALSE(l.extensions.empty()) << l.id;
        EXPECT_FALSE(l.decisionPoints.empty()) << l.id;
        EXPECT_FALSE(l.highlight.keywords.empty()) << l.id;
        EXPECT_TRUE(fs::exists(l.categoryFile)) << l.categoryFile;
        EXPECT_NO_THROW(CategoryMap::forLanguage(l.id)) << l.id;
        for (const auto& e : l.extensions)
            EXPECT_EQ(reg.forFile("dir/file" + e), &l) << e;
    }
    EXPECT_TRUE(reg.defaultLanguage().isDefault || reg.languages().size() == 1);
}

TEST(LanguageRegistry, FileExtensionsAreMatchedCaseInsensitively)
{
    const auto& reg = LanguageRegistry::instance();
    const auto& l = reg.defaultLanguage();
    ASSERT_FALSE(l.extensions.empty());
    std::string upper = l.extensions.front();
    for (auto& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(reg.forFile("A" + upper), &l);
    EXPECT_EQ(reg.forFile("README"), nullptr);
    EXPECT_EQ(reg.forFile("notes.unknown-ext"), nullptr);
}

TEST(LanguageRegistry, UnknownLanguageNamesTheSupportedOnes)
{
    try {
        LanguageRegistry::instance().get("cobol");
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("unknown language 'cobol'"), std::string::npos) << m;
        EXPECT_NE(m.find(LanguageRegistry::instance().defaultLanguage().id), std::string::npos) << m;
    }
    EXPECT_THROW(SyntaxTree::parse("cobol", "x"), InputError);
}

TEST(LanguageRegistry, LoadsDescriptorsAndKeepsOnlyCompiledGrammars)
{
    const fs::path root = freshDir("load");
    writeDescriptor(root, "zeta", descriptor("zeta"));
    writeDescriptor(root, "alpha", descriptor("alpha", true));
    writeDescriptor(root, "beta", descriptor("beta"));
    fs::create_directories(root / "not-a-language"); // no language.json: ignored
    const auto all = LanguageRegistry::load(root, {});
    EXPECT_EQ(all.ids(), (std::vector<std::string>{"alpha", "beta", "zeta"}));
    EXPECT_EQ(all.defaultLanguage().id, "alpha");
    const LanguageInfo& a = all.get("alpha");
    EXPECT_EQ(a.extensions, std::vector<std::string>{".x1"}); // lower-cased
    EXPECT_EQ(a.categoryFile, root / "alpha" / "c.json");
    ASSERT_EQ(a.highlight.blockComments.size(), 1u);
    EXPECT_EQ(a.highlight.blockComments[0].second, "*/");
    EXPECT_EQ(a.highlight.lineComment, "//");
    const auto some = LanguageRegistry::load(root, {"zeta", "beta"});
    EXPECT_EQ(some.ids(), (std::vector<std::string>{"beta", "zeta"}));
    EXPECT_EQ(some.defaultLanguage().id, "beta"); // no default left: the first by id
    fs::remove_all(root);
}

TEST(LanguageRegistry, MalformedDescriptorsAreInputErrorsNamingTheFile)
{
    const fs::path root = freshDir("bad");
    writeDescriptor(root, "alpha", R"({"id": "alpha", "grammar": {"distribution": "d", "version": "1"}})");
    try {
        LanguageRegistry::load(root, {});
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find((root / "alpha" / "language.json").string()), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("categories"), std::string::npos) << e.what();
    }
    writeDescriptor(root, "alpha", "{ not json");
    try {
        LanguageRegistry::load(root, {});
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.context().path, (root / "alpha" / "language.json").string());
        EXPECT_TRUE(e.context().byteOffset.has_value());
    }
    writeDescriptor(root, "alpha", descriptor("beta")); // id differs from its folder
    EXPECT_THROW(LanguageRegistry::load(root, {}), InputError);
    writeDescriptor(root, "alpha", descriptor("alpha", true));
    writeDescriptor(root, "beta", descriptor("beta", true)); // two defaults
    EXPECT_THROW(LanguageRegistry::load(root, {}), InputError);
    EXPECT_THROW(LanguageRegistry::load(root / "missing", {}), InputError);
    fs::remove_all(root);
}

// CodeBLEU's per-language rules come from the descriptor ("codebleu_rules"), checked when it is read.
TEST(LanguageRegistry, CodeBleuRulesAreReadAndChecked)
{
    const fs::path root = freshDir("codebleu");
    std::string d = descriptor("alpha");
    d.insert(d.size() - 1, R"(, "codebleu_rules": {"comments": "tokenize", "dataflow": "DFG_java"})");
    writeDescriptor(root, "alpha", d);
    const auto reg = LanguageRegistry::load(root, {});
    EXPECT_EQ(reg.get("alpha").codebleuRules.comments, "tokenize");
    EXPECT_EQ(reg.get("alpha").codebleuRules.dataflow, "DFG_java");
    writeDescriptor(root, "alpha", descriptor("alpha")); // none: c-style comments, no data-flow rules
    EXPECT_EQ(LanguageRegistry::load(root, {}).get("alpha").codebleuRules.comments, "c-style");
    EXPECT_TRUE(LanguageRegistry::load(root, {}).get("alpha").codebleuRules.dataflow.empty());
    for (const char* bad : {R"({"comments": "tokenize"})", R"({"dataflow": "DFG_cobol"})",
                            R"({"comments": "hash", "dataflow": "DFG_python"})", R"("DFG_python")"}) {
        d = descriptor("alpha");
        d.insert(d.size() - 1, std::string(R"(, "codebleu_rules": )") + bad);
        writeDescriptor(root, "alpha", d);
        try {
            LanguageRegistry::load(root, {});
            ADD_FAILURE() << "no InputError for " << bad;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("language.json"), std::string::npos) << e.what();
        }
    }
    // The bundled registry: rules exactly where the codebleu package has them (python, java).
    for (const auto& l : LanguageRegistry::instance().languages())
        EXPECT_EQ(!l.codebleuRules.dataflow.empty(), l.id == "python" || l.id == "java") << l.id;
    fs::remove_all(root);
}

// CodeSyntax's keyword baseline uses "all Python and Java keywords" (seed 002): for Python that is
// keyword.kwlist, True, False and None included (issue 43), plus the soft keywords match and case.
TEST(LanguageRegistry, PythonKeywordBaselineIsComplete)
{
    const auto& py = LanguageRegistry::instance().get("python");
    const auto& kw = py.baselineKeywords();
    const std::vector<std::string> kwlist = {"False",  "None",   "True",    "and",      "as",       "assert", "async",
                                             "await",  "break",  "class",   "continue", "def",      "del",    "elif",
                                             "else",   "except", "finally", "for",      "from",     "global", "if",
                                             "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
                                             "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
    EXPECT_EQ(kwlist.size(), 35u);
    for (const auto& k : kwlist)
        EXPECT_NE(std::find(kw.begin(), kw.end(), k), kw.end()) << k;
    // every highlighted keyword is a baseline keyword too
    for (const auto& k : py.highlight.keywords)
        EXPECT_NE(std::find(kw.begin(), kw.end(), k), kw.end()) << k;
    // a language without "keyword_baseline" uses its highlight keywords
    LanguageInfo bare;
    bare.highlight.keywords = {"if"};
    EXPECT_EQ(bare.baselineKeywords(), std::vector<std::string>{"if"});
}
