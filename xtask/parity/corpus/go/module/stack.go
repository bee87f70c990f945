// Package stack is a bounded LIFO.
package stack

type Stack struct {
	items []int
	limit int
}

func New(limit int) *Stack { return &Stack{limit: limit} }

// Push adds v; it reports false when the stack is full.
func (s *Stack) Push(v int) bool {
	if len(s.items) >= s.limit {
		return false
	}
	s.items = append(s.items, v)
	return true
}

func (s *Stack) Pop() (int, bool) {
	if len(s.items) == 0 {
		return 0, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}
