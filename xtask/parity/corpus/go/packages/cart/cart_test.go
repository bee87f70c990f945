package cart

import "testing"

func TestTotal(t *testing.T) {
	if got := Total([]int{100, 200}); got != 360 {
		t.Errorf("Total = %d, want 360", got)
	}
}
