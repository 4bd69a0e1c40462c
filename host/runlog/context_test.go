package runlog

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestAdditions: numbered in order, never reused after a clear, each of
// many concurrent adds kept, and each told as fresh once.
func TestAdditions(t *testing.T) {
	dir := t.TempDir()
	r := &Recorder{dir: dir, seen: map[string]bool{}}
	if name, err := AddContext(dir, "first"); err != nil || name != "0001.txt" {
		t.Fatalf("%q, %v", name, err)
	}
	if blocks, fresh, _ := r.Additions(); len(blocks) != 1 || len(fresh) != 1 || fresh[0] != "0001" {
		t.Errorf("blocks %q fresh %q", blocks, fresh)
	}
	if _, fresh, _ := r.Additions(); len(fresh) != 0 {
		t.Errorf("told twice: %q", fresh)
	}
	if err := ClearContext(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "context", "cleared", "0001.txt")); err != nil {
		t.Errorf("the cleared addition is not kept: %v", err)
	}
	if name, _ := AddContext(dir, "second"); name != "0002.txt" {
		t.Errorf("after a clear: %q", name)
	}
	if blocks, fresh, _ := r.Additions(); len(blocks) != 1 || blocks[0] != "second" || len(fresh) != 1 || fresh[0] != "0002" {
		t.Errorf("after a clear: blocks %q fresh %q", blocks, fresh)
	}
	var wg sync.WaitGroup
	for range 30 {
		wg.Add(1)
		go func() { defer wg.Done(); AddContext(dir, "many") }()
	}
	wg.Wait()
	if names, _ := additionNames(dir); len(names) != 31 {
		t.Errorf("%d additions kept of 31", len(names))
	}
}
