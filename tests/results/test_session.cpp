// Session files (core): a round trip keeps every field, the file is the documented JSON, and malformed
// files are refused with a message naming what is wrong.
#include "ascviz/base/error.h"
#include "ascviz/base/sha256.h"
#include "ascviz/results/session.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ascviz;

namespace {

std::filesystem::path tempFile(const std::string& name)
{
    const auto dir = ascviz::testdata::processTempDir() / "session"; // removed at exit
    std::filesystem::create_directories(dir);
    return dir / name;
}

void writeText(const std::filesystem::path& p, const std::string& text)
{
    std::ofstream(p, std::ios::binary) << text;
}

std::string readText(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

SessionData sample()
{
    SessionData s;
    s.prompt = "def f(x):\n";
    s.aggregation = Aggregation::Max;
    s.categoryFile = "/tmp/cats.json";
    s.generation.maxNewTokens = 12;
    s.generation.greedy = false;
    s.generation.temperature = 0.7;
    s.generation.topP = 0.9;
    s.generation.topK = 5;
    s.generation.seed = 42;
    s.view = "partial";
    s.origin = SessionOrigin::Generated;
    s.cancelled = true;
    s.modelName = "tiny-gpt2";
    s.modelDir = "/models/tiny-gpt2";
    s.architecture = "gpt2";
    s.scored.model = "tiny-gpt2";
    s.scored.text = "def f(x):\n    return 值\n";
    s.scored.promptBytes = 10;
    s.scored.promptTokens = 2;
    ScoredToken a;
    a.id = 3;
    a.start = 0;
    a.end = 3;
    a.top = {{3, "def", 0.5}, {7, "x", 0.25}};
    ScoredToken b;
    b.id = 9;
    b.start = 3;
    b.end = s.scored.text.size();
    b.ntp = 0.125;
    b.generated = true;
    s.scored.tokens = {a, b};
    return s;
}

} // namespace

TEST(Session, RoundTripKeepsEveryField)
{
    const auto file = tempFile("round.ascviz");
    const SessionData s = sample();
    writeSessionFile(file, s);
    const SessionData r = readSessionFile(file);
    EXPECT_EQ(r.prompt, s.prompt);
    EXPECT_EQ(r.aggregation, Aggregation::Max);
    EXPECT_EQ(r.categoryFile, s.categoryFile);
    EXPECT_EQ(r.generation.maxNewTokens, 12);
    EXPECT_FALSE(r.generation.greedy);
    EXPECT_DOUBLE_EQ(r.generation.temperature, 0.7);
    EXPECT_DOUBLE_EQ(r.generation.topP, 0.9);
    EXPECT_EQ(r.generation.topK, 5);
    EXPECT_EQ(r.generation.seed, 42u);
    EXPECT_EQ(r.view, "partial");
    EXPECT_EQ(r.origin, SessionOrigin::Generated);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.modelName, s.modelName);
    EXPECT_EQ(r.modelDir, s.modelDir);
    EXPECT_EQ(r.architecture, s.architecture);
    EXPECT_EQ(r.scored.text, s.scored.text);
    EXPECT_EQ(r.scored.promptBytes, 10u);
    EXPECT_EQ(r.scored.promptTokens, 2u);
    ASSERT_EQ(r.scored.tokens.size(), 2u);
    EXPECT_FALSE(r.scored.tokens[0].ntp.has_value());
    EXPECT_EQ(r.scored.tokens[1].ntp, 0.125);
    EXPECT_TRUE(r.scored.tokens[1].generated);
    ASSERT_EQ(r.scored.tokens[0].top.size(), 2u);
    EXPECT_EQ(r.scored.tokens[0].top[1].text, "x");
    // Writing what was read gives the same bytes (the format is stable).
    const auto again = tempFile("again.ascviz");
    writeSessionFile(again, r);
    EXPECT_EQ(readText(again), readText(file));
    const auto j = nlohmann::json::parse(readText(file));
    EXPECT_EQ(j["format"], "ascviz-session");
    EXPECT_EQ(j["version"], kSessionVersion);
    EXPECT_EQ(j["settings"]["aggregation"], "max");
    EXPECT_EQ(j["result"]["origin"], "generated");
}

TEST(Session, DefaultsForMissingOptionalFields)
{
    const auto file = tempFile("minimal.ascviz");
    writeText(file, R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "ab"}})");
    const SessionData r = readSessionFile(file);
    EXPECT_EQ(r.prompt, "x");
    EXPECT_EQ(r.view, "sequence");
    EXPECT_EQ(r.aggregation, Aggregation::Median);
    EXPECT_EQ(r.origin, SessionOrigin::Scored);
    EXPECT_TRUE(r.scored.tokens.empty());
    EXPECT_EQ(r.scored.promptBytes, 2u);
}

TEST(Session, MalformedFilesAreRefused)
{
    struct Case {
        const char* name;
        std::string text;
        std::string expected;
    };
    const Case cases[] = {
        {"notjson", "{ this is not json", "not valid JSON"},
        {"noformat", R"({"prompt": "x", "result": {"text": "a"}})", "not an AsC-Viz session file"},
        {"newer", R"({"format": "ascviz-session", "version": 99, "prompt": "x", "result": {"text": "a"}})", "newer"},
        {"noprompt", R"({"format": "ascviz-session", "result": {"text": "a"}})", "\"prompt\""},
        {"noresult", R"({"format": "ascviz-session", "prompt": "x"})", "\"result\""},
        {"span",
         R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "ab", "tokens": [{"id": 1, "start": 0, "end": 9}]}})",
         "outside the text"},
        {"wrongtype", R"({"format": "ascviz-session", "prompt": 5, "result": {"text": "a"}})", "wrong type"},
        {"tokensnotarray", R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "a", "tokens": 3}})",
         "array"},
    };
    for (const Case& c : cases) {
        const auto file = tempFile(std::string(c.name) + ".ascviz");
        writeText(file, c.text);
        try {
            readSessionFile(file);
            ADD_FAILURE() << c.name << ": accepted";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(c.expected), std::string::npos) << c.name << ": " << what;
        }
    }
    EXPECT_THROW(readSessionFile(tempFile("does-not-exist.ascviz")), Error);
    EXPECT_THROW(writeSessionFile("/nonexistent-dir/x.ascviz", sample()), InputError);
}

TEST(Session, VersionTwoKeepsWhatTheNumbersDependOn)
{
    SessionData s = sample();
    s.language = "python";
    s.categoryTable = R"({"categories": {"Loops": ["for_statement"]}})";
    s.categorySha256 = sha256Hex(s.categoryTable);
    s.modelDtype = "bfloat16";
    s.modelFingerprint = std::string(64, 'a');
    s.ascEval = 0.596;
    const auto file = tempFile("v2.ascviz");
    writeSessionFile(file, s);
    const SessionData r = readSessionFile(file);
    EXPECT_EQ(r.version, 2);
    EXPECT_TRUE(r.missing.empty());
    EXPECT_EQ(r.language, "python");
    EXPECT_EQ(r.categoryFile, "/tmp/cats.json");
    EXPECT_EQ(r.categoryTable, s.categoryTable);
    EXPECT_EQ(r.categorySha256, s.categorySha256);
    EXPECT_EQ(r.modelDtype, "bfloat16");
    EXPECT_EQ(r.modelFingerprint, std::string(64, 'a'));
    EXPECT_EQ(r.ascEval, 0.596);
    const auto j = nlohmann::json::parse(readText(file));
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["settings"]["language"], "python");
    EXPECT_EQ(j["model"]["fingerprint"], std::string(64, 'a'));
    EXPECT_EQ(j["result"]["asc_eval"], 0.596);
    const auto again = tempFile("v2-again.ascviz");
    writeSessionFile(again, r);
    EXPECT_EQ(readText(again), readText(file));
}

TEST(Session, VersionOneSaysWhatItDoesNotRecord)
{
    const auto file = tempFile("v1.ascviz");
    writeText(file, R"({"format": "ascviz-session", "version": 1, "prompt": "x",
                        "model": {"name": "m"}, "settings": {"aggregation": "max"}, "result": {"text": "ab"}})");
    const SessionData r = readSessionFile(file);
    EXPECT_EQ(r.version, 1);
    EXPECT_EQ(r.missing,
              (std::vector<std::string>{"model fingerprint", "model dtype", "language", "category checksum"}));
    EXPECT_EQ(r.language, "");
    EXPECT_EQ(r.aggregation, Aggregation::Max);
    EXPECT_FALSE(r.ascEval.has_value());
}

TEST(Session, CategoryCopyMustMatchItsChecksum)
{
    SessionData s = sample();
    s.categoryTable = R"({"categories": {}})";
    s.categorySha256 = sha256Hex("something else");
    const auto file = tempFile("badsum.ascviz");
    writeSessionFile(file, s);
    try {
        readSessionFile(file);
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("category_sha256"), std::string::npos) << e.what();
    }
}

namespace {

std::string refusal(const std::filesystem::path& file)
{
    try {
        readSessionFile(file);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

} // namespace

TEST(Session, NtpMustBeAProbabilityAsInEvalScores)
{
    // The issue's session: NtP 1e308, -1e308 and 5 opened and showed an AsC-Eval of 0.434 with no note.
    const std::string head = R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "abc", "tokens": [)";
    const std::string ok = R"({"id": 1, "start": 0, "end": 1, "ntp": 0.5}, )";
    for (const char* bad : {"1e308", "-1e308", "5", "-0.25"}) {
        const auto file = tempFile("ntp.ascviz");
        writeText(file, head + ok + R"({"id": 2, "start": 1, "end": 2, "ntp": )" + bad + "}]}}");
        const std::string e = refusal(file);
        EXPECT_NE(e.find(file.string() + ": session file: token 1 has ntp outside [0, 1]"), std::string::npos)
            << bad << ": " << e;
    }
    const auto alt = tempFile("alt.ascviz");
    writeText(alt, head + R"({"id": 1, "start": 0, "end": 1, "top": [{"id": 3, "prob": 2.5}]}]}})");
    EXPECT_NE(refusal(alt).find("token 0 has an alternative's prob outside [0, 1]"), std::string::npos);
    const auto eval = tempFile("asceval.ascviz");
    writeText(eval, R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "a", "asc_eval": 7}})");
    EXPECT_NE(refusal(eval).find("\"asc_eval\" is not within [0, 1]"), std::string::npos);
    EXPECT_TRUE(isValidNtp(0.0) && isValidNtp(1.0) && !isValidNtp(1.0000001) && !isValidNtp(std::nan("")));
}

TEST(Session, TokensAreBoundedByTheTextBeforeTheyAreBuilt)
{
    // 1 M tokens over a 79-byte text took 1.35 GB: refused once the count passes the text's bytes + slack, while
    // the file is parsed (the text comes first, as AsC-Viz writes it) and again after (a file with it last).
    const std::string text(79, 'a');
    std::string tokens;
    for (int i = 0; i < 79 + 65; ++i)
        tokens += std::string(i ? "," : "") + R"({"id": 1, "start": 0, "end": 1})";
    const auto first = tempFile("many.ascviz");
    writeText(first, R"({"format": "ascviz-session", "prompt": "x", "result": {"text": ")" + text +
                         R"(", "tokens": [)" + tokens + "]}}");
    EXPECT_NE(refusal(first).find("more tokens (144) than its text of 79 bytes can hold"), std::string::npos)
        << refusal(first);
    const auto last = tempFile("many-last.ascviz");
    writeText(last, R"({"format": "ascviz-session", "prompt": "x", "result": {"tokens": [)" + tokens +
                        R"(], "text": ")" + text + "\"}}");
    EXPECT_NE(refusal(last).find("more tokens (144) than its text of 79 bytes can hold"), std::string::npos);
    std::string alts;
    for (std::size_t i = 0; i <= kMaxSessionAlternatives; ++i)
        alts += std::string(i ? "," : "") + R"({"id": 1})";
    const auto wide = tempFile("alts.ascviz");
    writeText(wide, R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "a", "tokens": [)"
                    R"({"id": 1, "start": 0, "end": 1, "top": [)" +
                        alts + "]}]}}");
    EXPECT_NE(refusal(wide).find("token 0 has more than 1000 alternatives"), std::string::npos) << refusal(wide);
    const auto prompt = tempFile("prompt.ascviz");
    writeText(prompt, R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "ab", "prompt_bytes": 9}})");
    EXPECT_NE(refusal(prompt).find("\"prompt_bytes\" 9 is beyond the end of the text"), std::string::npos);
}

TEST(Session, AFileWithoutEndIsRefusedAtTheLimit)
{
    // --open-session /dev/zero grew until bad_alloc at 3 GB without naming the file.
    const std::string e = refusal("/dev/zero");
    EXPECT_NE(e.find("the session file /dev/zero is over the limit of 134217728 bytes"), std::string::npos) << e;
    const auto big = tempFile("big.ascviz");
    std::filesystem::resize_file((writeText(big, "{"), big), kMaxSessionFileBytes + 1); // sparse
    EXPECT_NE(refusal(big).find("is over the limit of 134217728 bytes"), std::string::npos);
}

TEST(Session, UncertaintyRoundTripsAndOlderFilesHaveNone)
{
    SessionData s = sample();
    s.scored.tokens[1].uncertainty = TokenUncertainty{1.25, 0.75, 0.5, 0.125, 3};
    const auto file = tempFile("uncertainty.ascviz");
    writeSessionFile(file, s);
    const SessionData back = readSessionFile(file);
    ASSERT_EQ(back.scored.tokens.size(), 2u);
    EXPECT_FALSE(back.scored.tokens[0].uncertainty.has_value()); // none was stored for it
    ASSERT_TRUE(back.scored.tokens[1].uncertainty.has_value());
    const TokenUncertainty& u = *back.scored.tokens[1].uncertainty;
    EXPECT_EQ(u.entropy, 1.25);
    EXPECT_EQ(u.topkEntropy, 0.75);
    EXPECT_EQ(u.p1, 0.5);
    EXPECT_EQ(u.margin, 0.125);
    EXPECT_EQ(u.rank, 3);
    const std::string head = R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "ab", "tokens": [)";
    const auto bad = tempFile("bad-uncertainty.ascviz");
    writeText(bad, head + R"({"id": 1, "start": 0, "end": 1, "ntp": 0.5, "uncertainty": {"entropy": 1, )" +
                       R"("topk_entropy": 1, "p1": 0.5, "margin": 0.1, "rank": 0}}]}})");
    EXPECT_NE(refusal(bad).find("token 0 has an uncertainty outside its range"), std::string::npos) << refusal(bad);
}

TEST(Session, TokenSpansMustBeATokenizersSpans)
{
    // Issue 54, hostile runs 9: reversed, duplicated and overlapping tokens, and a span ending inside a character.
    const std::string head =
        R"({"format": "ascviz-session", "prompt": "x", "result": {"text": "ab\u4e2dcd", "tokens": [)";
    auto tokens = [&](const std::string& list) { return head + list + "]}}"; };
    const auto file = tempFile("spans.ascviz");
    writeText(file, tokens(R"({"id": 1, "start": 2, "end": 5}, {"id": 2, "start": 0, "end": 2})"));
    EXPECT_NE(refusal(file).find("token 1 [0, 2) goes back before token 0 [2, 5)"), std::string::npos) << refusal(file);
    writeText(file, tokens(R"({"id": 1, "start": 0, "end": 2}, {"id": 1, "start": 0, "end": 2})"));
    EXPECT_NE(refusal(file).find("token 1 [0, 2) overlaps token 0 [0, 2) by more than one character"),
              std::string::npos)
        << refusal(file);
    writeText(file, tokens(R"({"id": 1, "start": 0, "end": 3})"));
    EXPECT_NE(refusal(file).find("token 0 [0, 3) begins or ends inside a UTF-8 character"), std::string::npos)
        << refusal(file);
    // A character split over two byte-level tokens is the span of both: read.
    writeText(file, tokens(R"({"id": 1, "start": 0, "end": 5}, {"id": 2, "start": 2, "end": 5}, )"
                           R"({"id": 3, "start": 5, "end": 7})"));
    EXPECT_EQ(readSessionFile(file).scored.tokens.size(), 3u);
}
