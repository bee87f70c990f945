#include <gtest/gtest.h>

#include "calc.h"

// gtest reports only the line of the failed assertion; the SCOPED_TRACE in CHECK_SUM adds the
// caller's line, so a failure inside the helper also says which call made it.
static void check_sum(int a, int b, int want) {
  EXPECT_EQ(add(a, b), want);
}

#define CHECK_SUM(a, b, want)  \
  do {                         \
    SCOPED_TRACE("check_sum"); \
    check_sum(a, b, want);     \
  } while (0)

TEST(Calc, Adds) { CHECK_SUM(1, 2, 3); }

TEST(Calc, Multiplies) { EXPECT_EQ(mul(2, 3), 6); }

TEST(Calc, DISABLED_Later) { CHECK_SUM(0, 0, 1); }

TEST(Calc, TwoAndTwo) {
  CHECK_SUM(2, 2, 4);
}
