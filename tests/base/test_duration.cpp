// Durations as text (base/duration.h), as the CLI's and the GUI's progress lines show them.
#include "ascviz/base/duration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace ascviz;

TEST(Duration, SecondsMinutesHours)
{
    EXPECT_EQ(formatDuration(0), "0s");
    EXPECT_EQ(formatDuration(0.4), "0s");
    EXPECT_EQ(formatDuration(59.4), "59s");
    EXPECT_EQ(formatDuration(59.5), "1m00s"); // rounded to whole seconds first
    EXPECT_EQ(formatDuration(125), "2m05s");
    EXPECT_EQ(formatDuration(3599), "59m59s");
    EXPECT_EQ(formatDuration(3600), "1h00m");
    EXPECT_EQ(formatDuration(7325), "2h02m"); // hours drop the seconds
    EXPECT_EQ(formatDuration(100 * 3600 + 59 * 60), "100h59m");
}

TEST(Duration, UnknownIsAQuestionMark)
{
    EXPECT_EQ(formatDuration(-1), "?"); // BatchProgress::etaSeconds while unknown
    EXPECT_EQ(formatDuration(-0.2), "?");
    EXPECT_EQ(formatDuration(std::nan("")), "?");
    EXPECT_EQ(formatDuration(std::numeric_limits<double>::infinity()), "?");
}
