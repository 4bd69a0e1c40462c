package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rooda/internal/golden"
)

var (
	fleetBuildOnce sync.Once
	fleetBuildErr  error
)

// fleetBinaries builds rooda-fleet beside the other binaries, only for
// the tests that run a fleet: it links NATS, a build the others need not
// wait for.
func fleetBinaries(t *testing.T) string {
	t.Helper()
	dir := binaries(t)
	fleetBuildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "rooda-fleet"), "rooda/cmd/rooda-fleet").CombinedOutput()
		if err != nil {
			fleetBuildErr = errors.New(string(out))
		}
	})
	if fleetBuildErr != nil {
		t.Fatalf("building rooda-fleet: %v", fleetBuildErr)
	}
	return dir
}

// fleetState is what `rooda fleet status --json` says of a run.
type fleetState struct {
	Run struct {
		Name string   `json:"name"`
		Argv []string `json:"argv"`
	} `json:"run"`
	Phase      string `json:"phase"`
	Status     string `json:"status"`
	ExitCode   int    `json:"exit_code"`
	Worker     string `json:"worker"`
	Workspace  string `json:"workspace"`
	Attempt    int    `json:"attempt"`
	Iterations int    `json:"iterations"`
}

// testFleet is a fleet server rooda runs for the test, on a free port
// of 127.0.0.1, with the workspace the runs are queued from.
type testFleet struct {
	w      *workspace
	url    string
	state  string
	server *exec.Cmd
}

// newFleet starts `rooda fleet serve` for w, and stops it, and every
// worker the test started, at the test's end.
func newFleet(t *testing.T, w *workspace) *testFleet {
	t.Helper()
	fleetBinaries(t)
	w.gitInit()
	f := &testFleet{w: w, state: t.TempDir()}
	w.env = append(w.env, "XDG_STATE_HOME="+f.state)
	f.serve("127.0.0.1:0")
	return f
}

// serve starts `rooda fleet serve --listen listen` on the fleet's store
// and notes its URL.
func (f *testFleet) serve(listen string) {
	t := f.w.t
	t.Helper()
	serve := exec.Command(binary(t), "fleet", "serve", "--listen", listen)
	serve.Dir, serve.Env, serve.Stderr = f.w.dir, f.w.env, os.Stderr
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(serve) })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "Fleet server on nats://") {
		t.Fatalf("fleet serve said %q (%v)", line, err)
	}
	f.url = strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, "Fleet server on "))[0], ",")
	f.server = serve
}

// stop ends cmd with SIGTERM, SIGKILL after a grace, and waits for it.
func stop(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// fleet runs `rooda fleet args… --server URL` in the workspace and
// returns what it printed; the test fails if it fails.
func (f *testFleet) fleet(args ...string) string {
	f.w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(f.w.t), append([]string{"fleet"}, args...)...)
	cmd.Dir, cmd.Env = f.w.dir, append(f.w.env, "ROODA_FLEET_SERVER="+f.url)
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			f.w.t.Fatalf("rooda fleet %v: %v\n%s", args, err, exit.Stderr)
		}
		f.w.t.Fatal(err)
	}
	return string(out)
}

// worker starts `rooda fleet worker` with args; its log goes to the
// returned buffer's file.
func (f *testFleet) worker(name string, args ...string) *exec.Cmd {
	f.w.t.Helper()
	return f.workerWith(name, nil, args...)
}

// workerWith starts a worker as worker does, with env added to its
// environment.
func (f *testFleet) workerWith(name string, env []string, args ...string) *exec.Cmd {
	f.w.t.Helper()
	cmd := exec.Command(binary(f.w.t), append([]string{"fleet", "worker", "--server", f.url}, args...)...)
	log, err := os.Create(filepath.Join(f.state, name+".log"))
	if err != nil {
		f.w.t.Fatal(err)
	}
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = f.w.dir, append(f.w.env, env...), log, log
	if err := cmd.Start(); err != nil {
		f.w.t.Fatal(err)
	}
	f.w.t.Cleanup(func() { stop(cmd); log.Close() })
	return cmd
}

func (f *testFleet) states() []fleetState {
	f.w.t.Helper()
	var states []fleetState
	if err := json.Unmarshal([]byte(f.fleet("status", "--json")), &states); err != nil {
		f.w.t.Fatal(err)
	}
	return states
}

// waitEnded waits until the fleet's n runs have all ended, and returns
// their states.
func (f *testFleet) waitEnded(n int) []fleetState {
	f.w.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		states := f.states()
		ended := 0
		for _, st := range states {
			if st.Phase == "ended" {
				ended++
			}
		}
		if len(states) == n && ended == n {
			return states
		}
		if time.Now().After(deadline) {
			f.w.t.Fatalf("%d of %d runs ended within %s: %+v\nworkers' logs:\n%s", ended, n, hangGuard, states, f.workerLogs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (f *testFleet) workerLogs() string {
	logs, _ := filepath.Glob(filepath.Join(f.state, "*.log"))
	var all strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		fmt.Fprintf(&all, "== %s\n%s", filepath.Base(l), data)
	}
	return all.String()
}

// TestFleetWorksEachQueuedRunOnce: three workers, each a real rooda-fleet
// process (one of them with three slots), on a real NATS server that
// `rooda fleet serve` runs, work 12 queued runs of the fake agent (11 of
// a procedure, one of a script) to their end: each run's agent runs
// once, in a workspace of its own, and each run ends success at its
// first attempt.
func TestFleetWorksEachQueuedRunOnce(t *testing.T) {
	t.Parallel()
	times := filepath.Join(t.TempDir(), "times")
	w := newWorkspace(t, step{"output": successSignal + "\n", "delay": "100ms", "times": times})
	// The last run is a script's: the fleet runs a procedure and a
	// script alike, as rooda run and rooda script run do.
	w.write("loop.star", "iterate(compose('p', act = ['builtin:fragments/act/emit_signal.md']), max_iterations = 1)\n")
	f := newFleet(t, w)
	const runs = 12
	for i := range runs - 1 {
		f.fleet("add", "--name", fmt.Sprintf("run-%02d", i), "build", "-n", "1", "--ai-cmd", w.aiCmd())
	}
	f.fleet("add", "--name", "run-11", "loop.star", "--ai-cmd", w.aiCmd())
	const lease = 2 * time.Second
	for i := range 3 {
		// The first works three runs at a time, the others one.
		slots := map[bool]string{true: "3", false: "1"}[i == 0]
		f.worker(fmt.Sprintf("worker-%d", i), "--lease", lease.String(), "--slots", slots)
	}
	f.waitEnded(runs)
	// A run ended but not acknowledged would be given again once its
	// lease lapsed: wait past it before counting.
	time.Sleep(lease + time.Second)
	states := f.waitEnded(runs)
	byWorker := map[string]int{}
	workspaces := map[string]string{}
	for _, st := range states {
		if st.Status != "success" || st.ExitCode != 0 || st.Attempt != 1 || st.Workspace == "" {
			t.Errorf("%s: %+v, want success at attempt 1\n%s", st.Run.Name, st, f.workerLogs())
		}
		byWorker[st.Worker]++
		workspaces[st.Workspace] = st.Run.Name
	}
	t.Logf("runs by worker: %v", byWorker)
	if len(workspaces) != runs {
		t.Errorf("%d workspaces for %d runs", len(workspaces), runs)
	}
	// Each agent notes its working directory as it exits: one line per
	// run, in that run's workspace.
	agents := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(readText(t, times)), "\n") {
		fields := strings.Fields(line)
		agents[fields[len(fields)-1]]++
	}
	for ws, name := range workspaces {
		if agents[ws] != 1 {
			t.Errorf("%s: its agent ran %d times in %s, want once", name, agents[ws], ws)
		}
	}
	if len(agents) != runs {
		t.Errorf("agents ran in %d directories, want the %d runs' workspaces: %v", len(agents), runs, agents)
	}
	branches, err := exec.Command("git", "-C", w.dir, "branch", "--list", "rooda/fleet/*").Output()
	if err != nil || strings.Count(string(branches), "rooda/fleet/run-") != runs {
		t.Errorf("the runs' branches: %v\n%s", err, branches)
	}
}

// TestRoodaInitialisesNoNATS: rooda itself links neither the NATS server
// nor its client, whose initialisation every start would pay for
// (docs/design.md, "The fleet"); rooda-fleet, which `rooda fleet` execs,
// links both.
func TestRoodaInitialisesNoNATS(t *testing.T) {
	dir := fleetBinaries(t)
	for program, want := range map[string]bool{"rooda": false, "rooda-fleet": true} {
		cmd := exec.Command(filepath.Join(dir, program), "--help")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		trace, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s --help: %v\n%s", program, err, trace)
		}
		for _, pkg := range []string{"github.com/nats-io/nats-server/v2/server", "github.com/nats-io/nats%2ego"} {
			if got := strings.Contains(string(trace), "init "+pkg+" @"); got != want {
				t.Errorf("%s initialises %s: %v, want %v", program, pkg, got, want)
			}
		}
		if !want && strings.Contains(string(trace), "init github.com/nats-io/") {
			t.Errorf("%s initialises packages of NATS:\n%s", program, trace)
		}
	}
}

// TestFleetHelp: `rooda fleet --help` and each fleet command's help are
// rooda-fleet's, kept as golden files so that a change shows in review.
func TestFleetHelp(t *testing.T) {
	fleetBinaries(t)
	for _, sub := range []string{"", "serve", "add", "worker", "status", "budget"} {
		args := []string{"fleet", "--help"}
		name := "help_fleet"
		if sub != "" {
			args = []string{"fleet", sub, "--help"}
			name += "_" + sub
		}
		stdout, stderr, code := exe(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("rooda %v: exit %d, stderr %q", args, code, stderr)
		}
		golden.Check(t, name, stdout)
	}
}

// TestFleetResumesTheRunOfAWorkerKilled: a worker killed outright (kill
// -9, a real process) in the middle of a run's second iteration stops
// renewing its lease; once the lease lapses another worker takes the run
// and resumes it from its record in the same workspace: the first
// iteration, and the commit its agent made, are not made again; only the
// iteration in flight runs again, and the run ends success.
func TestFleetResumesTheRunOfAWorkerKilled(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	starts := filepath.Join(w.dir, "starts")
	script, err := json.Marshal(map[string]any{"record": w.dir, "starts": starts, "steps": []step{
		{"output": "working", "write": "first.txt", "shell": "git add first.txt && git -c user.name=t -c user.email=t@example.org commit -qm iteration-1"},
		{"output": "still working", "delay": "60s", "again": step{"output": successSignal + "\n"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.write("script.json", string(script))
	f := newFleet(t, w)
	f.fleet("add", "--name", "resumed", "build", "-n", "3", "--ai-cmd", w.aiCmd())
	killed := f.worker("worker-a", "--lease", "2s")
	waitForLine(t, starts, "script.json 2")
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.Wait()
	killedAt := time.Now()
	taker := f.worker("worker-b", "--lease", "2s")
	st := f.waitEnded(1)[0]
	t.Logf("ended %s after the kill\n%s", time.Since(killedAt).Round(time.Millisecond), f.workerLogs())
	if st.Status != "success" || st.Attempt != 2 || !strings.HasSuffix(st.Worker, fmt.Sprintf(":%d", taker.Process.Pid)) {
		t.Errorf("the run after the kill: %+v, want success at attempt 2 by worker-b (pid %d)\n%s", st, taker.Process.Pid, f.workerLogs())
	}
	if !strings.Contains(f.workerLogs(), "resumed: resuming record ") {
		t.Errorf("worker-b did not resume the record:\n%s", f.workerLogs())
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(readText(t, starts)), "\n") {
		counts[line]++
	}
	if counts["script.json 1"] != 1 || counts["script.json 2"] != 2 || len(counts) != 2 {
		t.Errorf("agents started, by iteration: %v; want iteration 1 once, the one in flight (2) twice", counts)
	}
	log, err := exec.Command("git", "-C", w.dir, "log", "--format=%s", "rooda/fleet/resumed").Output()
	if err != nil || strings.Count(string(log), "iteration-1\n") != 1 {
		t.Errorf("the run's branch: %v\n%s", err, log)
	}
}

// waitForLine waits until the file at path holds line.
func waitForLine(t *testing.T, path, line string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(path)
		for _, l := range strings.Split(string(data), "\n") {
			if l == line {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never held %q", path, line)
}

// newLongRun is a fleet with one run queued as name: its first iteration
// quick, its second a minute long the first time and a success when it
// runs again; its agents' starts are counted in the file starts.
func newLongRun(t *testing.T, name string) (*testFleet, string) {
	w := newWorkspace(t)
	starts := filepath.Join(w.dir, "starts")
	script, err := json.Marshal(map[string]any{"record": w.dir, "starts": starts, "steps": []step{
		{"output": "working"},
		{"output": "still working", "delay": "60s", "again": step{"output": successSignal + "\n"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.write("script.json", string(script))
	f := newFleet(t, w)
	f.fleet("add", "--name", name, "build", "-n", "3", "--ai-cmd", w.aiCmd())
	return f, starts
}

// TestFleetWorkerPausedPastItsLeaseStopsItsRun: a worker stopped
// (SIGSTOP) past its lease loses its run; the worker that takes it finds
// the run's rooda still going in the workspace and gives the run back
// rather than start a second one there; the paused worker, continued
// (SIGCONT), learns at its next renewal that the run is another's and
// stops it; the run is then resumed from its record and ends success,
// its first iteration run once.
func TestFleetWorkerPausedPastItsLeaseStopsItsRun(t *testing.T) {
	t.Parallel()
	f, starts := newLongRun(t, "paused")
	paused := f.worker("worker-a", "--lease", "2s")
	waitForLine(t, starts, "script.json 2")
	if err := paused.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	f.worker("worker-b", "--lease", "2s")
	f.waitForWorkerLog("paused: record ", "is still going here; given back for later")
	if err := paused.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	f.waitForWorkerLog("paused: lease lost, run stopped: ", "the run's state changed since it was read")
	st := f.waitEnded(1)[0]
	t.Logf("%s", f.workerLogs())
	if st.Status != "success" || st.Attempt < 3 {
		t.Errorf("the run: %+v, want success after three takes at least\n%s", st, f.workerLogs())
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(readText(t, starts)), "\n") {
		counts[line]++
	}
	if counts["script.json 1"] != 1 || counts["script.json 2"] != 2 {
		t.Errorf("agents started, by iteration: %v; want iteration 1 once, 2 twice (the paused worker's, then the resume's)\n%s", counts, f.workerLogs())
	}
}

// waitForWorkerLog waits until a worker's log holds a line with both
// texts.
func (f *testFleet) waitForWorkerLog(text, and string) {
	f.w.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(f.workerLogs(), "\n") {
			if strings.Contains(line, text) && strings.Contains(line, and) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.w.t.Fatalf("no worker said %q … %q:\n%s", text, and, f.workerLogs())
}

// TestFleetWorkerOutlivesItsServersRestart: the server stopped and
// started again on its store, a worker that was waiting for runs goes
// on: it works a run queued after the restart, and the run queued
// before it is still there.
func TestFleetWorkerOutlivesItsServersRestart(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	f.fleet("add", "--name", "before", "build", "-n", "1", "--ai-cmd", w.aiCmd())
	f.worker("worker", "--lease", "2s")
	f.waitEnded(1)
	stop(f.server)
	f.serve(strings.TrimPrefix(f.url, "nats://"))
	f.fleet("add", "--name", "after", "build", "-n", "1", "--ai-cmd", w.aiCmd())
	for _, st := range f.waitEnded(2) {
		if st.Status != "success" || st.Attempt != 1 {
			t.Errorf("%s: %+v, want success at attempt 1\n%s", st.Run.Name, st, f.workerLogs())
		}
	}
}

// TestFleetWithoutItsProgramSaysHowToInstallIt: a rooda installed
// without rooda-fleet beside it says, for a fleet command, what is
// missing and how to install it.
func TestFleetWithoutItsProgramSaysHowToInstallIt(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(t.TempDir(), "rooda")
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "fleet", "status")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("rooda fleet status without rooda-fleet: %v\n%s", err, out)
	}
	want := "Error: rooda fleet runs rooda-fleet, which is not beside rooda (" + filepath.Join(filepath.Dir(alone), "rooda-fleet") + "): install it with rooda (go install ./cmd/... installs both)\n"
	if string(out) != want {
		t.Errorf("rooda fleet status without rooda-fleet said:\n%s\nwant:\n%s", out, want)
	}
}

// TestFleetAddsTheRunsOfATasksFile: `rooda fleet add -f tasks.yaml`
// queues each run of the file with its arguments; added again, the file
// queues nothing and names each run the fleet has already.
func TestFleetAddsTheRunsOfATasksFile(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	w.write("tasks.yaml", "runs:\n  - name: first\n    run: build\n    args: [-n, \"1\", --ai-cmd, "+w.aiCmd()+"]\n  - name: second\n    run: nightly.star\n    args: [--dry-run]\n")
	f := newFleet(t, w)
	if out := f.fleet("add", "-f", "tasks.yaml"); out != "first\nsecond\n" {
		t.Errorf("fleet add -f printed %q, want the two names", out)
	}
	argv := map[string]string{}
	for _, st := range f.states() {
		argv[st.Run.Name] = strings.Join(st.Run.Argv, " ")
	}
	want := map[string]string{"first": "run build -n 1 --ai-cmd " + w.aiCmd(), "second": "script run nightly.star --dry-run"}
	if !reflect.DeepEqual(argv, want) {
		t.Errorf("the runs queued: %q, want %q", argv, want)
	}
	cmd := exec.Command(binary(t), "fleet", "add", "-f", "tasks.yaml", "--server", f.url)
	cmd.Dir, cmd.Env = w.dir, w.env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already in the fleet: first") || !strings.Contains(string(out), "already in the fleet: second") {
		t.Errorf("the file added again: %v\n%s", err, out)
	}
}

// TestFleetWorkerStoppedGivesItsRunBack: a worker stopped with SIGTERM
// in the middle of a run interrupts it and gives it back to the queue,
// not ended; the next worker resumes it from its record.
func TestFleetWorkerStoppedGivesItsRunBack(t *testing.T) {
	t.Parallel()
	f, starts := newLongRun(t, "handed-on")
	stopped := f.worker("worker-a", "--lease", "2s")
	waitForLine(t, starts, "script.json 2")
	stop(stopped)
	if st := f.states()[0]; st.Phase != "queued" || st.Attempt != 1 {
		t.Fatalf("the run of the worker stopped: %+v, want queued again after one attempt\n%s", st, f.workerLogs())
	}
	f.worker("worker-b", "--lease", "2s")
	st := f.waitEnded(1)[0]
	if st.Status != "success" || st.Attempt != 2 {
		t.Errorf("the run: %+v, want success at attempt 2\n%s", st, f.workerLogs())
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(readText(t, starts)), "\n") {
		counts[line]++
	}
	if counts["script.json 1"] != 1 || counts["script.json 2"] != 2 {
		t.Errorf("agents started, by iteration: %v; want iteration 1 once, 2 twice\n%s", counts, f.workerLogs())
	}
}

// TestFleetCompletionRunsNothing: a completion request (TAB) after a
// fleet command is answered, never run: it queues no run and starts no
// worker, even after a "--", where urfave/cli stops completing.
func TestFleetCompletionRunsNothing(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	if out := f.fleet("--generate-bash-completion"); out != "serve\nadd\nworker\nstatus\nbudget\n" {
		t.Errorf("rooda fleet <TAB> = %q, want the fleet's commands", out)
	}
	for _, args := range [][]string{
		{"add", "build", "-n", "1", "--generate-bash-completion"},
		{"add", "--", "build", "--generate-bash-completion"},
		{"worker", "--generate-bash-completion"},
		{"worker", "--", "--generate-bash-completion"},
	} {
		f.fleet(args...) // a worker started would not end: killed at hangGuard, it fails the test
	}
	if states := f.states(); len(states) != 0 {
		t.Errorf("completion requests queued %+v", states)
	}
}

// TestFleetStatusFollowsARun: while a run goes on, the fleet's status
// says how many of its iterations ended, as its worker read them from
// its record at a renewal of the lease; at its end, all of them.
func TestFleetStatusFollowsARun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working"}, step{"output": "working", "delay": "3s"}, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	f.fleet("add", "--name", "followed", "build", "-n", "3", "--ai-cmd", w.aiCmd())
	f.worker("worker", "--lease", "1s")
	deadline := time.Now().Add(hangGuard)
	for {
		st := f.states()[0]
		if st.Phase == "running" && st.Iterations == 1 {
			break // iteration 1 ended, iteration 2 (3 s) goes on
		}
		if st.Phase == "ended" || time.Now().After(deadline) {
			t.Fatalf("the status never said, while the run went on, that its first iteration ended: %+v\n%s", st, f.workerLogs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st := f.waitEnded(1)[0]; st.Status != "success" || st.Iterations != 3 {
		t.Errorf("the run's end: %+v, want success after 3 iterations", st)
	}
}

// TestFleetRunsWhereItWasAdded: a run added from a directory of the
// checkout runs in the same directory of its workspace; added from a
// directory outside any git checkout, it is refused, saying why.
func TestFleetRunsWhereItWasAdded(t *testing.T) {
	t.Parallel()
	times := filepath.Join(t.TempDir(), "times")
	w := newWorkspace(t, step{"output": successSignal + "\n", "times": times})
	must(t, os.MkdirAll(filepath.Join(w.dir, "sub"), 0o755))
	w.write("sub/README", "a directory of the checkout\n")
	f := newFleet(t, w)
	add := func(dir string) (string, error) {
		cmd := exec.Command(binary(t), "fleet", "add", "--name", "in-sub", "build", "-n", "1", "--ai-cmd", w.aiCmd())
		cmd.Dir, cmd.Env = dir, append(w.env, "ROODA_FLEET_SERVER="+f.url)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	outside := t.TempDir()
	if out, err := add(outside); err == nil || !strings.Contains(out, outside+" is not a git checkout") {
		t.Errorf("added from outside a checkout: %v\n%s", err, out)
	}
	if out, err := add(filepath.Join(w.dir, "sub")); err != nil {
		t.Fatalf("added from sub: %v\n%s", err, out)
	}
	f.worker("worker", "--lease", "2s")
	st := f.waitEnded(1)[0]
	fields := strings.Fields(readText(t, times))
	if want := filepath.Join(st.Workspace, "sub"); len(fields) == 0 || fields[len(fields)-1] != want {
		t.Errorf("the agent ran in %v, want %s", fields, want)
	}
}

// TestFleetAfterRoodasOwnFlags: rooda's own flags before "fleet" (-q,
// --log-level LEVEL) leave the fleet command's flags and arguments to it.
func TestFleetAfterRoodasOwnFlags(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	cmd := exec.Command(binary(t), "-q", "--log-level", "debug", "fleet", "add", "--name", "flagged", "build", "-n", "1", "--ai-cmd", w.aiCmd())
	cmd.Dir, cmd.Env = w.dir, append(w.env, "ROODA_FLEET_SERVER="+f.url)
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "flagged\n" {
		t.Fatalf("rooda -q --log-level debug fleet add --name flagged …: %v\n%s", err, out)
	}
	states := f.states()
	if len(states) != 1 || strings.Join(states[0].Run.Argv, " ") != "run build -n 1 --ai-cmd "+w.aiCmd() {
		t.Errorf("the run queued: %+v", states)
	}
}

// TestFleetRunGetsNoAccessToTheFleet: the rooda a worker runs, and so its
// agent, gets none of the worker's ROODA_FLEET_ variables (the server's
// URL with its token, credentials): an agent made to run anything cannot
// queue runs every worker would run, nor read the fleet's records.
func TestFleetRunGetsNoAccessToTheFleet(t *testing.T) {
	t.Parallel()
	seen := filepath.Join(t.TempDir(), "fleet-env")
	w := newWorkspace(t, step{"shell": "env | grep ^ROODA_FLEET_ > " + seen + "; true", "output": successSignal + "\n"})
	f := newFleet(t, w)
	f.fleet("add", "--name", "env", "build", "-n", "1", "--ai-cmd", w.aiCmd())
	worker := exec.Command(binary(t), "fleet", "worker", "--lease", "2s")
	worker.Dir = w.dir
	worker.Env = append(w.env, "ROODA_FLEET_SERVER="+f.url, "ROODA_FLEET_TOKEN=secret")
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(worker) })
	if st := f.waitEnded(1)[0]; st.Status != "success" {
		t.Fatalf("the run ended %s", st.Status)
	}
	if got := readText(t, seen); got != "" {
		t.Errorf("the agent saw the fleet's variables:\n%s", got)
	}
}

// TestOneProcedureRunsTheSameThroughTheFleet: a YAML procedure and a
// script, each unchanged, give their agent the same prompt, byte for
// byte, whether rooda run or rooda script run runs it here or the fleet
// takes it from the queue and a worker runs it in a workspace of its own.
func TestOneProcedureRunsTheSameThroughTheFleet(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	w.write("loop.star", "iterate(compose('p', act = ['builtin:fragments/act/emit_signal.md']), max_iterations = 1)\n")
	f := newFleet(t, w)
	f.worker("worker", "--lease", "5s")
	for i, local := range [][]string{{"run", "build", "-n", "1"}, {"script", "run", "loop.star"}} {
		queued := local[len(local)-1:]
		if local[0] == "run" {
			queued = local[1:]
		}
		w.rooda(append(local, "--ai-cmd", w.aiCmd())...).expect(t, 0)
		here := readText(t, filepath.Join(w.dir, "prompt-1.txt"))
		if !strings.Contains(here, "<promise>") {
			t.Fatalf("rooda %s's prompt: %q", local[0], here)
		}
		must(t, os.Remove(filepath.Join(w.dir, "prompt-1.txt")))
		f.fleet(append([]string{"add", "--name", fmt.Sprintf("same-%d", i)}, append(queued, "--ai-cmd", w.aiCmd())...)...)
		for _, st := range f.waitEnded(i + 1) {
			if st.Status != "success" {
				t.Fatalf("%s through the fleet: %+v\n%s", st.Run.Name, st, f.workerLogs())
			}
		}
		if there := readText(t, filepath.Join(w.dir, "prompt-1.txt")); there != here {
			t.Errorf("%v: the prompt through the fleet differs from rooda %s's:\n%s\n--- here:\n%s", queued, local[0], there, here)
		}
	}
}
