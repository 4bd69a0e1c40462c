package files

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenBeneathFollowsNoLink: the one call that opens a path of
// several parts opens a file reached without a link, and refuses one
// reached through a link that stays inside the tree. Were it to fail
// every time, OpenBelow's tests would still pass, by the walk.
func TestOpenBeneathFollowsNoLink(t *testing.T) {
	if kernelBefore(5, 6) {
		t.Skip("SKIPPED: no openat2 before Linux 5.6; OpenBelow walks the parts")
	}
	dir, _ := linkedTree(t)
	dirfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dirfd)
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	fd, err := openBeneath(dirfd, filepath.Join("a", "b", "file"), flags)
	if err != nil {
		t.Fatalf("a file reached without a link: %v", err)
	}
	data, _ := readLimited(descriptor(fd), 0, "file", 100)
	unix.Close(fd)
	if string(data) != "mine" {
		t.Errorf("read %q, want %q", data, "mine")
	}
	if fd, err := openBeneath(dirfd, filepath.Join("a", "inb", "file"), flags); !errors.Is(err, unix.ELOOP) {
		unix.Close(fd)
		t.Errorf("through a link to a directory of the tree: %v, want ELOOP", err)
	}
}

// kernelBefore reports whether the running kernel is older than
// major.minor.
func kernelBefore(major, minor int) bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return true
	}
	var got [2]int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &got[0], &got[1])
	return got[0] < major || got[0] == major && got[1] < minor
}
