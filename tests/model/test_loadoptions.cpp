// The typed load options and their one name table (ascviz/model/loadoptions.h, issue 55): every name parses to its
// value and back, the choices read as the CLI's messages always did, and a name the table lacks is refused.
#include "ascviz/base/error.h"
#include "ascviz/model/loadoptions.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {
template <class E> void roundTrips()
{
    const auto names = loadOptionNames<E>();
    ASSERT_EQ(names.size(), LoadOptionTable<E>::names.size());
    for (const auto& n : names) {
        const auto v = parseLoadOption<E>(n);
        ASSERT_TRUE(v.has_value()) << n;
        EXPECT_EQ(loadOptionName(*v), n);
    }
    EXPECT_EQ(names.front(), "auto") << "auto first: the default of every front end";
    EXPECT_EQ(parseLoadOption<E>("auto"), E{}) << "the enum's zero is auto";
}
} // namespace

TEST(LoadOptions, EveryNameRoundTrips)
{
    roundTrips<Device>();
    roundTrips<Dtype>();
    roundTrips<Weights>();
}

TEST(LoadOptions, ChoicesAndRefusals)
{
    EXPECT_EQ(loadOptionChoices<Device>(), "auto, cpu or cuda");
    EXPECT_EQ(loadOptionChoices<Dtype>(), "auto, float32, float16, bfloat16 or bfloat16-matmul");
    EXPECT_EQ(loadOptionChoices<Weights>(), "auto, float32 or checkpoint");
    EXPECT_EQ(parseLoadOption<Dtype>("bfloat16-matmul"), Dtype::Bfloat16Matmul);
    EXPECT_FALSE(parseLoadOption<Dtype>("BFloat16").has_value()) << "case-sensitive, as the CLI always was";
    EXPECT_FALSE(parseLoadOption<Device>("").has_value());
    EXPECT_FALSE(parseLoadOption<Weights>("float16").has_value());
    try {
        (void)requireLoadOption<Device>("gpu");
        FAIL() << "gpu accepted";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "unknown device \"gpu\" (auto, cpu or cuda)");
    }
}
