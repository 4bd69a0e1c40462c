package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/sandbox"
)

// TestTrampolineFallback: rooda starts its agents through the
// rooda-sandbox beside its executable; without one, or with one that
// others may write (which it does not run, and says so), through itself.
// Either way the agent is confined: it can neither kill rooda nor write
// outside its workspace.
func TestTrampolineFallback(t *testing.T) {
	t.Parallel()
	needsLandlock(t, sandbox.SignalsABI, "the trampoline's test")
	built := binaries(t)
	for _, c := range []struct {
		name string
		mode fs.FileMode // of the rooda-sandbox beside rooda; 0: none
		used bool
		// warned: rooda says it did not run the one beside it.
		warned bool
	}{
		{"beside", 0o755, true, false},
		{"none", 0, false, false},
		{"writable_by_others", 0o777, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, outside := t.TempDir(), t.TempDir()
			rooda := filepath.Join(dir, "rooda")
			placeCopy(t, filepath.Join(built, "rooda"), rooda)
			ran := filepath.Join(outside, "trampoline-ran")
			if c.mode != 0 {
				// The real rooda-sandbox, through a script that says it ran.
				script := "#!/bin/sh\necho >>" + ran + "\nexec " + filepath.Join(built, sandbox.Program) + ` "$@"` + "\n"
				must(t, os.WriteFile(filepath.Join(dir, sandbox.Program), []byte(script), 0o755))
				must(t, os.Chmod(filepath.Join(dir, sandbox.Program), c.mode))
			}
			line := killRooda + `; (echo out > ` + outside + `/out.txt) 2>/dev/null || echo out-refused`
			w := newWorkspace(t, step{"shell": line, "output": successSignal})
			cmd := w.command("build", "-n", "1", "--sandbox", "workspace")
			cmd.Path, cmd.Args[0] = rooda, rooda
			o := w.wait(w.start(cmd))
			o.expect(t, 0, "Success: the agent signaled SUCCESS")
			kept := readText(t, filepath.Join(w.runDir(), "iterations", "0001", "output.txt"))
			for _, want := range []string{"kill-refused", "out-refused"} {
				if !strings.Contains(kept, want) {
					t.Errorf("the agent's output lacks %s:\n%s", want, kept)
				}
			}
			if _, err := os.Stat(ran); (err == nil) != c.used {
				t.Errorf("the rooda-sandbox beside rooda ran: %v, want %v", err == nil, c.used)
			}
			if has := strings.Contains(o.stderr, "WARN: Sandbox: "+sandbox.Program+" not used: "); has != c.warned {
				t.Errorf("a warning of the rooda-sandbox refused: %v, want %v\nstderr:\n%s", has, c.warned, o.stderr)
			}
		})
	}
}

// placeCopy puts the executable from at to: a hard link where it can, a
// copy where not (another file system).
func placeCopy(t *testing.T, from, to string) {
	t.Helper()
	if os.Link(from, to) == nil {
		return
	}
	data, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, data, 0o755))
}
