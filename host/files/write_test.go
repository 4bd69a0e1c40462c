package files

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	if err := Replace(link, []byte("new\n"), false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(target)
	info, _ := os.Stat(target)
	linkInfo, _ := os.Lstat(link)
	if string(data) != "new\n" || err != nil || info.Mode().Perm() != 0o754 || linkInfo.Mode()&os.ModeSymlink == 0 {
		t.Errorf("target %q (%v), mode %v, link %v", data, err, info.Mode(), linkInfo.Mode())
	}
}

// TestReplaceRefusesAReadOnlyFile: a file no one may write is left as it
// is (ErrReadOnly) unless readOnlyToo, and then keeps its mode.
func TestReplaceRefusesAReadOnlyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kept.star")
	if err := os.WriteFile(path, []byte("old\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("new\n"), false); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Replace of a read-only file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("the read-only file holds %q", data)
	}
	if err := Replace(path, []byte("new\n"), true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(data) != "new\n" || info.Mode().Perm() != 0o444 {
		t.Errorf("forced: %q, mode %v", data, info.Mode())
	}
}

// TestReplaceKeepsTheOwner: another user's file keeps its owner and
// group. Only root may give a file to another user, so it runs as root.
func TestReplaceKeepsTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: not root: no file of another user's can be made here")
	}
	path := filepath.Join(t.TempDir(), "theirs.star")
	if err := os.WriteFile(path, []byte("old\n"), 0o664); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Chmod(path, 0o664), os.Chown(path, 4321, 4322)); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("new\n"), false); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	st := info.Sys().(*syscall.Stat_t)
	data, _ := os.ReadFile(path)
	if string(data) != "new\n" || st.Uid != 4321 || st.Gid != 4322 || info.Mode().Perm() != 0o664 {
		t.Errorf("%q, owner %d:%d, mode %v", data, st.Uid, st.Gid, info.Mode())
	}
}

// replaceAs names the file TestReplaceAsAnotherUser's helper replaces.
const replaceAs = "ROODA_TEST_REPLACE_AS"

// TestReplaceAsAnotherUser: a user who may write another's file, and
// its directory, but may not give a file to that user (not root), gets
// it written in place: its owner and mode stay. Root runs this test's
// own binary as that user.
func TestReplaceAsAnotherUser(t *testing.T) {
	if path := os.Getenv(replaceAs); path != "" {
		if err := Replace(path, []byte("new\n"), false); err != nil {
			t.Fatal(err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: not root: no other user can be run here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.star")
	// The other user runs a copy of this binary, in a directory it may
	// enter: Go's build directory is root's alone.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "files.test")
	err = errors.Join(os.Chmod(filepath.Dir(dir), 0o755), os.Chmod(dir, 0o777), os.WriteFile(binary, self, 0o755),
		os.WriteFile(path, []byte("old\n"), 0o666), os.Chmod(path, 0o666), os.Chown(path, 4322, 4322))
	if err != nil {
		t.Fatal(err)
	}
	helper := exec.Command(binary, "-test.run=^TestReplaceAsAnotherUser$")
	helper.Env = append(os.Environ(), replaceAs+"="+path)
	helper.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 4321, Gid: 4321}}
	if out, err := helper.CombinedOutput(); err != nil {
		t.Fatalf("the other user's Replace: %v\n%s", err, out)
	}
	info, _ := os.Stat(path)
	st := info.Sys().(*syscall.Stat_t)
	data, _ := os.ReadFile(path)
	if string(data) != "new\n" || st.Uid != 4322 || info.Mode().Perm() != 0o666 {
		t.Errorf("%q, owner %d, mode %v", data, st.Uid, info.Mode())
	}
}

// TestOpenAllFollowsNoLink: the files a resume found are opened to be
// forced to the disk where they are; one gone is passed over, and a link
// left in its place is refused, not followed to what it names.
func TestOpenAllFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	output := filepath.Join(dir, "output.txt")
	if err := WriteWhole(output, []byte("done\n")); err != nil {
		t.Fatal(err)
	}
	opened, err := OpenAll([]string{output, filepath.Join(dir, "gone.txt")})
	if err != nil || len(opened) != 1 {
		t.Errorf("a file and one gone: %d opened, %v", len(opened), err)
	}
	if err := SyncClose(opened); err != nil {
		t.Error(err)
	}
	link := filepath.Join(dir, "prompt.txt")
	if err := os.Symlink(output, link); err != nil {
		t.Fatal(err)
	}
	if opened, err := OpenAll([]string{link}); !errors.Is(err, ErrSymlink) || len(opened) != 0 {
		t.Errorf("a link: %d opened, %v; want it refused", len(opened), err)
	}
}

// TestWriteWholeOpenKeepsTheFile: the file written whole is returned
// open, the one at its path, for SyncClose to force and close without
// opening it again; a directory missing is said as a file missing is.
func TestWriteWholeOpenKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "output.txt")
	f, err := WriteWholeOpen(path, []byte("done\n"))
	if err != nil {
		t.Fatal(err)
	}
	held, _ := f.Stat()
	named, err := os.Stat(path)
	if err != nil || !os.SameFile(held, named) || named.Size() != 5 || named.Mode().Perm() != 0o600 {
		t.Errorf("held %v, at its path %v (%v)", held, named, err)
	}
	if err := SyncClose([]*os.File{f}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("SyncClose left it open (%v)", err)
	}
	if _, err := WriteWholeOpen(filepath.Join(dir, "gone", "output.txt"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("in a directory missing: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
}
