// analyze causal --confounders / --simulations (issue 34): the regression adjusts for the chosen confounders
// only, and the refutations are simulated N times with p-values (analysis/refute.h).
#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/tables.h"
#include "ascviz/base/error.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ascviz;

namespace {

// y = 2 t + 3 tokens exactly; the other confounders are unrelated to y but correlated with t.
CausalRows rows()
{
    CausalRows r;
    r.z.assign(causalConfounders().size(), {});
    for (int i = 0; i < 40; ++i) {
        const double t = 0.1 * i + 0.05 * std::sin(i), tokens = double((i * 7) % 11);
        r.t.push_back(t);
        r.y.push_back(2 * t + 3 * tokens);
        r.z[0].push_back(tokens);
        r.z[1].push_back(double((i * 5) % 13) + t);
        r.z[2].push_back(double(i % 4));
        r.z[3].push_back(double((i * 3) % 5));
    }
    return r;
}

} // namespace

TEST(CausalConfounders, OnlyTheChosenAreAdjustedFor)
{
    CausalOptions o;
    o.confounders = {"tokens"};
    o.simulations = 20;
    const auto e = estimateCausal(rows(), o);
    ASSERT_TRUE(e.hasEffect) << e.note;
    EXPECT_EQ(e.adjusted, std::vector<std::string>{"tokens"});
    EXPECT_NEAR(e.effect, 2.0, 1e-9);       // y = 2 t + 3 tokens: adjusting for tokens alone recovers 2 exactly
    EXPECT_EQ(e.rhoConfounders.size(), 4u); // ρ for all
    ASSERT_EQ(e.refutations.size(), 3u);
    EXPECT_EQ(e.refutations[0].simulations, 20);
    EXPECT_TRUE(e.refutations[0].p.has_value());

    o.confounders = {"ast_levels"}; // leaving tokens out: the effect is confounded
    const auto f = estimateCausal(rows(), o);
    ASSERT_TRUE(f.hasEffect);
    EXPECT_GT(std::abs(f.effect - 2.0), 0.1);

    o.confounders = {};
    o.simulations = 0;
    const auto g = estimateCausal(rows(), o);
    EXPECT_EQ(g.adjusted.size(), 4u);
    EXPECT_TRUE(g.refutations.empty());
    EXPECT_NEAR(g.effect, 2.0, 1e-9);

    EXPECT_THROW(checkCausalConfounders({"tokens", "size"}), InputError);
    EXPECT_NO_THROW(checkCausalConfounders({"cyclomatic"}));
}

// The refuters' mean new effects and p-values in the text line and in the LaTeX block (issue 34).
TEST(CausalConfounders, RefutationsInTextAndLatex)
{
    const std::vector<Refutation> rs = {
        {"placebo", 100, 0.0126, 0.43}, {"random_common_cause", 100, -1.5, 0.5}, {"data_subset", 0, 0.0, std::nullopt}};
    EXPECT_EQ(refutationsText(rs),
              "placebo 0.013 (p 0.430), random_common_cause -1.500 (p 0.500), data_subset n/a (p n/a)");

    CausalReport c;
    c.global.n = 40;
    c.global.refutations = rs;
    c.groups["if_statement"] = c.global;
    c.groups["if_statement"].refutations[2] = {"data_subset", 50, 2.004, 0.02};
    const std::string tex = causalLatex(c);
    EXPECT_NE(tex.find("Global AsC-Eval & 0.01 & 0.43 & $-$1.50 & 0.50 & -- & -- \\\\"), std::string::npos) << tex;
    EXPECT_NE(tex.find("if\\_statement & 0.01 & 0.43 & $-$1.50 & 0.50 & 2.00 & 0.02 \\\\"), std::string::npos) << tex;
    EXPECT_NE(tex.find("\\multicolumn{2}{c}{Placebo}"), std::string::npos) << tex;
    // No simulations (--simulations 0): no refutation block.
    c.global.refutations.clear();
    c.groups["if_statement"].refutations.clear();
    EXPECT_EQ(refutationLatex(c), "");
    EXPECT_EQ(causalLatex(c).find("Placebo"), std::string::npos);
}
