//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// ABI is the Landlock ABI the kernel offers; 0 where it offers none.
// ROODA_SANDBOX_ABI, when set, says less: a test makes the kernel look
// older than it is.
func ABI() int {
	if stated, err := strconv.Atoi(os.Getenv("ROODA_SANDBOX_ABI")); err == nil {
		return stated
	}
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// writeRights are the rights Landlock handles for writing: reads,
// listing and execution are not handled, so they stay allowed
// everywhere.
const writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// Restrict confines this process, and all it will start, as spec says:
// its signals to its own tree where the kernel scopes them, whatever the
// mode; and under Workspace or BestEffort its writes to spec.Write and
// its connections to abstract unix sockets to those made inside its
// own tree (a D-Bus session bus or an X server outside would run what it
// asks, unconfined). Off scopes signals alone: it is asked to change
// nothing the agent reaches, and signals guard rooda itself.
// Workspace fails where the kernel cannot confine writes; BestEffort
// applies what it can.
func Restrict(spec Spec) error {
	abi := ABI()
	if spec.Mode == Off {
		if abi < SignalsABI {
			return nil
		}
		return landlock.MustConfig(landlock.ScopedSet(ll.ScopeSignal)).RestrictScoped()
	}
	if abi == 0 && spec.Mode == Workspace {
		return fmt.Errorf("sandbox: workspace needs Landlock, which this kernel does not offer")
	}
	if len(spec.Ports) > 0 && abi < NetABI && spec.Mode == Workspace {
		return fmt.Errorf("sandbox_net needs Landlock ABI %d, and this kernel offers %d", NetABI, abi)
	}
	args := []any{landlock.AccessFSSet(writeRights), landlock.ScopedSet(ll.ScopeSignal | ll.ScopeAbstractUnixSocket)}
	if len(spec.Ports) > 0 {
		args = append(args, landlock.AccessNetSet(ll.AccessNetConnectTCP))
	}
	cfg, err := landlock.NewConfig(args...)
	if err != nil {
		return err
	}
	c := cfg.BestEffort()
	var rules []landlock.Rule
	for _, path := range spec.Write {
		info, err := os.Stat(path)
		switch {
		case err != nil:
			continue // a rule holds only what exists at the start
		case info.IsDir():
			rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(writeRights), path))
		default:
			rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(ll.AccessFSWriteFile|ll.AccessFSTruncate), path))
		}
	}
	for _, port := range spec.Ports {
		rules = append(rules, landlock.ConnectTCP(uint16(port)))
	}
	return c.Restrict(rules...)
}

// Kernel names the running kernel ("Linux 6.18.5"), for messages.
func Kernel() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return "unknown"
	}
	str := func(b [65]int8) string {
		var out []byte
		for _, c := range b {
			if c == 0 {
				break
			}
			out = append(out, byte(c))
		}
		return string(out)
	}
	return str(u.Sysname) + " " + str(u.Release)
}
