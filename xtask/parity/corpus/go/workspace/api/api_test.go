package api

import "testing"

func TestVersion(t *testing.T) {
	if Version() != "v1" {
		t.Fatal("wrong version")
	}
}
