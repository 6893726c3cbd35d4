// The one LaTeX escaper (base/latex.h): every special character, the math-mode symbols, and text that passes.
#include "ascviz/base/latex.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace ascviz;

TEST(Latex, EverySpecialCharacter)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"\\", "\\textbackslash{}"},
        {"~", "\\textasciitilde{}"},
        {"^", "\\textasciicircum{}"},
        {"&", "\\&"},
        {"%", "\\%"},
        {"$", "\\$"},
        {"#", "\\#"},
        {"_", "\\_"},
        {"{", "\\{"},
        {"}", "\\}"},
        {"<", "\\textless{}"},
        {">", "\\textgreater{}"},
        {"|", "\\textbar{}"},
    };
    for (const auto& [in, want] : cases)
        EXPECT_EQ(latexEscape(in), want) << in;
    // All of them in a row, each escaped once (a backslash the escaper writes is not escaped again).
    EXPECT_EQ(latexEscape("\\~^&%$#_{}<>|"), "\\textbackslash{}\\textasciitilde{}\\textasciicircum{}\\&\\%\\$\\#\\_\\{"
                                             "\\}\\textless{}\\textgreater{}\\textbar{}");
}

TEST(Latex, EveryOtherPrintableAsciiCharacterIsKept)
{
    const std::string specials = "\\~^&%$#_{}<>|";
    for (char c = ' '; c <= '~'; ++c) {
        if (specials.find(c) != std::string::npos)
            continue;
        EXPECT_EQ(latexEscape(std::string(1, c)), std::string(1, c)) << c;
    }
}

TEST(Latex, SymbolsInMathMode)
{
    EXPECT_EQ(latexEscape("\u03b8=max"), "$\\theta$=max"); // run labels (compareRuns)
    EXPECT_EQ(latexEscape("\u03b4"), "$\\delta$");
    EXPECT_EQ(latexEscape("AsC-Eval_\u2113"), "AsC-Eval\\_$\\ell$");
    EXPECT_EQ(latexEscape("categories \u00d7 runs"), "categories $\\times$ runs");
    EXPECT_EQ(latexEscape("0.5 \u00b1 0.1"), "0.5 $\\pm$ 0.1");
    EXPECT_EQ(latexEscape("\u2264\u2265"), "$\\leq$$\\geq$");
    EXPECT_EQ(latexEscape("If:if\u2192else"), "If:if$\\rightarrow$else"); // relation types (heads' tables)
}

TEST(Latex, OtherTextPasses)
{
    EXPECT_EQ(latexEscape(""), "");
    EXPECT_EQ(latexEscape("if_statement"), "if\\_statement");
    EXPECT_EQ(latexEscape("model-b & co"), "model-b \\& co");
    EXPECT_EQ(latexEscape("caf\u00e9 \u4e2d\u6587"), "caf\u00e9 \u4e2d\u6587"); // other UTF-8 unchanged
    EXPECT_EQ(latexEscape(std::string("a\xCE", 2)), std::string("a\xCE", 2));   // a cut sequence: kept, not read past
}
