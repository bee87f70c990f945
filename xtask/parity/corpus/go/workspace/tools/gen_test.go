package tools

import "testing"

func TestGenerated(t *testing.T) {
	if !Generated() {
		t.Fatal("generator output is stale")
	}
}
