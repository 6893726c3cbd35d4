// The prompts file of `generate --prompts` (results/prompts.h): what it reads and what it refuses, naming file:line.
#include "ascviz/base/error.h"
#include "ascviz/results/prompts.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {
std::string refusal(const std::string& text)
{
    try {
        parsePromptsJsonl(text, "p.jsonl");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(read)";
}
} // namespace

TEST(Prompts, ReadsIdsPromptsAndLines)
{
    const auto p = parsePromptsJsonl("\xEF\xBB\xBF{\"id\": \"a\", \"prompt\": \"def f():\\n\"}\r\n\r\n"
                                     "{\"prompt\": \"\xF0\x9F\x98\x80 \xE4\xB8\xAD\"}\n{\"id\": 12, \"prompt\": \"\"}",
                                     "p.jsonl");
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].id, "a");
    EXPECT_FALSE(p[0].numericId);
    EXPECT_EQ(p[0].prompt, "def f():\n");
    EXPECT_EQ(p[0].line, 1u);
    EXPECT_FALSE(p[1].id.has_value());
    EXPECT_EQ(p[1].prompt, "\xF0\x9F\x98\x80 \xE4\xB8\xAD"); // emoji and CJK, 8 bytes
    EXPECT_EQ(p[1].line, 3u);
    EXPECT_EQ(p[2].id, "12");
    EXPECT_TRUE(p[2].numericId);
    EXPECT_EQ(p[2].prompt, "");
    EXPECT_EQ(p[2].line, 4u);
}

TEST(Prompts, RefusesNamingTheLine)
{
    EXPECT_EQ(refusal("{\"prompt\": \"x\"}\n[1, 2]\n"),
              "p.jsonl:2: not a JSON object (a line is {\"id\": ..., \"prompt\": \"...\"})");
    EXPECT_EQ(refusal("{\"id\": \"a\"}\n"), "p.jsonl:1: no \"prompt\"");
    EXPECT_EQ(refusal("{\"prompt\": 1}"), "p.jsonl:1: \"prompt\" is not a string");
    EXPECT_EQ(refusal("{\"prompt\": \"x\", \"id\": 1.5}"), "p.jsonl:1: \"id\" is neither a string nor an integer");
    EXPECT_EQ(refusal("{\"prompt\": \"x\", \"code\": \"y\"}"),
              "p.jsonl:1: unknown key \"code\" (a line has \"prompt\" and an optional \"id\")");
    EXPECT_EQ(refusal("{\"id\": 3, \"prompt\": \"x\"}\n{\"id\": 3, \"prompt\": \"y\"}"),
              "p.jsonl:2: the id 3 repeats an earlier line's");
    EXPECT_EQ(refusal("\n \n"), "p.jsonl has no prompts");
    EXPECT_NE(refusal("{\"prompt\": \"\xFF\"}").find("not valid UTF-8"), std::string::npos);
}
