#include <stdio.h>

#include "tiny.h"

int main(void) {
  if (clamp(5, 0, 3) != 3) {
    fprintf(stderr, "clamp(5, 0, 3) != 3\n");
    return 1;
  }
  if (clamp(-1, 0, 3) != 0) {
    fprintf(stderr, "clamp(-1, 0, 3) != 0\n");
    return 1;
  }
  return 0;
}
