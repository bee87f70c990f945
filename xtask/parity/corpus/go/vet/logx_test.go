package logx

import "testing"

func TestLine(t *testing.T) {
	if got := Line("info", 3); got != "[info] 3 events" {
		t.Errorf("Line = %q", got)
	}
}
