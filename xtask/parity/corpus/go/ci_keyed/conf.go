package conf

import "os"

// Parallel is the worker count: one on CI machines.
func Parallel() int {
	if os.Getenv("CI") != "" {
		return 1
	}
	return 4
}
