//go:build !linux

package git

// watch is inotify's (watch_linux.go); elsewhere there is none, and every
// look is whole.
type watch struct{}

func newWatch(top string, skip ...string) *watch { return nil }

func (w *watch) changes() (paths []string, all bool) { return nil, true }

func (w *watch) close() {}
