package cli

import (
	"io"
	"testing"
)

// BenchmarkNewApp: the command tree every start builds before it parses
// its arguments (docs/performance.md, "Start-up").
//
//	go test ./internal/cli -run '^$' -bench NewApp -benchmem
func BenchmarkNewApp(b *testing.B) {
	for b.Loop() {
		if newApp(io.Discard, io.Discard) == nil {
			b.Fatal("no app")
		}
	}
}
