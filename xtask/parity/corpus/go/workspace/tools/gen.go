package tools

// Left out of go.work: a generator module with its own release cycle.
func Generated() bool { return true }
