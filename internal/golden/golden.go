// Package golden compares test output with files under testdata/ and
// rewrites them when the test binary runs with -update.
//
// It is imported only by tests; the -update flag it registers exists in
// the test binaries of the packages that use it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// dir is the package's testdata directory, found when the test binary
// starts in the package directory, so that tests may change directory.
var dir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(wd, "testdata")
}()

// Updating reports whether the run rewrites golden files.
func Updating() bool { return *update }

// Check compares got with testdata/<name>.golden, or rewrites that file
// under -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join(dir, name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
