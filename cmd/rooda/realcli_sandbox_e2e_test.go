package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/sandbox"
	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// sandboxedToolCall: under sandbox: workspace, the CLI runs to SUCCESS;
// its tool call writes in the workspace, and its write outside it is
// refused, the refusal in what the CLI printed and in the transcript.
func sandboxedToolCall(t *testing.T, cli realcli.Installed) {
	if sandbox.ABI() < 6 {
		t.Skipf("this kernel's Landlock ABI is %d: the sandbox's test needs 6", sandbox.ABI())
	}
	outside := t.TempDir()
	line := "printf 'inside\\n' > made.txt; printf 'outside\\n' > " + outside + "/out.txt"
	r := newRealRun(t, cli, modelserver.Shell(line, "All done. "+successSignal))
	o := r.build("-n", "1", "--sandbox", "workspace")
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	if data, err := os.ReadFile(filepath.Join(r.dir, "made.txt")); string(data) != "inside\n" {
		t.Errorf("made.txt: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the write outside the workspace went through")
	}
	transcript := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "transcript.txt"))
	output := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "output.txt"))
	if !strings.Contains(strings.ToLower(output), "permission denied") {
		t.Errorf("the refusal is not in what %s printed:\n%s", cli.Name, output)
	}
	// The transcript gives a tool's result its first line: the refusal
	// itself ("Permission denied"), or the error it made of it (claude
	// puts "Exit code 1" first).
	if lower := strings.ToLower(transcript); !strings.Contains(lower, "permission") && !strings.Contains(lower, "error") {
		t.Errorf("the refused write is not in the transcript:\n%s", transcript)
	}
	t.Logf("%s under sandbox: workspace; transcript:\n%s", cli.Name, transcript)
}
