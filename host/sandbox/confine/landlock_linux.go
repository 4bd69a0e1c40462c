//go:build linux

package confine

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is called here through its three system calls, not a
// library's: go-landlock restricts every thread of the process at once
// through libpsx, whose cgo (with net's) made this program load libc and
// start as slowly as any cgo program. The trampoline needs none of it:
// it restricts the one thread it is locked to (lockThread), which then
// execs the agent, and an exec leaves that thread alone in the process.

// ABI is the Landlock ABI the kernel offers; 0 where it offers none.
// ROODA_SANDBOX_ABI, when set, says less: a test makes the kernel look
// older than it is.
func ABI() int {
	if stated, err := strconv.Atoi(os.Getenv("ROODA_SANDBOX_ABI")); err == nil {
		return stated
	}
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// writeRights are the rights Landlock handles for writing: reads,
// listing and execution are not handled, so they stay allowed
// everywhere.
const writeRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
	unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
	unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER |
	unix.LANDLOCK_ACCESS_FS_TRUNCATE

// fileRights are those of writeRights a rule on a file (not a
// directory) may grant.
const fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE

// fsRights are the file system rights each ABI knows: the first 13 from
// ABI 1, refer from 2, truncate from 3.
func fsRights(abi int) uint64 {
	switch {
	case abi >= 3:
		return 1<<15 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi == 1:
		return 1<<13 - 1
	}
	return 0
}

// Restrict confines this thread, and the agent it execs, as spec says:
// its signals to its own tree where the kernel scopes them, whatever the
// mode; and under Workspace or BestEffort its writes to spec.Write and
// its connections to abstract unix sockets to those made inside its
// own tree (a D-Bus session bus or an X server outside would run what it
// asks, unconfined), and its TCP connections to spec.Ports when given.
// Off scopes signals alone: it is asked to change nothing the agent
// reaches, and signals guard rooda itself. Workspace fails where the
// kernel cannot confine writes; otherwise what the kernel's ABI lacks is
// left out (as go-landlock's best effort did before: nothing of the
// files where the kernel cannot grant refer, ABI 1, which would forbid
// every rename across directories).
func Restrict(spec Spec) error {
	abi := ABI()
	if spec.Mode == Off {
		if abi < SignalsABI {
			return nil
		}
		return restrict(abi, unix.LandlockRulesetAttr{Scoped: unix.LANDLOCK_SCOPE_SIGNAL}, nil, nil)
	}
	if abi == 0 && spec.Mode == Workspace {
		return fmt.Errorf("sandbox: workspace needs Landlock, which this kernel does not offer")
	}
	if len(spec.Ports) > 0 && abi < NetABI && spec.Mode == Workspace {
		return fmt.Errorf("sandbox_net needs Landlock ABI %d, and this kernel offers %d", NetABI, abi)
	}
	var attr unix.LandlockRulesetAttr
	if abi >= 2 {
		attr.Handled_access_fs = writeRights & fsRights(abi)
	}
	if abi >= SignalsABI {
		attr.Scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	var ports []int
	if len(spec.Ports) > 0 && abi >= NetABI {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		ports = spec.Ports
	}
	var write []string
	if attr.Handled_access_fs != 0 {
		write = spec.Write
	}
	return restrict(abi, attr, write, ports)
}

// netPortAttr is the kernel's struct landlock_net_port_attr.
type netPortAttr struct {
	allowed uint64
	port    uint64
}

// ruleNetPort is LANDLOCK_RULE_NET_PORT.
const ruleNetPort = 2

// restrict makes a ruleset of attr that lets write be written and ports
// be connected to, and restricts this thread to it.
func restrict(abi int, attr unix.LandlockRulesetAttr, write []string, ports []int) error {
	if attr.Handled_access_fs == 0 && attr.Handled_access_net == 0 && attr.Scoped == 0 {
		return nil // nothing this kernel can restrict
	}
	// The kernel reads the fields of its ABI: net from 4, scoped from 6.
	size := unsafe.Offsetof(attr.Handled_access_net)
	switch {
	case abi >= SignalsABI:
		size = unsafe.Offsetof(attr.Quiet_access_fs)
	case abi >= NetABI:
		size = unsafe.Offsetof(attr.Scoped)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, path := range write {
		if err := allowWrite(int(fd), attr.Handled_access_fs, path); err != nil {
			return err
		}
	}
	for _, port := range ports {
		rule := netPortAttr{allowed: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, ruleNetPort, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock_add_rule for port %d: %w", port, errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// allowWrite adds the rule that lets path be written, a directory with
// all it holds, a file alone, within handled; a path that does not exist
// gets none (a rule holds only what exists at the start).
func allowWrite(ruleset int, handled uint64, path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	allowed := handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		allowed &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule for %s: %w", path, errno)
	}
	return nil
}
