package process

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTheAgentsPipeHoldsAMebibyte: the agent's output pipe is enlarged
// to 1 MiB, so that an agent printing fast wakes rooda a sixteenth as
// often as through the 64 KiB a pipe has (docs/design.md, "Capture").
func TestTheAgentsPipeHoldsAMebibyte(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	size, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if size != 1<<20 {
		data, _ := os.ReadFile("/proc/sys/fs/pipe-max-size")
		if most, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && most < 1<<20 {
			t.Skipf("SKIPPED: this system allows pipes of %d bytes at most (fs.pipe-max-size)", most)
		}
		t.Errorf("the agent's pipe holds %d bytes, want 1 MiB", size)
	}
}
