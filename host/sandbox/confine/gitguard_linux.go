//go:build linux

package confine

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// guardGit is the trampoline's part of git's guard (host/sandbox's
// gitguard.go): in its own mount namespace, it binds the pinned .git
// directories onto themselves, puts the branch's private directories
// over the repository's, and binds the covers read-only.
func guardGit(spec Spec) error {
	if err := ownMounts(spec.Outside, "git's settings not covered"); err != nil {
		return err
	}
	// A .git bound onto itself first: a bind made after would hide what
	// was mounted below it.
	for _, p := range spec.Pinned {
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pinning %s: %w", p, err)
		}
	}
	if b := spec.Branch; b != nil && b.Private != "" {
		if err := overBranch(b); err != nil {
			return fmt.Errorf("the branch's own objects and ref: %w", err)
		}
	}
	for _, p := range spec.ReadOnly {
		if err := readOnly(p); err != nil {
			return fmt.Errorf("covering %s: %w", p, err)
		}
	}
	return nil
}

// overBranch mounts the overlay on the objects and binds the private
// copies of the ref's and the log's directories.
func overBranch(b *Branch) error {
	overs := b.Overs()
	objects := overs[0][0]
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", objects, overs[0][1], filepath.Join(b.Private, "work"))
	if !ownsUsers() {
		opts += ",userxattr" // in a user namespace: no trusted.* xattrs
	}
	if err := unix.Mount("overlay", objects, "overlay", 0, opts); err != nil {
		return fmt.Errorf("overlay on %s: %w", objects, err)
	}
	for _, o := range overs[1:] {
		if err := unix.Mount(o[1], o[0], "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("%s over %s: %w", o[1], o[0], err)
		}
	}
	return nil
}

// ownsUsers reports whether this process is in the initial user
// namespace, where root holds trusted.* xattrs.
func ownsUsers() bool {
	self, err1 := os.Readlink("/proc/self/ns/user")
	init, err2 := os.Readlink("/proc/1/ns/user")
	return err1 == nil && err2 == nil && self == init
}

// readOnly binds path onto itself, read-only, keeping the flags of the
// mount it lies on (a user namespace may not drop them).
func readOnly(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for st_, ms := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV,
		unix.ST_NOEXEC: unix.MS_NOEXEC, unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME} {
		if st.Flags&st_ != 0 {
			flags |= ms
		}
	}
	return unix.Mount("", path, "", flags, "")
}
