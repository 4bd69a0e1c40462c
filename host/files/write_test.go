package files

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplaceKeepsModeAndLink: Replace writes through a link to its
// target, which keeps its mode; the link stays a link.
func TestReplaceKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "real.star"), filepath.Join(dir, "link.star")
	if err := os.WriteFile(target, []byte("old\n"), 0o754); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.star", link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(target)
	info, _ := os.Stat(target)
	linkInfo, _ := os.Lstat(link)
	if string(data) != "new\n" || err != nil || info.Mode().Perm() != 0o754 || linkInfo.Mode()&os.ModeSymlink == 0 {
		t.Errorf("target %q (%v), mode %v, link %v", data, err, info.Mode(), linkInfo.Mode())
	}
}
