package api

func Version() string { return "v1" }
