//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
	"syscall"
)

// ABI is 0: only Linux has Landlock.
func ABI() int { return 0 }

// Kernel names the running system, for messages.
func Kernel() string { return runtime.GOOS }

// HideDirs hides nothing: only Linux has the mount namespaces it needs.
func (s *Spec) HideDirs([]string) (func(*syscall.SysProcAttr), error) {
	return nil, CanHide()
}

// CanHide says why nothing can be hidden: only Linux can.
func CanHide() error { return errors.New("only Linux can hide rooda's records from the agent") }

func mountNamespace() uint64 { return 0 }

// CanIsolateNet says why the agent cannot have a network of its own:
// only Linux has the namespaces it needs.
func CanIsolateNet() error {
	return errors.New("only Linux can give the agent a network namespace of its own")
}

// IsolateNet gives no network namespace: only Linux has them.
func (s *Spec) IsolateNet(attr func(*syscall.SysProcAttr), n *Net) (func(*syscall.SysProcAttr), error) {
	return attr, CanIsolateNet()
}

// OutsideNetNamespace is 0: there are no namespaces to name.
func OutsideNetNamespace() uint64 { return 0 }
