// Command agents measures what agent-aware loops save: on scripted
// scenarios, the iterations, the dollars and the time a run spends when
// rooda decodes the agent's JSON (an alias that declares
// claude-stream-json), next to the same command read as plain text, as
// rooda read every agent before it understood them.
//
//	go run ./bench/agents
//
// It builds rooda and the fake agent (internal/fakeagent), and runs each
// scenario's modes in a fresh temporary git workspace. The fake agent
// prints claude stream-json transcripts recorded in
// host/agentstream/testdata, their cost edited so that an iteration of
// work costs something:
//
//   - usage limit: iteration 1 works; from iteration 2 on the agent hits a
//     usage limit that resets in 3 seconds, and the same iteration run
//     again succeeds. Aware of the agent, rooda waits for the reset and
//     runs iteration 2 again; in text mode it sees a failed iteration,
//     starts the next at once, into the same limit, and aborts at the
//     failure threshold; so does rooda told not to wait
//     (--max-limit-wait none).
//   - stall: the agent works, changes no file and signals nothing, under
//     -n 20; with --stall-iterations 3 and without it.
//   - not logged in: aware of the agent, rooda ends the run in iteration 1;
//     in text mode it retries until the failure threshold.
//
// Dollars in the agent-aware mode are rooda's own count (run.json's
// spent.cost_usd). In text mode rooda cannot count them, so the bench
// decodes each recorded iterations/*/output.txt with host/agentstream and
// sums the CLI's total_cost_usd: what the same run cost, though nobody
// was told.
//
// The success turn says <promise>SUCCESS</promise> unescaped, as the
// real claude prints it (JSON.stringify does not escape "<"), so that the
// text mode can see it too: the scenarios compare waits and stops, not
// where the signal is looked for.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"rooda/host/agentstream"
)

// The cost of one iteration of work, and of the one that finishes it.
const (
	workCost    = 0.40
	successCost = 0.60
)

// A step is one step of the fake agent's script (see internal/fakeagent).
type step map[string]any

// A mode is one way of running a scenario: the alias's output format and
// the flags that go with it.
type mode struct {
	name   string
	format agentstream.Format
	flags  []string
}

var (
	aware       = mode{name: "agent-aware", format: agentstream.Claude}
	awareNoWait = mode{name: "agent-aware, --max-limit-wait none", format: agentstream.Claude, flags: []string{"--max-limit-wait", "none"}}
	awareStall  = mode{name: "agent-aware, --stall-iterations 3", format: agentstream.Claude, flags: []string{"--stall-iterations", "3"}}
	text        = mode{name: "text", format: agentstream.Text}
)

// A scenario is a script for the fake agent, the flags of rooda run, and
// the modes it runs in.
type scenario struct {
	name  string
	steps []step
	flags []string
	modes []mode
}

// A result is what one run of rooda did.
type result struct {
	iterations int
	failed     int // iterations whose outcome was failure
	status     string
	exitCode   int
	dollars    float64
	wall       time.Duration
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/agents:", err)
		os.Exit(1)
	}
}

// run builds the binaries, runs every scenario in each of its modes and
// prints the table, in Markdown for the README.
func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "rooda-bench-agents-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin, err := build(root, work)
	if err != nil {
		return err
	}
	scenarios, err := loadScenarios(filepath.Join(root, "host", "agentstream", "testdata", "claude-stream-json"))
	if err != nil {
		return err
	}
	fmt.Println("| scenario | mode | iterations | failed | status | exit | dollars | wall time |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- |")
	for i, s := range scenarios {
		for j, m := range s.modes {
			r, err := runOnce(bin, filepath.Join(work, fmt.Sprintf("run-%d-%d", i, j)), s, m)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", s.name, m.name, err)
			}
			fmt.Printf("| %s | %s | %d | %d | %s | %d | %s | %.1f s |\n", s.name, m.name, r.iterations, r.failed, r.status, r.exitCode, dollars(r.dollars, m), r.wall.Seconds())
		}
	}
	fmt.Println()
	fmt.Println("Dollars: agent-aware, rooda's count (run.json spent.cost_usd); text, marked *, rooda cannot count them:")
	fmt.Println("the bench decoded each iterations/*/output.txt with host/agentstream and summed total_cost_usd.")
	return nil
}

// dollars formats what a run spent, marked when the bench counted it.
func dollars(d float64, m mode) string {
	if m.format == agentstream.Text {
		return fmt.Sprintf("$%.2f*", d)
	}
	return fmt.Sprintf("$%.2f", d)
}

// moduleRoot is the directory of rooda's go.mod, wherever the bench is
// run from inside the module.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run the bench inside rooda's module")
	}
	return filepath.Dir(gomod), nil
}

// build builds rooda and the fake agent into work/bin.
func build(root, work string) (string, error) {
	bin := filepath.Join(work, "bin")
	for _, pkg := range []string{"./cmd/rooda", "./internal/fakeagent"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, filepath.Base(pkg)), pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
		}
	}
	return bin, nil
}

// loadScenarios makes the scenarios from the recorded transcripts in dir.
func loadScenarios(dir string) ([]scenario, error) {
	recorded := map[string]string{}
	for _, name := range []string{"tool_call_success", "usage_limit_reset", "not_logged_in"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			return nil, err
		}
		recorded[name] = string(data)
	}
	toolCall, notLoggedIn := recorded["tool_call_success"], recorded["not_logged_in"]
	const said = `The file holds hi. \u003cpromise\u003eSUCCESS\u003c/promise\u003e`
	work, err := edit(toolCall, said, "The file holds hi; the tests still fail.", "0.000285", fmt.Sprint(workCost))
	if err != nil {
		return nil, err
	}
	success, err := edit(toolCall, said, "The file holds hi. <promise>SUCCESS</promise>", "0.000285", fmt.Sprint(successCost))
	if err != nil {
		return nil, err
	}
	limit, err := edit(recorded["usage_limit_reset"], "1795446000", "{{unix+3}}")
	if err != nil {
		return nil, err
	}
	return []scenario{
		{
			name:  "usage limit from iteration 2, resets within 3 s",
			steps: []step{{"output": work}, {"output": limit, "exit": 1, "again": step{"output": success}}},
			flags: []string{"-n", "10"},
			modes: []mode{aware, awareNoWait, text},
		},
		{
			name:  "stall: no change, no signal",
			steps: []step{{"output": work}},
			flags: []string{"-n", "20"},
			modes: []mode{awareStall, aware, text},
		},
		{
			name:  "not logged in",
			steps: []step{{"output": notLoggedIn, "exit": 1}},
			flags: []string{"-n", "10"},
			modes: []mode{aware, text},
		},
	}, nil
}

// edit replaces each pair of old and new strings in s, every occurrence;
// an old string s does not hold is an error: the transcript changed.
func edit(s string, oldNew ...string) (string, error) {
	for i := 0; i < len(oldNew); i += 2 {
		if !strings.Contains(s, oldNew[i]) {
			return "", fmt.Errorf("the transcript no longer holds %q", oldNew[i])
		}
		s = strings.ReplaceAll(s, oldNew[i], oldNew[i+1])
	}
	return s, nil
}

// runOnce runs rooda on scenario s in mode m, in a fresh git workspace
// under dir, and reads what it did from its record.
func runOnce(bin, dir string, s scenario, m mode) (result, error) {
	ws := filepath.Join(dir, "ws")
	script, err := writeScript(dir, s.steps)
	if err != nil {
		return result{}, err
	}
	if err := newWorkspace(ws, filepath.Join(bin, "fakeagent")+" "+script, m.format); err != nil {
		return result{}, err
	}
	cmd := exec.Command(filepath.Join(bin, "rooda"), append(append([]string{"run", "build"}, s.flags...), m.flags...)...)
	cmd.Dir, cmd.Env = ws, environment(dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	r := result{wall: time.Since(start), exitCode: cmd.ProcessState.ExitCode()}
	var exited *exec.ExitError
	if err != nil && !errors.As(err, &exited) {
		return result{}, err
	}
	if err := readRecord(ws, m, &r); err != nil {
		return result{}, fmt.Errorf("%w\nrooda said:\n%s", err, out.Bytes())
	}
	return r, nil
}

// writeScript writes the fake agent's script, and the directory where it
// counts the runs of each iteration (for "again"), outside the workspace.
func writeScript(dir string, steps []step) (string, error) {
	record := filepath.Join(dir, "record")
	if err := os.MkdirAll(record, 0o755); err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]any{"record": record, "steps": steps})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "script.json")
	return path, os.WriteFile(path, data, 0o644)
}

// newWorkspace makes ws a git repository with one commit holding the
// configuration: an alias of cmd whose output is format, the loop's agent.
func newWorkspace(ws, cmd string, format agentstream.Format) error {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	config := fmt.Sprintf("ai_cmd_aliases:\n  claude: {cmd: %q, output: %s}\nloop:\n  ai_cmd_alias: claude\n", cmd, format)
	if err := os.WriteFile(filepath.Join(ws, "rooda-config.yml"), []byte(config), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "."}, {"-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "--quiet", "-m", "start"}} {
		git := exec.Command("git", args...)
		git.Dir = ws
		if out, err := git.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// environment is the bench's own without any ROODA_ variable, so that
// the user's settings do not change the runs, and without the user's
// global configuration.
func environment(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROODA_") {
			env = append(env, kv)
		}
	}
	return append(env, "ROODA_CONFIG_HOME="+filepath.Join(dir, "no-global"))
}

// readRecord reads the run's status, iterations, failures and dollars
// from its record in ws: the dollars are rooda's count in run.json, or in
// text mode the bench's own, from the outputs.
func readRecord(ws string, m mode, r *result) error {
	runs, _ := filepath.Glob(filepath.Join(ws, ".rooda", "runs", "*", "run.json"))
	if len(runs) != 1 {
		return fmt.Errorf("%d runs recorded, want 1", len(runs))
	}
	data, err := os.ReadFile(runs[0])
	if err != nil {
		return err
	}
	var run struct {
		Status     string `json:"status"`
		Iterations int    `json:"iterations"`
		Spent      struct {
			CostUSD float64 `json:"cost_usd"`
		} `json:"spent"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		return fmt.Errorf("%s: %w", runs[0], err)
	}
	r.status, r.iterations = run.Status, run.Iterations
	decode := m.format == agentstream.Text
	var decoded float64
	r.failed, decoded, err = readIterations(filepath.Dir(runs[0]), decode)
	r.dollars = run.Spent.CostUSD
	if decode {
		r.dollars = decoded
	}
	return err
}

// readIterations counts the failed iterations of the run recorded in
// dir and, when decode, sums the cost the CLI reported in their outputs.
func readIterations(dir string, decode bool) (failed int, cost float64, err error) {
	iterations, _ := filepath.Glob(filepath.Join(dir, "iterations", "*"))
	for _, it := range iterations {
		var meta struct {
			Outcome string `json:"outcome"`
		}
		data, err := os.ReadFile(filepath.Join(it, "meta.json"))
		if err == nil {
			err = json.Unmarshal(data, &meta)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", it, err)
		}
		if meta.Outcome == "failure" {
			failed++
		}
		if decode {
			c, err := decodedCost(filepath.Join(it, "output.txt"))
			if err != nil {
				return 0, 0, err
			}
			cost += c
		}
	}
	return failed, cost, nil
}

// decodedCost is the cost the CLI reported in the output at path.
func decodedCost(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	d := agentstream.New(agentstream.Claude, nil)
	if _, err := io.Copy(d, f); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	d.Close()
	return d.Summary().CostUSD, nil
}
