package cli

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rooda/host/runlog"
	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// The real-CLI suite runs rooda's built-in aliases for claude, codex,
// gemini, opencode and copilot, installed at pinned versions from the npm
// registry (internal/realcli), against the local model server
// (internal/modelserver). If the registry cannot be reached it skips,
// loudly; anything else that goes wrong fails.
//
// It runs with -realcli, as a step of its own in the README's test command
// and with -v: go test ./... shows nothing of a package that passes, so a
// skip there would be silent, and the suite takes minutes of two cores.
var realCLIs = flag.Bool("realcli", false, "run the real-CLI suite: real agent CLIs, installed from npm, against a local model server")

// latestCLIs runs the suite against each CLI's newest version on the npm
// registry rather than its pin: run it before moving a pin
// (CONTRIBUTING.md). CI never sets it: its results would change with the
// registry.
var latestCLIs = flag.Bool("latest", false, "with -realcli: run against the newest version of each CLI on the npm registry, not the pinned one")

var (
	installOnce sync.Once
	installed   map[string]realcli.Installed
	installErr  error
)

// realCLI installs the CLIs once per test run and returns the named one; it
// skips the test when the registry could not be reached.
func realCLI(t *testing.T, name string) realcli.Installed {
	t.Helper()
	if !*realCLIs {
		t.Skip("the real-CLI suite runs with -realcli")
	}
	binaries(t) // skips under -short, like every end-to-end test
	installOnce.Do(func() {
		if *latestCLIs {
			installed, installErr = realcli.InstallLatest()
		} else {
			installed, installErr = realcli.Install()
		}
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	c := installed[name]
	switch {
	case c.Unreachable:
		t.Skipf("SKIPPED: THE REAL %s CLI COULD NOT BE INSTALLED: THE NPM REGISTRY IS UNREACHABLE: %s", strings.ToUpper(name), c.Why)
	case c.Binary == "":
		t.Fatalf("installing %s: %s", name, c.Why)
	}
	if *latestCLIs {
		t.Logf("the newest %s: %s", name, c.Binary) // its directory names the version
	}
	return c
}

// realRun is a temporary git workspace in which rooda runs one real CLI
// through its built-in alias against a model server.
type realRun struct {
	*workspace
	cli    realcli.Installed
	server *modelserver.Server
	// marker is an environment variable that every process of the run
	// inherits, so that a survivor can be found whatever its parent.
	marker string
}

func newRealRun(t *testing.T, cli realcli.Installed, script ...modelserver.Reply) *realRun {
	t.Helper()
	return newRealRunOn(t, cli, modelserver.Start(t, script))
}

// newRealRunOn is newRealRun against server.
func newRealRunOn(t *testing.T, cli realcli.Installed, server *modelserver.Server) *realRun {
	t.Helper()
	r := &realRun{
		workspace: &workspace{t: t, dir: t.TempDir()},
		cli:       cli,
		server:    server,
		marker:    "ROODA_REALCLI_RUN=" + randomHex(),
	}
	base := append(os.Environ(), "ROODA_CONFIG_HOME="+filepath.Join(t.TempDir(), "no-global"),
		"ROODA_LOG_LEVEL=", "ROODA_SHOW_AI_OUTPUT=", r.marker)
	env, err := realcli.Environment(base, cli, t.TempDir(), r.dir, r.server.URL)
	if err != nil {
		t.Fatal(err)
	}
	r.env = env
	r.git("init", "-q")
	r.write("README.md", "A workspace of the real-CLI suite.\n")
	// A CLI that reports no cost is priced by its alias's name.
	r.write("rooda-config.yml", "model_prices:\n  "+cli.Name+": {input: 1, output: 10, cache_read: 0.1}\n")
	r.git("add", ".")
	r.git("-c", "user.name=suite", "-c", "user.email=suite@example.com", "commit", "-q", "-m", "start")
	t.Cleanup(r.noSurvivors)
	return r
}

func randomHex() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (r *realRun) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// build runs rooda build through the CLI's built-in alias.
func (r *realRun) build(args ...string) outcome {
	r.t.Helper()
	return r.buildWithin(hangGuard, args...)
}

// buildWithin is build for a run that may rightly take up to guard.
func (r *realRun) buildWithin(guard time.Duration, args ...string) outcome {
	r.t.Helper()
	cmd := exec.Command(binary(r.t), append([]string{"build", "--ai-cmd-alias", r.cli.Name}, args...)...)
	cmd.Dir, cmd.Env = r.dir, r.env
	return r.waitWithin(r.start(cmd), guard)
}

// runDir is the record of the workspace's only run.
func (r *realRun) runDir() string {
	r.t.Helper()
	ids := runIDs(r.t, r.workspace)
	if len(ids) != 1 {
		r.t.Fatalf("%d run records: %v", len(ids), ids)
	}
	return filepath.Join(r.dir, ".rooda", "runs", ids[0])
}

// meta is the record of iteration n.
func (r *realRun) meta(n int) runlog.Meta {
	r.t.Helper()
	m, err := runlog.ReadMeta(r.runDir(), n)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// promptArrived checks that the prompt rooda recorded for iteration 1
// reached the model server byte for byte, in every turn the CLI took.
func (r *realRun) promptArrived() {
	r.t.Helper()
	recorded, err := runlog.ReadPrompt(r.runDir(), 1)
	if err != nil {
		r.t.Fatal(err)
	}
	want := string(recorded)
	if r.cli.Name == "copilot" {
		// copilot drops the trailing newline of what it reads.
		want = strings.TrimRight(want, "\n")
	}
	turns := r.server.Turns()
	if len(turns) == 0 {
		r.t.Fatalf("the model server saw no turn; requests: %+v", r.server.Requests())
	}
	for i, turn := range turns {
		if turn.Prompt != want {
			r.t.Errorf("turn %d: the prompt the server received (%d bytes) is not the one rooda recorded (%d bytes)\n%s",
				i, len(turn.Prompt), len(want), firstDifference(turn.Prompt, want))
		}
	}
}

// firstDifference shows where two texts part.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("at byte %d: got %q, want %q", i, got[i:min(len(got), i+60)], want[i:min(len(want), i+60)])
}

// noSurvivors fails the test if a process of the run is still alive (one
// carrying its marker), and kills what it finds.
func (r *realRun) noSurvivors() {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || !alive(pid) {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), r.marker) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		syscall.Kill(pid, syscall.SIGKILL)
		r.t.Errorf("process %d (%s) of the run survived rooda", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
}

// TestRealCLIs runs each CLI through its built-in alias in every scenario.
// The CLIs run side by side, their scenarios one after another.
func TestRealCLIs(t *testing.T) {
	for _, name := range realcli.Names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cli := realCLI(t, name)
			for _, s := range realScenarios {
				t.Run(s.name, func(t *testing.T) { s.run(t, cli) })
			}
		})
	}
	t.Run("rotation_claude_codex_gemini", realRotation)
	t.Run("rotation_past_claude_refused", realRotationPastALoginFailure)
	t.Run("opencode_silent_limit", realSilentLimit)
}

var realScenarios = []struct {
	name string
	run  func(t *testing.T, cli realcli.Installed)
}{
	{"success_ends_the_loop", func(t *testing.T, cli realcli.Installed) {
		r := newRealRun(t, cli, modelserver.Text("All done. "+successSignal))
		r.build("-n", "3").expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/3")
		r.promptArrived()
		m := r.meta(1)
		if m.Outcome != "success" || m.ExitCode != 0 || m.Format != cli.Name+formatSuffix[cli.Name] {
			t.Errorf("meta: %+v", m)
		}
		r.spentRecorded(m)
	}},
	{"tool_call_changes_a_file", func(t *testing.T, cli realcli.Installed) {
		r := newRealRun(t, cli, modelserver.Shell("printf 'written by the agent\\n' > made.txt", "I wrote made.txt."))
		r.build("-n", "1").expect(t, 2, "Reached max iterations: 1")
		r.promptArrived()
		if data, err := os.ReadFile(filepath.Join(r.dir, "made.txt")); string(data) != "written by the agent\n" {
			t.Errorf("made.txt: %q, %v", data, err)
		}
		if m := r.meta(1); !slices.Contains(m.FilesChanged, "made.txt") || m.Outcome != "continue" {
			t.Errorf("meta: outcome %s, files changed %v", m.Outcome, m.FilesChanged)
		}
	}},
	{"failure_is_counted", func(t *testing.T, cli realcli.Installed) {
		r := newRealRun(t, cli, modelserver.Text("I cannot. "+failureSignal))
		r.build("-n", "2", "--failure-threshold", "1").expect(t, 1,
			"(failure, consecutive: 1/1)", "ERROR: Aborting after 1 consecutive failure (")
		r.promptArrived()
		if m := r.meta(1); m.Outcome != "failure" || m.ExitCode != 0 {
			t.Errorf("meta: %+v", m)
		}
	}},
	{"rate_limit_recovers", func(t *testing.T, cli realcli.Installed) {
		// Every CLI retries a 429 after its retry-after, inside the iteration.
		r := newRealRun(t, cli, modelserver.RateLimited(time.Second), modelserver.Text("All done. "+successSignal))
		o := r.build("-n", "3", "-v")
		o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/3")
		r.promptArrived()
		// -v shows the CLI's retries, one line each, where it reports them.
		if m := r.meta(1); (m.Retries > 0) != strings.Contains(o.stdout, "retry 1") || (cli.Name == "claude" && m.Retries == 0) {
			t.Errorf("%d retries recorded; -v shows:\n%s", m.Retries, o.stdout)
		}
		if turns := r.server.Turns(); len(turns) != 2 || turns[0].Status != 429 || turns[1].Status != 200 {
			t.Errorf("turns: %+v", turns)
		}
	}},
	{"usage_limit_resets", func(t *testing.T, cli realcli.Installed) {
		// A usage limit that resets in a few seconds costs no iteration
		// and no failure: the CLI waits for it itself (claude, gemini,
		// opencode, copilot retry), or it gives up and says when to come
		// back (codex: "try again at 3:05 PM"), and rooda waits.
		r := newRealRun(t, cli, modelserver.UsageLimit(time.Now().Add(3*time.Second)), modelserver.Text("All done. "+successSignal))
		// codex names the reset to the minute: rooda tries again 10 s
		// into that minute, then later, at most to its end.
		o := r.buildWithin(hangGuard+time.Minute, "-n", "3", "--failure-threshold", "1")
		o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/3")
		if strings.Contains(o.stderr, "(failure") {
			t.Errorf("a failure was counted:\n%s", o.stderr)
		}
		if waits := strings.Contains(o.stderr, "usage limit; waiting until"); waits != roodaWaitsForLimits[cli.Name] {
			t.Errorf("rooda waited: %v, want %v:\n%s", waits, roodaWaitsForLimits[cli.Name], o.stderr)
		}
		r.promptArrived()
	}},
	{"unauthorized_ends_the_run", func(t *testing.T, cli realcli.Installed) {
		// A 401 is a login failure, read in the CLI's structured output as
		// it comes: the run ends in iteration 1 whatever the failure
		// threshold, with the fix, with the default settings (no
		// timeout). claude would retry it ten times over three minutes:
		// its first retry stops it. The bound is 20 s; what each CLI took
		// is logged, and a run that waits out the CLI's retries fails.
		r := newRealRun(t, cli, modelserver.Status(401))
		o := r.build("-n", "3", "--failure-threshold", "3")
		o.expect(t, 1, "ERROR: Iteration 1/3: the agent cannot log in (", "; no further iteration of this loop starts. ", "ERROR: Aborting: the agent cannot log in (1 iteration completed")
		r.promptArrived()
		m := r.meta(1)
		t.Logf("%s on a 401: the run took %s, exit code %d, %d requests", cli.Name, o.took.Round(100*time.Millisecond), m.ExitCode, len(r.server.Requests()))
		if m.Outcome != "failure" || m.Cause != "auth" || m.TimedOut {
			t.Errorf("meta: %+v", m)
		}
		if o.took > unauthorizedBound {
			t.Errorf("a 401 took %s, over %s", o.took, unauthorizedBound)
		}
	}},
	{"hang_fails_at_the_model_timeout", hangFailsAtTheModelTimeout},
	{"server_down_is_waited_out", serverDownIsWaitedOut},
	{"sandboxed_tool_call", sandboxedToolCall},
	{"sandbox_net_reaches_the_model_only", sandboxNetReachesTheModelOnly},
	{"sandbox_hosts_reaches_the_model_only", sandboxHostsReachesTheModelOnly},
	{"sandbox_hosts_through_the_proxy", sandboxHostsThroughTheProxy},
	{"agent_spans_join_the_trace", agentSpansJoinTheTrace},
	{"resumes_after_a_kill", resumesAfterAKill},
	{"limit_without_reset_is_waited_out", limitWithoutResetIsWaitedOut},
	{"hang_ends_at_the_timeout", func(t *testing.T, cli realcli.Installed) {
		// Long enough for the slowest CLI to start and ask on a busy
		// 2-core machine (opencode took over 10 s there), so that what
		// the timeout ends is the hang, not the start.
		r := newRealRun(t, cli, modelserver.Hang())
		r.build("-n", "2", "--failure-threshold", "1", "--iteration-timeout", "25").expect(t, 1,
			"(failure, consecutive: 1/1)", "ERROR: Aborting after 1 consecutive failure (")
		r.promptArrived()
		if m := r.meta(1); !m.TimedOut || m.Outcome != "failure" {
			t.Errorf("meta: %+v", m)
		}
	}},
}

// roodaWaitsForLimits are the CLIs that give up at a usage limit and say
// when it resets, so that rooda waits; the others retry it themselves.
var roodaWaitsForLimits = map[string]bool{"codex": true}

// formatSuffix completes a CLI's name into the output format its alias
// declares.
var formatSuffix = map[string]string{"claude": "-stream-json", "codex": "-json", "gemini": "-stream-json", "opencode": "-json", "copilot": "-json"}

// reportsNoTokens are the CLIs whose structured output says nothing of
// tokens or cost (copilot, with a provider of the user's own).
var reportsNoTokens = map[string]bool{"copilot": true}

// spentRecorded checks that the record has what the CLI said it used,
// and a cost: the CLI's own, or priced by model_prices.
func (r *realRun) spentRecorded(m runlog.Meta) {
	r.t.Helper()
	if reportsNoTokens[r.cli.Name] {
		if m.Spent != nil {
			r.t.Errorf("%s reports no tokens, yet the record has %+v", r.cli.Name, *m.Spent)
		}
		return
	}
	if m.Spent == nil || m.Spent.InputTokens+m.Spent.OutputTokens+m.Spent.CacheReadTokens == 0 || m.Spent.CostUSD == nil || *m.Spent.CostUSD <= 0 {
		r.t.Errorf("spent: %+v", m.Spent)
		return
	}
	r.t.Logf("%s spent %s", r.cli.Name, m.Spent)
}

// unauthorizedBound is how long a run refused with a 401 may take: the
// issue's 20 s, and room for a CLI's start on a loaded machine (opencode
// took over 15 s to start there). claude's ten retries take three
// minutes.
const unauthorizedBound = 40 * time.Second

// realRotation: claude, codex and gemini take turns in one loop of a
// script (the rotate_agents example), each through its built-in alias, and
// each turn is read in its own CLI's format: claude's says nothing
// (continue), codex's says FAILURE (counted), gemini's says SUCCESS (the
// end), and every turn's record has its format, tokens, cost and
// transcript, and its prompt reached the server as recorded.
func realRotation(t *testing.T) {
	t.Parallel()
	names := []string{"claude", "codex", "gemini"}
	said := []string{"Step one is done.", "I am blocked by the missing spec.", "All done."}
	clis := make([]realcli.Installed, len(names))
	for i, name := range names {
		clis[i] = realCLI(t, name)
	}
	r := newRealRun(t, clis[0],
		modelserver.Text(said[0]), modelserver.Text(said[1]+" "+failureSignal), modelserver.Text(said[2]+" "+successSignal))
	for _, cli := range clis[1:] {
		r.addCLI(cli)
	}
	o := r.rotate()
	o.expect(t, 0, "iteration 1: claude, no signal, ", "iteration 2: codex, FAILURE, ", "iteration 3: gemini, SUCCESS, ",
		"(failure, consecutive: 1/", "Success: the agent signaled SUCCESS in iteration 3/6")
	outcomes := []string{"continue", "failure", "success"}
	for i, name := range names {
		m := r.meta(i + 1)
		if m.Agent != name || m.Format != name+formatSuffix[name] || m.Outcome != outcomes[i] {
			t.Errorf("iteration %d: meta %+v", i+1, m)
		}
		r.cli = clis[i] // whose tokens spentRecorded expects
		r.spentRecorded(m)
		transcript := readText(t, filepath.Join(r.runDir(), "iterations", fmt.Sprintf("%04d", i+1), "transcript.txt"))
		if !strings.Contains(transcript, said[i]) || strings.Contains(transcript, `"type":`) {
			t.Errorf("iteration %d (%s): transcript.txt:\n%s", i+1, name, transcript)
		}
	}
	r.promptsArrived(len(names))
}

// realRotationPastALoginFailure: claude → codex → gemini, claude's key
// refused (its own server answers 401): claude is taken out of the
// rotation, said once, and codex and gemini take their turns to success.
func realRotationPastALoginFailure(t *testing.T) {
	t.Parallel()
	claude, codex, gemini := realCLI(t, "claude"), realCLI(t, "codex"), realCLI(t, "gemini")
	// Added in this order, as realRotation's: gemini's HOME, the last,
	// is the one its settings file is read from.
	r := newRealRunOn(t, claude, modelserver.Start(t, modelserver.Script{modelserver.Status(401)}))
	r.server = modelserver.Start(t, modelserver.Script{modelserver.Text("Step one is done."), modelserver.Text("All done. " + successSignal)})
	r.addCLI(codex)
	r.addCLI(gemini)
	o := r.rotate()
	o.expect(t, 0, "iteration 1: claude, no signal, ", "iteration 2: codex, no signal, ", "iteration 3: gemini, SUCCESS, ",
		"Iteration 1/6: claude cannot log in", "taken out of the rotation for the rest of the loop; the loop goes on with codex, gemini.",
		"Success: the agent signaled SUCCESS in iteration 3/6")
	if n := strings.Count(o.stderr, "taken out of the rotation"); n != 1 {
		t.Errorf("the log says %d times that claude is out:\n%s", n, o.stderr)
	}
	for i, name := range []string{"claude", "codex", "gemini"} {
		if m := r.meta(i + 1); m.Agent != name {
			t.Errorf("iteration %d: meta %+v, want %s's", i+1, m, name)
		}
	}
	if m := r.meta(1); m.Cause != "auth" {
		t.Errorf("claude's iteration: cause %q, want auth", m.Cause)
	}
}

// rotate runs scripts/examples/rotate_agents.star with claude, codex and
// gemini taking turns, codex's and gemini's tokens priced.
func (r *realRun) rotate() outcome {
	r.t.Helper()
	r.write("rooda-config.yml", "model_prices:\n  codex: {input: 1, output: 10, cache_read: 0.1}\n  gemini: {input: 1, output: 10, cache_read: 0.1}\n")
	cmd := exec.Command(binary(r.t), "script", "run", example("rotate_agents.star"), "--", "claude", "codex", "gemini")
	cmd.Dir, cmd.Env = r.dir, r.env
	return r.waitWithin(r.start(cmd), 2*hangGuard)
}

// addCLI points one more CLI at the run's model server: its variables and
// files under a HOME of its own, its binary on PATH beside the others'.
func (r *realRun) addCLI(cli realcli.Installed) {
	r.t.Helper()
	before := r.env
	env, err := realcli.Environment(before, cli, r.t.TempDir(), r.dir, r.server.URL)
	if err != nil {
		r.t.Fatal(err)
	}
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(cli.Binary) + string(os.PathListSeparator) + valueIn(before, "PATH")
		}
	}
	r.env = env
}

// valueIn is an environment variable's value in env.
func valueIn(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// promptsArrived checks that each turn the server answered had, byte for
// byte, the prompt rooda recorded for the iteration its reply was for: a
// rotation's turns, one reply of the script each.
func (r *realRun) promptsArrived(iterations int) {
	r.t.Helper()
	answered := map[int]bool{}
	for i, turn := range r.server.Turns() {
		recorded, err := runlog.ReadPrompt(r.runDir(), turn.Reply+1)
		if err != nil {
			r.t.Fatal(err)
		}
		answered[turn.Reply] = true
		if turn.Prompt != string(recorded) {
			r.t.Errorf("turn %d (reply %d): the prompt the server received (%d bytes) is not the one rooda recorded (%d bytes)\n%s",
				i, turn.Reply, len(turn.Prompt), len(recorded), firstDifference(turn.Prompt, string(recorded)))
		}
	}
	if len(answered) != iterations {
		r.t.Errorf("the server answered replies %v, want one for each of %d iterations; requests: %+v", answered, iterations, r.server.Requests())
	}
}
