#include <gtest/gtest.h>

#include "calc.h"

TEST(Native, ReadsThroughPointer) {
  int value = add(1, 1);
  int* p = &value;
  EXPECT_EQ(*p, 2);
}
