package logx

import "fmt"

func Line(level string, n int) string {
	return fmt.Sprintf("[%s] %d events", level, n)
}
