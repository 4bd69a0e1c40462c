//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"rooda/host/files"
	"rooda/host/process"
	"rooda/host/sandbox/confine"
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

// mountNamespace names the mount namespace this process is in.
func mountNamespace() uint64 { return confine.MountNamespace() }

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
	out, err := runProbe(way, confine.ProbeArg, dir, strconv.FormatUint(mountNamespace(), 10))
	if err != nil {
		if out != "" {
			return errors.New(out)
		}
		return fmt.Errorf("a mount namespace: %w", err)
	}
	return nil
}

// runProbe runs the trampoline with args, its process made the way attr
// says, through host/process as an agent is: a child that rooda's reaper
// of adopted orphans knows, whose exit no other wait takes (started by
// os/exec alone, it was reaped as an orphan once in a while, and the
// probe failed with "waitid: no child processes"). It gives what the
// trampoline printed.
func runProbe(attr func(*syscall.SysProcAttr), args ...string) (string, error) {
	res, err := process.Run(context.Background(), process.Command{Argv: append([]string{trampoline, Arg}, args...), Attr: attr, Timeout: time.Minute, MaxOutput: 64 << 10})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("exit code %d", res.ExitCode)
	}
	return strings.TrimSpace(string(res.Output)), err
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

// below says whether path lies inside dir, not dir itself.
func below(path, dir string) bool {
	rel, ok := files.Within(dir, path)
	return ok && rel != "."
}
