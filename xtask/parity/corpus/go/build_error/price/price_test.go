package price

import "testing"

func TestWithTax(t *testing.T) {
	if got := WithTax(100); got != 120 {
		t.Errorf("WithTax(100) = %d", got)
	}
}
