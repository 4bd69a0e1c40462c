//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// ABI is 0: only Linux has Landlock.
func ABI() int { return 0 }

// Restrict confines nothing where there is no Landlock; Workspace fails.
func Restrict(spec Spec) error {
	if spec.Mode == Workspace {
		return errors.New("sandbox: workspace needs Landlock, which only Linux offers")
	}
	return nil
}

// Kernel names the running system, for messages.
func Kernel() string { return runtime.GOOS }

// HideDirs hides nothing: only Linux has the mount namespaces it needs.
func (s *Spec) HideDirs([]string) (func(*syscall.SysProcAttr), error) {
	return nil, CanHide()
}

// CanHide says why nothing can be hidden: only Linux can.
func CanHide() error { return errors.New("only Linux can hide rooda's records from the agent") }

func hide([]string, []string, string, uint64) error { return errors.New("only Linux hides") }

func probeMain(string, uint64) { os.Exit(1) }

func mountNamespace() uint64 { return 0 }

func lockThread() {}
