//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"

	"rooda/host/files"
)

// The agent's mount namespace (made by rooda's clone: host/sandbox's
// HideDirs) is where rooda's records and the worktrees of runs are
// covered by an empty, read-only tmpfs, what of the agent's own
// workspace lies below one bound back in place. Once Landlock confines
// the agent it can no longer mount or unmount: the cover stays.

// MountNamespace names the mount namespace this thread is in: the
// inode of /proc/thread-self/ns/mnt, 0 if it cannot be read. A thread
// that unshared its own (ConfineThread) is in another than its process.
func MountNamespace() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/thread-self/ns/mnt", &st) != nil {
		return 0
	}
	return st.Ino
}

// mayMount reports whether this thread may unshare a mount namespace
// and mount in it: it holds CAP_SYS_ADMIN (root's).
func mayMount() bool { return holds(unix.CAP_SYS_ADMIN) }

// unshareMounts gives this thread a mount namespace of its own (and so
// its own working directory: CLONE_NEWNS takes CLONE_FS with it).
func unshareMounts() error { return unix.Unshare(unix.CLONE_NEWNS) }

// probeMain is the trampoline's probe: it hides dir, and says why it
// cannot.
func probeMain(dir string, outside uint64) {
	if err := hide([]string{dir}, nil, "", outside); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ownMounts makes the trampoline's mounts its own: never in rooda's
// mount namespace (outside), where they would be everyone's, and slave
// to the host's, so that nothing made in it goes back there. unmade says
// what is not done when it cannot.
func ownMounts(outside uint64, unmade string) error {
	if ns := MountNamespace(); ns == 0 || outside == 0 || ns == outside {
		return errors.New("not in a mount namespace of its own: " + unmade)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("a mount namespace of its own: %w", err)
	}
	return nil
}

// hide covers each of dirs, in the trampoline's own mount namespace,
// with an empty read-only tmpfs, binding back what of keep lies below
// one, and each file among them with a read-only bind of empty, then
// returns to the working directory through the new mounts.
func hide(dirs, keep []string, empty string, outside uint64) error {
	if err := ownMounts(outside, "nothing hidden"); err != nil {
		return err
	}
	for _, dir := range dirs {
		if err := coverAny(dir, keep, empty); err != nil {
			return fmt.Errorf("hiding %s: %w", dir, err)
		}
	}
	return settle()
}

// settle has the trampoline, its mounts made, find its working directory
// again through them, and drop the capability that served them.
func settle() error {
	// The agent's working directory may lie below a cover: it is found
	// again through the mounts, or the agent does not start.
	wd, err := os.Getwd()
	if err == nil {
		err = os.Chdir(wd)
	}
	if err != nil {
		return fmt.Errorf("its working directory after hiding: %w", err)
	}
	// The capability served the mounts: the agent has none.
	return unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
}

// coverAny covers path, a directory with cover, anything else (a file,
// a socket: Landlock does not confine connecting to one) with a
// read-only bind of the empty file: read, it is empty; connected to, it
// refuses; written, it is read-only.
func coverAny(path string, keep []string, empty string) error {
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		return cover(path, keep)
	}
	if empty == "" {
		return errors.New("no empty file to cover it with")
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if err := unix.Mount(empty, path, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	return unix.Mount("", path, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|flags, "")
}

// cover puts the empty tmpfs over dir and what of keep lies below it
// back.
func cover(dir string, keep []string) error {
	type back struct {
		rel string
		fd  int
	}
	var backs []back
	for _, k := range keep {
		rel, ok := files.Within(dir, k)
		if !ok || rel == "." {
			continue
		}
		fd, err := unix.Open(k, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		defer unix.Close(fd)
		backs = append(backs, back{rel, fd})
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if len(backs) == 0 {
		// Nothing to bind back: read-only from the start, one mount
		// where two were (each takes the namespace's lock, every
		// iteration).
		return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_RDONLY|flags, "size=64k,mode=0755")
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", flags, "size=64k,mode=0755"); err != nil {
		return err
	}
	for _, b := range backs {
		at := filepath.Join(dir, b.rel)
		if err := os.MkdirAll(at, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", b.fd), at, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return err
		}
	}
	return unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY|flags, "")
}

// lockThread keeps the trampoline on one thread from the dropping of
// its capability to the exec: capabilities are a thread's.
func lockThread() { runtime.LockOSThread() }
