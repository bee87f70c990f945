// Integer arithmetic for invoices.
#include "calc.h"

int add(int a, int b) { return a + b; }

int percent(int amount, int pct) { return amount * pct / 100; }
