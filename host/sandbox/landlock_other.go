//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
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
