package runner

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// A child that prints what other runners print: the tool under test drives `go test` itself.
func TestMain(m *testing.M) {
	if os.Getenv("RUNNER_CHILD") == "1" {
		fmt.Println("--- FAIL: TestImaginary (0.00s)")
		fmt.Println("FAIL\texample.com/imaginary\t0.01s")
		fmt.Println("ok  \texample.com/other\t0.01s")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestChild(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "RUNNER_CHILD=1")
	cmd.Stdout = os.Stdout
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
}

func TestDouble(t *testing.T) {
	if Double(2) != 4 {
		t.Error("Double(2) != 4")
	}
}
