int clamp(int v, int lo, int hi);
