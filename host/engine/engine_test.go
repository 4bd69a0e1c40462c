package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/config"
	"rooda/host/interrupt"
	"rooda/host/loop"
	"rooda/host/prompt"

	"rooda/internal/syncbuf"
)

// guard bounds a wait that must end; it is not a measure of speed.
const guard = 10 * time.Second

// load reads the configuration of a workspace holding files, with no
// global file and no ROODA_ variables, and flags on top.
func load(t *testing.T, files map[string]string, flags ...config.Flag) (*config.Config, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"ROODA_CONFIG_HOME": filepath.Join(dir, "no-global")}
	cfg, err := config.Load(config.Options{WorkDir: dir, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, dir
}

func aiCmd(cmd string) config.Flag { return config.Flag{Name: "ai-cmd", Value: cmd} }

func TestPrepareRefusesWhatCannotBePlanned(t *testing.T) {
	cfg, _ := load(t, map[string]string{"rooda-config.yml": "procedures:\n  nightly:\n    script: n.star\n", "n.star": ""}, aiCmd("sh"))
	for name, want := range map[string]string{
		"biuld":   "unknown procedure 'biuld'\n\nDid you mean: build",
		"nightly": "procedure nightly is a Starlark script",
	} {
		if _, err := Prepare(context.Background(), Request{Config: cfg, Name: name}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	req := Request{Config: cfg, Name: "build"}
	req.Phases[prompt.Observe] = []string{"a.md", "fine text"}
	req.Phases[prompt.Act] = []string{" "}
	_, err := Prepare(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), `--observe "a.md": fragment file not found`) || !strings.Contains(err.Error(), `--act " ": empty inline content`) {
		t.Errorf("every bad phase value is reported: %v", err)
	}
}

// TestPhasesReplaceOnlyTheirOwn: a phase given on the command line
// replaces that phase whole; the others stay the procedure's.
func TestPhasesReplaceOnlyTheirOwn(t *testing.T) {
	cfg, _ := load(t, nil, aiCmd("sh"))
	req := Request{Config: cfg, Name: "build"}
	req.Phases[prompt.Decide] = []string{"Pick the oldest issue.", "builtin:fragments/decide/check_if_blocked.md"}
	p, err := Prepare(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	built := cfg.Procedures["build"].Prompt()
	decide := p.Procedure.Phases[prompt.Decide]
	if len(decide) != 2 || decide[0].Content != "Pick the oldest issue." || decide[1].Path != "builtin:fragments/decide/check_if_blocked.md" {
		t.Errorf("decide: %+v", decide)
	}
	if len(p.Procedure.Phases[prompt.Observe]) != len(built.Phases[prompt.Observe]) || len(p.Procedure.Phases[prompt.Act]) != len(built.Phases[prompt.Act]) {
		t.Error("other phases changed")
	}
}

// TestChecks: each problem is its own failed check, and Err tells them all.
func TestChecks(t *testing.T) {
	cfg, dir := load(t, map[string]string{"rooda-config.yml": "procedures:\n  p:\n    observe:\n      - path: gone.md\n    act:\n      - content: Act.\n"},
		aiCmd("no-such-agent-xyz"))
	p, err := Prepare(context.Background(), Request{Config: cfg, Name: "p", Context: prompt.GivenValues([]string{"inline words", dir})})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range p.Checks {
		lines = append(lines, map[bool]string{true: "ok ", false: "bad "}[c.OK]+c.Text)
	}
	want := []string{
		"bad AI command binary not found: no-such-agent-xyz",
		"bad observe fragment 0 (gone.md): fragment file not found: gone.md",
		"ok Inline content: act fragment 0 (inline content)",
		"ok Context 1: inline text (12 bytes)",
		"bad context 2: context " + dir + " is a directory; give a file or inline text",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("checks:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if err := p.Err(); err == nil || len(err.(prompt.Problems)) != 3 {
		t.Errorf("Err: %v", err)
	}
}

// signalAfterFirst sends this process SIGINT when iteration 1 has
// finished and before iteration 2 begins, and waits until the run has
// announced it.
type signalAfterFirst struct{ log *syncbuf.Buffer }

func (signalAfterFirst) IterationStarted(loop.Request) {}

func (s signalAfterFirst) IterationFinished(it *loop.Iteration) {
	if it.Number != 1 {
		return
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(s.log.String(), "Received SIGINT") {
			time.Sleep(50 * time.Millisecond)
			return
		}
	}
}

// TestSignalBetweenIterations: a real SIGINT between two iterations ends
// the run as interrupted, and no agent starts after it.
func TestSignalBetweenIterations(t *testing.T) {
	cfg, dir := load(t, nil, aiCmd(`sh -c 'cat >/dev/null; echo $ROODA_ITERATION >>ran'`), config.Flag{Name: "max-iterations", Value: "3"})
	p, err := Prepare(context.Background(), Request{Config: cfg, Name: "build"})
	if err != nil || p.Err() != nil {
		t.Fatal(err, p.Err())
	}
	t.Chdir(dir)
	ctx, watch := interrupt.Watch(context.Background())
	defer watch.Stop()
	log := &syncbuf.Buffer{}
	res := p.Execute(ctx, Output{Stdout: log, Stderr: log, Kill: watch.Kill}, signalAfterFirst{log})
	ran, _ := os.ReadFile(filepath.Join(dir, "ran"))
	if res.Status != loop.Interrupted || res.Iterations != 1 || string(ran) != "1\n" {
		t.Errorf("status %s after %d iterations, agents ran: %q\n%s", res.Status, res.Iterations, ran, log.String())
	}
	if !strings.Contains(log.String(), "WARN: Interrupted by SIGINT (1 iteration completed") {
		t.Errorf("log:\n%s", log.String())
	}
}

func TestShellLine(t *testing.T) {
	got := shellLine([]string{"/usr/local/bin/rooda", "build", "--ai-cmd=x", "a b", "it's", ""})
	if want := `rooda build --ai-cmd=x 'a b' 'it'\''s' ''`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestRolesTakeTurns: each turn is given its role's prompt, or the
// loop's, and named; the command line's agent replaces the script's
// agents but not their roles.
func TestRolesTakeTurns(t *testing.T) {
	cfg, _ := load(t, map[string]string{"rooda-config.yml": "loop:\n  ai_cmd: sh\n"})
	audit, err := cfg.Procedure("audit-impl")
	if err != nil {
		t.Fatal(err)
	}
	turns := []Turn{{Name: "builder", Line: "sh"}, {Name: "auditor", Line: "cat", Role: audit}}
	p, err := Prepare(context.Background(), Request{Config: cfg, Name: "build", Turns: turns})
	if err != nil || p.Err() != nil {
		t.Fatal(err, p.Err())
	}
	if got := strings.Join(p.Agents, " "); got != "builder auditor" {
		t.Errorf("agents %q", got)
	}
	for n, want := range map[int]string{1: "Procedure: build\n", 2: "Procedure: audit-impl\n", 3: "Procedure: build\n"} {
		if text, err := p.Prompt(prompt.Iteration{Number: n, Max: 3}); err != nil || !strings.Contains(text, want) {
			t.Errorf("prompt %d lacks %q: %v", n, want, err)
		}
	}
	cfg, _ = load(t, nil, aiCmd("sh"))
	p, err = Prepare(context.Background(), Request{Config: cfg, Name: "build", Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Agents, " "); got != "sh" || len(p.Rotation) != 0 || len(p.Roles) != 2 {
		t.Errorf("under --ai-cmd: agents %q, rotation %q, %d roles", got, p.Rotation, len(p.Roles))
	}
}
