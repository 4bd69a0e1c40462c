//go:build !linux

package agent

import "os"

// adoptOrphans does nothing where there are no subreapers: orphans go to
// init, which reaps them.
func adoptOrphans() {}

func reap(int) {}

func widenPipe(*os.File) {}

func adviseHuge([]byte) {}
