#include <gtest/gtest.h>

#include "calc.h"

TEST(Mul, ByZero) { EXPECT_EQ(mul(7, 0), 0); }
