package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/journal"
)

// BenchmarkResume times `rooda runs resume` of a YAML run of
// resumeIterations iterations, killed in the last, from the command's
// start to the start of its first new agent (the one in flight, run
// again), against `rooda run build -n 1` to its first agent in the same
// run: ns/op is the whole command, ms-to-agent the figure that counts.
// RESUME_ITERATIONS sets the size (default 5000); RESUME_WORKSPACE=DIR
// makes the resumed run's workspace there and leaves it, with the
// record's copy in DIR/record, to profile a resume by hand.
//
// The record is the real one's: rooda runs two iterations of the fake
// agent and is killed (SIGKILL) in its third; its journal and iteration
// files are then repeated, with the journal's own writer (journal.Line),
// up to the size asked, as a run that long leaves them. Each resume
// starts from a fresh copy of that record.
//
//	go test ./internal/cli -run '^$' -bench BenchmarkResume -benchtime 10x
func BenchmarkResume(b *testing.B) {
	size := 5000
	if s := os.Getenv("RESUME_ITERATIONS"); s != "" {
		size, _ = strconv.Atoi(s)
	}
	bin := buildForBench(b)
	b.Run("fresh", func(b *testing.B) {
		ws := benchWorkspace(b, bin, "")
		for b.Loop() {
			os.RemoveAll(filepath.Join(ws, ".rooda"))
			os.Remove(filepath.Join(ws, "times"))
			benchToAgent(b, ws, bin, "run", "build", "-n", "1")
		}
	})
	b.Run(fmt.Sprintf("resume-%d", size), func(b *testing.B) {
		ws := benchWorkspace(b, bin, os.Getenv("RESUME_WORKSPACE"))
		id, template := killedRecord(b, ws, bin, size)
		runs := filepath.Join(ws, ".rooda", "runs")
		for b.Loop() {
			b.StopTimer()
			os.RemoveAll(filepath.Join(runs, id))
			os.Remove(filepath.Join(ws, "times"))
			linkRecord(b, template, filepath.Join(runs, id))
			b.StartTimer()
			benchToAgent(b, ws, bin, "runs", "resume", id)
		}
	})
}

// buildForBench builds rooda and the fake agent.
func buildForBench(b *testing.B) string {
	dir := b.TempDir()
	for name, pkg := range map[string]string{"rooda": "rooda/cmd/rooda", "fakeagent": "rooda/internal/fakeagent"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg).CombinedOutput(); err != nil {
			b.Fatalf("building %s: %s", name, out)
		}
	}
	return dir
}

// benchWorkspace is a directory outside git (ws, or a temporary one for
// "") whose agent, the fake one, prints a line and writes when it
// started to "times".
func benchWorkspace(b *testing.B, bin, ws string) string {
	if ws == "" {
		ws = b.TempDir()
	}
	must(b, os.MkdirAll(ws, 0o755))
	writeAgentSteps(b, ws, map[string]any{"output": "done\n", "times": filepath.Join(ws, "times")})
	config := fmt.Sprintf("ai_cmd_aliases:\n  fake: {cmd: \"%s %s\"}\nloop:\n  ai_cmd_alias: fake\n", filepath.Join(bin, "fakeagent"), filepath.Join(ws, "agent.json"))
	if err := os.WriteFile(filepath.Join(ws, "rooda-config.yml"), []byte(config), 0o644); err != nil {
		b.Fatal(err)
	}
	return ws
}

// writeAgentSteps sets the fake agent's steps, the last repeating.
func writeAgentSteps(b *testing.B, ws string, steps ...map[string]any) {
	data, _ := json.Marshal(map[string]any{"record": ws, "steps": steps})
	if err := os.WriteFile(filepath.Join(ws, "agent.json"), data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// benchCommand is rooda with args in ws, its configuration and its
// accounts' ledger its own (not the user's, nor a fleet worker's).
func benchCommand(ws, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, "rooda"), args...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "ROODA_CONFIG_HOME="+filepath.Join(ws, "no-global"), "ROODA_LOG_LEVEL=", "ROODA_SHOW_AI_OUTPUT=",
		"XDG_STATE_HOME="+filepath.Join(ws, "state"), "ROODA_LEDGER=")
	return cmd
}

// benchToAgent runs rooda with args in ws to its end, and reports how
// long it took from its start to its (only) agent's start.
func benchToAgent(b *testing.B, ws, bin string, args ...string) {
	cmd := benchCommand(ws, bin, args...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 2 {
		b.Fatalf("rooda %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	data, err := os.ReadFile(filepath.Join(ws, "times"))
	if err != nil || strings.Count(string(data), "\n") != 1 {
		b.Fatalf("the agent's start: %q, %v", data, err)
	}
	ns, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
	b.ReportMetric(float64(time.Unix(0, ns).Sub(start).Microseconds())/1000, "ms-to-agent")
}

// killedRecord makes the record of a run of size iterations killed in
// its last (see BenchmarkResume), and a copy of it to start each resume
// from: the run's id and the copy's directory.
func killedRecord(b *testing.B, ws, bin string, size int) (id, template string) {
	writeAgentSteps(b, ws, map[string]any{"output": "done\n"}, map[string]any{"output": "done\n"}, map[string]any{"delay": "1h"})
	cmd := benchCommand(ws, bin, "run", "build", "-n", strconv.Itoa(size))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(ws, "prompt-3.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			b.Fatal("the third iteration did not start")
		}
	}
	time.Sleep(100 * time.Millisecond) // its began entry written
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	killAgents(ws)
	writeAgentSteps(b, ws, map[string]any{"output": "done\n", "times": filepath.Join(ws, "times")})
	found, _ := filepath.Glob(filepath.Join(ws, ".rooda", "runs", "*", journal.Name))
	if len(found) != 1 {
		b.Fatalf("records: %v", found)
	}
	runDir := filepath.Dir(found[0])
	lengthen(b, runDir, size)
	template = filepath.Join(ws, "record")
	linkRecord(b, runDir, template)
	return filepath.Base(runDir), template
}

// killAgents kills the fake agents the run started, in case its kill
// left one.
func killAgents(ws string) {
	data, _ := os.ReadFile(filepath.Join(ws, "pids"))
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// lengthen repeats the second iteration of the killed run's record
// from 1 to size-1, and moves the one in flight to size: the journal a
// run of that many iterations killed in its last leaves, and its files.
func lengthen(b *testing.B, runDir string, size int) {
	data, err := os.ReadFile(filepath.Join(runDir, journal.Name))
	if err != nil {
		b.Fatal(err)
	}
	entries, _ := journal.Parse(data)
	var call, began, ended, flight *journal.Entry
	for i := range entries {
		switch e := &entries[i]; {
		case e.Kind == journal.Call:
			call = e
		case e.Kind == journal.Began && e.N == 2:
			began = e
		case e.Kind == journal.Ended && e.N == 2:
			ended = e
		case e.Kind == journal.Began && e.N == 3:
			flight = e
		}
	}
	if call == nil || began == nil || ended == nil || flight == nil {
		b.Fatalf("the killed run's journal: %s", data)
	}
	var out bytes.Buffer
	add := func(e journal.Entry) {
		line, err := journal.Line(e)
		if err != nil {
			b.Fatal(err)
		}
		out.Write(line)
	}
	add(*call)
	iterations := filepath.Join(runDir, "iterations")
	if err := os.Rename(filepath.Join(iterations, "0003"), filepath.Join(iterations, fmt.Sprintf("%04d", size))); err != nil {
		b.Fatal(err)
	}
	for n := 1; n < size; n++ {
		for _, e := range []journal.Entry{*began, *ended} {
			e.N, e.Record = n, n
			add(e)
		}
		if n != 2 {
			os.RemoveAll(filepath.Join(iterations, fmt.Sprintf("%04d", n)))
			copyDir(b, filepath.Join(iterations, "0002"), filepath.Join(iterations, fmt.Sprintf("%04d", n)))
		}
	}
	flight.N, flight.Record = size, size
	add(*flight)
	if err := os.WriteFile(filepath.Join(runDir, journal.Name), out.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
}

// copyDir gives a directory of iteration files another name: hard
// links, for a resume writes none of the files of an iteration it
// replays.
func copyDir(b *testing.B, from, to string) {
	names, err := os.ReadDir(from)
	if err == nil {
		err = os.MkdirAll(to, 0o755)
	}
	for _, e := range names {
		if err == nil {
			err = os.Link(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
		}
	}
	if err != nil {
		b.Fatal(err)
	}
}

// linkRecord makes a copy of a record: its iterations' files hard links,
// the rest (run.json, the journal, which a resume writes) copies.
func linkRecord(b *testing.B, from, to string) {
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case strings.HasPrefix(rel, "iterations"+string(filepath.Separator)):
			return os.Link(path, target)
		}
		data, err := os.ReadFile(path)
		if err == nil {
			err = os.WriteFile(target, data, 0o644)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
