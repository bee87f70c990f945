package conf

import "testing"

func TestParallel(t *testing.T) {
	if Parallel() != 4 {
		t.Fatalf("Parallel() = %d on a developer machine", Parallel())
	}
}
