package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rooda/host/files"
)

// TestAdditions: numbered in order, never reused after a clear, each of
// many concurrent adds kept, and each told as fresh once.
func TestAdditions(t *testing.T) {
	dir := t.TempDir()
	r := newRecorder(dir, Run{})
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
	if temps, _ := filepath.Glob(filepath.Join(contextDir(dir), ".tmp-*")); len(temps) != 0 {
		t.Errorf("adds left their temporary files: %v", temps)
	}
}

// TestAdditionBeingWritten: a block an add is still writing, under its
// temporary name, is no addition: no iteration gets it.
func TestAdditionBeingWritten(t *testing.T) {
	dir := t.TempDir()
	r := newRecorder(dir, Run{})
	mkdir(t, contextDir(dir))
	tmp, err := files.WriteTemp(contextDir(dir), []byte("half a blo"))
	if err != nil {
		t.Fatal(err)
	}
	os.Rename(tmp, tmp+".txt") // named as an addition, but for the dot
	if blocks, fresh, refused := r.Additions(); len(blocks)+len(fresh)+len(refused) != 0 {
		t.Errorf("blocks %q fresh %q refused %v", blocks, fresh, refused)
	}
}

// TestAdditionReadLater: an addition that cannot be read yet (here a
// directory where a file will be) is refused once, and when it can be
// read it is given as fresh, not passed over as seen.
func TestAdditionReadLater(t *testing.T) {
	dir := t.TempDir()
	r := newRecorder(dir, Run{})
	mkdir(t, filepath.Join(contextDir(dir), "0001.txt"))
	for i, want := range []int{1, 0} {
		if blocks, fresh, refused := r.Additions(); len(blocks) != 0 || len(fresh) != 0 || len(refused) != want {
			t.Errorf("call %d, unreadable: blocks %q fresh %q refused %v, want %d refused", i+1, blocks, fresh, refused, want)
		}
	}
	os.Remove(filepath.Join(contextDir(dir), "0001.txt"))
	os.WriteFile(filepath.Join(contextDir(dir), "0001.txt"), []byte("late"), 0o644)
	if blocks, fresh, _ := r.Additions(); len(blocks) != 1 || blocks[0] != "late" || len(fresh) != 1 || fresh[0] != "0001" {
		t.Errorf("once readable: blocks %q fresh %q", blocks, fresh)
	}
}

// TestAdditionLinkNotFollowed: context/ is in the record, where the agent
// writes; a link it leaves there to a file it may not read (under a
// sandbox) must not be read into the next prompt.
func TestAdditionLinkNotFollowed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261123T101500Z-build-0a1b")
	r := newRecorder(dir, Run{})
	secret := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(secret, []byte("SECRET"), 0o600)
	os.MkdirAll(contextDir(dir), 0o755)
	if err := os.Symlink(secret, filepath.Join(contextDir(dir), "0001.txt")); err != nil {
		t.Fatal(err)
	}
	blocks, _, refused := r.Additions()
	if len(blocks) != 0 || len(refused) != 1 || !strings.Contains(refused[0].Error(), "a symbolic link, which is not followed") {
		t.Errorf("blocks %q, refused %v; want the link refused as such", blocks, refused)
	}
}

// TestHighestAdditionGoesPastFourDigits: the highest addition counts
// the cleared ones, and numbers of five digits.
func TestHighestAdditionGoesPastFourDigits(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cleared"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0002.txt", "cleared/12345.txt", "99999", "0003.md", "123456"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := highest(dir); got != 12345 {
		t.Errorf("highest = %d, want 12345", got)
	}
}
