package config

import "testing"

// BenchmarkBuiltIn: decoding the built-in configuration, which every start
// that reads the configuration does (list, run, script check; docs/
// performance.md, "Start-up").
//
//	go test ./host/config -run '^$' -bench BuiltIn -benchmem
func BenchmarkBuiltIn(b *testing.B) {
	for b.Loop() {
		if _, err := builtIn(); err != nil {
			b.Fatal(err)
		}
	}
}
