package words

import "testing"

func TestTitle(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"one word", "go", "Go"},
		{"two words", "hello world", "Hello World"},
		{"spaces", "  a  b ", "A B"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Title(c.in); got != c.want {
				t.Errorf("Title(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
