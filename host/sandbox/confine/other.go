//go:build !linux

package confine

import (
	"errors"
	"os"
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

var errNoNamespaces = errors.New("only Linux has the namespaces the sandbox needs")

// MountNamespace is 0: there are no namespaces to name.
func MountNamespace() uint64 { return 0 }

// NetNamespace is 0: there are no namespaces to name.
func NetNamespace() (uint64, error) { return 0, errNoNamespaces }

// HandOver hands nothing: there is no namespace to hand listeners from.
func HandOver(int, []string, []*os.File) error { return errNoNamespaces }

func hide([]string, []string, string, uint64) error { return errNoNamespaces }
func guardGit(Spec) error                           { return errNoNamespaces }
func settle() error                                 { return nil }
func enterNet(*Spec) error                          { return errNoNamespaces }
func probeMain(string, uint64)                      { os.Exit(1) }
func probeNetMain()                                 { os.Exit(1) }
func lockThread()                                   {}
func mayMount() bool                                { return false }
func unshareMounts() error                          { return errNoNamespaces }
func dropCapabilities() error                       { return nil }
