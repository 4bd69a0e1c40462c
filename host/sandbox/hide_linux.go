//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"rooda/host/files"
)

// Landlock cannot take a directory out of one it allows: rooda's records
// and the worktrees of runs lie inside the workspace. So the agent is
// started in a mount namespace of its own, where each of them is covered
// by an empty, read-only tmpfs: it can neither read nor write them, and
// rooda, outside, sees them as they are. What of the agent's own
// workspace lies below one (its worktree) is bound back in place. Once
// Landlock confines the agent it can no longer mount or unmount: the
// cover stays.
//
// root makes the namespace itself; another user makes it inside a user
// namespace of its own, with its own uid and gid mapped to themselves
// and CAP_SYS_ADMIN held for the mounts alone.

// hiding is how an agent gets its namespace, found once by a probe; why
// says why it cannot, when it cannot.
var hiding struct {
	once sync.Once
	attr func(*syscall.SysProcAttr)
	why  error
}

// HideDirs has s hide dirs, those that exist, from the agent when this
// system can, and returns the attributes its process needs for it; else
// why it cannot. A file or a socket among them (sandbox_hide) is covered
// by s.Empty.
func (s *Spec) HideDirs(dirs []string) (func(*syscall.SysProcAttr), error) {
	// Real paths, as Paths gives the agent's: the trampoline compares
	// them. One inside another is covered with it.
	var kept []string
	for _, dir := range dirs {
		if dir, err := filepath.EvalSymlinks(dir); err == nil && !slices.Contains(kept, dir) {
			kept = append(kept, dir)
		}
	}
	kept = slices.DeleteFunc(kept, func(dir string) bool {
		return slices.ContainsFunc(kept, func(outer string) bool { return below(dir, outer) })
	})
	if len(kept) == 0 {
		return nil, nil
	}
	if err := CanHide(); err != nil {
		return nil, err
	}
	s.Hide, s.Outside = kept, mountNamespace()
	return hiding.attr, nil
}

// mountNamespace names the mount namespace this process is in: the
// inode of /proc/self/ns/mnt, 0 if it cannot be read.
func mountNamespace() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/mnt", &st) != nil {
		return 0
	}
	return st.Ino
}

// CanHide is nil when this system can hide directories from the agent,
// else why it cannot. It asks once.
func CanHide() error {
	hiding.once.Do(probe)
	return hiding.why
}

// probe finds the first way of making the namespace that works here.
func probe() {
	if trampoline == "" {
		hiding.why = errors.New("this program is not rooda")
		return
	}
	ways := []func(*syscall.SysProcAttr){ownNamespace, userNamespace}
	if os.Geteuid() != 0 {
		ways = ways[1:]
	}
	for _, way := range ways {
		if hiding.why = try(way); hiding.why == nil {
			hiding.attr = way
			return
		}
	}
}

// try starts the trampoline's probe in a namespace made the given way.
func try(way func(*syscall.SysProcAttr)) error {
	dir, err := os.MkdirTemp("", "rooda-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(trampoline, Arg, probeArg, dir, strconv.FormatUint(mountNamespace(), 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	way(cmd.SysProcAttr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("a mount namespace: %w", err)
	}
	return nil
}

// ownNamespace is root's way: a mount namespace alone.
func ownNamespace(attr *syscall.SysProcAttr) { attr.Cloneflags |= syscall.CLONE_NEWNS }

// userNamespace is everyone's: a user namespace too, in which the
// process is who it was, holding CAP_SYS_ADMIN for the mounts and
// CAP_DAC_OVERRIDE for the overlay on a worktree's objects, whose work
// directory overlayfs makes with mode 000 and must then enter (the
// trampoline drops both before the agent starts).
func userNamespace(attr *syscall.SysProcAttr) {
	userNamespaceOf(attr, os.Geteuid(), os.Getegid())
}

// userNamespaceOf is userNamespace for a process of uid and gid.
func userNamespaceOf(attr *syscall.SysProcAttr, uid, gid int) {
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE}
}

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
	if ns := mountNamespace(); ns == 0 || outside == 0 || ns == outside {
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

// below says whether path lies inside dir, not dir itself.
func below(path, dir string) bool {
	rel, ok := files.Within(dir, path)
	return ok && rel != "."
}
