#pragma once

int add(int a, int b);
int mul(int a, int b);
