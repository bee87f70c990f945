#pragma once

int add(int a, int b);
int percent(int amount, int pct);
