package stack

import "testing"

func TestPushPop(t *testing.T) {
	s := New(2)
	s.Push(1)
	s.Push(2)
	if v, _ := s.Pop(); v != 2 {
		t.Fatalf("Pop() = %d, want 2", v)
	}
}

func TestLimit(t *testing.T) {
	s := New(1)
	s.Push(1)
	if s.Push(2) {
		t.Error("Push past the limit succeeded")
	}
}

func TestEmpty(t *testing.T) {
	if _, ok := New(1).Pop(); ok {
		t.Error("Pop on empty stack succeeded")
	}
}

func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
}
