#include <gtest/gtest.h>

#include "calc.h"

TEST(Calc, AddsNegatives) { EXPECT_EQ(add(-1, -3), -4); }

TEST(Calc, Percent) { EXPECT_EQ(percent(200, 10), 20); }

TEST(Calc, DISABLED_Rounds) {}

class Table : public ::testing::TestWithParam<int> {};
TEST_P(Table, PercentOfHundred) { EXPECT_EQ(percent(100, GetParam()), GetParam()); }
INSTANTIATE_TEST_SUITE_P(Pcts, Table, ::testing::Values(5, 50));
