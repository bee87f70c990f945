package store

import "testing"

func TestKey(t *testing.T) {
	if Key(7) != "item:7" {
		t.Fatalf("Key(7) = %q", Key(7))
	}
}
