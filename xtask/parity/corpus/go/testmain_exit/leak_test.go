package leak

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && Open != 0 {
		fmt.Println("leak check: connections still open")
		code = 1
	}
	os.Exit(code)
}

func TestUse(t *testing.T) {
	Open++
	Open--
}
