// Command fakeagent stands in for an AI CLI in rooda's end-to-end tests
// and benchmarks. It reads the prompt from stdin like the real ones, then
// follows a script: what to print, how long to take, how to exit, whether
// to crash, to flood its output, to leave a child holding the pipe, or to
// ignore SIGTERM.
//
//	fakeagent SCRIPT.json
//
// The script is {"record": DIR, "steps": [STEP, …]}. Iteration N (from
// ROODA_ITERATION) follows step N; the last step repeats. A STEP is
//
//	{"output": "…",       printed to stdout first
//	 "stderr": "…",       printed to stderr
//	 "echo": true,        the prompt printed back, as some CLIs do
//	 "bytes": 1048576,    that many bytes of "x" printed after output
//	 "chunk": 8192,       … in write(2) calls of that many bytes, as an
//	                      agent printing line by line does (default
//	                      64 KiB, the fastest a writer goes)
//	 "child": "30s",      a background child that holds stdout that long
//	 "escape": "30s",     a child in a session of its own (setsid) that
//	                      holds stdout that long: it left the group
//	 "escapes": 13,       that many such children (default 1)
//	 "daemon": "30s",     a daemon (double fork, new session, stdio on
//	                      /dev/null) that lives that long
//	 "clean_env": true,   the escaped child and the daemon start with an
//	                      empty environment
//	 "ignore_term": true, SIGTERM ignored (the child's too)
//	 "tick": "300ms",     a line "tick N" printed that often …
//	 "tick_for": "2s",    … for that long, before the pause
//	 "tick_line": "…",    the line printed at each tick instead, as a
//	                      CLI retrying or reconnecting prints its own
//	 "delay": "2s",       a pause after printing
//	 "after": "…",        printed after the pause
//	 "crash": "SIGSEGV",  the agent kills itself with that signal
//	 "signal_parent": "SIGINT", sent to rooda just before exiting
//	 "write": "name",     a file it writes in the working directory
//	 "files": 250,        that many files it writes there besides
//	                      (file-00001.txt …)
//	 "shell": "git clean -fdx", a command sh -c runs in the working
//	                      directory after the writing, as an agent's tool
//	                      call does; its output goes to stderr, and its
//	                      failure ends the agent with exit 99
//	 "times": "FILE",     a line appended to FILE as it exits: when it
//	                      started and ends (Unix nanoseconds) and its
//	                      working directory, to tell overlapping runs
//	 "exit": 3,           the exit code
//	 "again": {…}}        the step of a second run of the same iteration
//	                      (rooda ran it again after a usage limit); needs
//	                      "record", where the runs are counted
//
// In "output", {{unix+N}} is the Unix time N seconds from now: a reset
// time a few seconds ahead; {{now}} is the time now in RFC 3339, as a CLI
// stamps its events (gemini's reset is its event's time plus the delay
// its message names).
//
// With "record", each run writes DIR/prompt-N.txt (the exact bytes it
// read), DIR/env-N.txt (its ROODA_*, TRACE* and telemetry variables) and appends its pid, and
// its child's, to DIR/pids, so tests can check that none survives. With
// "starts": FILE, each run appends "SCRIPT N" (the script's file name and
// the iteration) to FILE, so tests can count how often each iteration's
// agent started.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type script struct {
	Record string `json:"record"`
	// Starts, when set, is a file each run appends "SCRIPT N" to.
	Starts string `json:"starts"`
	Steps  []step `json:"steps"`
}

type step struct {
	Output       string `json:"output"`
	Stderr       string `json:"stderr"`
	Echo         bool   `json:"echo"`
	Bytes        int64  `json:"bytes"`
	Chunk        int    `json:"chunk"`
	Child        string `json:"child"`
	Escape       string `json:"escape"`
	Escapes      int    `json:"escapes"`
	Daemon       string `json:"daemon"`
	CleanEnv     bool   `json:"clean_env"`
	IgnoreTerm   bool   `json:"ignore_term"`
	Tick         string `json:"tick"`
	TickFor      string `json:"tick_for"`
	TickLine     string `json:"tick_line"`
	Delay        string `json:"delay"`
	After        string `json:"after"`
	Crash        string `json:"crash"`
	SignalParent string `json:"signal_parent"`
	Write        string `json:"write"`
	Files        int    `json:"files"`
	Shell        string `json:"shell"`
	Times        string `json:"times"`
	Exit         int    `json:"exit"`
	Again        *step  `json:"again"`
}

func main() {
	if d := os.Getenv("FAKEAGENT_CHILD"); d != "" {
		child(d)
		return
	}
	if d := os.Getenv("FAKEAGENT_DAEMON"); d != "" {
		daemonize(d, os.Getenv("FAKEAGENT_RECORD"))
		return
	}
	if len(os.Args) != 2 {
		fail("usage: fakeagent SCRIPT.json")
	}
	s := load(os.Args[1])
	n, _ := strconv.Atoi(os.Getenv("ROODA_ITERATION"))
	st := s.Steps[min(max(n, 1), len(s.Steps))-1]
	if st.IgnoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	prompt, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin: %v", err)
	}
	if s.Record != "" {
		record(s.Record, n, prompt)
		if st.Again != nil && runs(s.Record, n) > 1 {
			st = *st.Again
		}
	}
	// The start is told last: a test that waits for it and then kills
	// rooda (and so this agent) finds the record and the count of runs
	// written, which the next start reads.
	if s.Starts != "" {
		appendLine(s.Starts, filepath.Base(os.Args[len(os.Args)-1])+" "+strconv.Itoa(n))
	}
	st.Output = unixTimes.ReplaceAllStringFunc(st.Output, func(m string) string {
		secs, _ := strconv.Atoi(unixTimes.FindStringSubmatch(m)[1])
		return strconv.FormatInt(time.Now().Unix()+int64(secs), 10)
	})
	st.Output = strings.ReplaceAll(st.Output, "{{now}}", time.Now().UTC().Format(time.RFC3339Nano))
	act(st, s.Record, prompt)
}

// unixTimes are the {{unix+N}} of an output.
var unixTimes = regexp.MustCompile(`\{\{unix\+(\d+)\}\}`)

// runs counts the runs of iteration n, this one included, in dir.
func runs(dir string, n int) int {
	path := filepath.Join(dir, fmt.Sprintf("runs-%d", n))
	data, _ := os.ReadFile(path)
	count, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	count++
	write(path, []byte(strconv.Itoa(count)))
	return count
}

func act(st step, dir string, prompt []byte) {
	start := time.Now()
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	out.WriteString(st.Output)
	out.Flush()
	os.Stderr.WriteString(st.Stderr)
	if st.Echo {
		out.Write(prompt)
	}
	out.Flush()
	flood(os.Stdout, st.Bytes, st.Chunk)
	if st.Write != "" {
		write(st.Write, []byte("written by the fake agent\n"))
	}
	for i := 1; i <= st.Files; i++ {
		write(fmt.Sprintf("file-%05d.txt", i), []byte("written by the fake agent\n"))
	}
	if st.Shell != "" {
		shell(st.Shell)
	}
	if st.Child != "" {
		startChild(st, dir)
	}
	for i := 0; st.Escape != "" && i < max(st.Escapes, 1); i++ {
		escape(st, dir)
	}
	if st.Daemon != "" {
		startDaemon(st, dir)
	}
	tick(st.Tick, st.TickFor, st.TickLine)
	pause(st.Delay)
	os.Stdout.WriteString(st.After)
	if st.Crash != "" {
		crash(st.Crash)
	}
	if st.SignalParent != "" {
		syscall.Kill(os.Getppid(), lookup(st.SignalParent))
	}
	if st.Times != "" {
		appendTimes(st.Times, start)
	}
	os.Exit(st.Exit)
}

// shell runs command with sh -c where the agent runs, its output on the
// agent's stderr, so that it does not count as what the agent printed.
func shell(command string) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fail("shell %q: %v", command, err)
	}
}

// appendTimes appends to path when this run started, now, and where it
// ran, in one write, so that agents running at once do not mix lines.
func appendTimes(path string, start time.Time) {
	wd, _ := os.Getwd()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail("times: %v", err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%d %d %s\n", start.UnixNano(), time.Now().UnixNano(), wd)
}

// flood prints n bytes of "x" without holding them in memory, in writes
// of size bytes each (64 KiB when size is 0).
func flood(w io.Writer, n int64, size int) {
	if size <= 0 {
		size = 64 << 10
	}
	chunk := []byte(strings.Repeat("x", size))
	for n > 0 {
		k := min(n, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			os.Exit(141)
		}
		n -= k
	}
}

// startChild leaves a process behind in the agent's group that holds its
// stdout open, as an agent's background build or server would.
func startChild(st step, dir string) {
	cmd := exec.Command(executable())
	cmd.Env = append(os.Environ(), "FAKEAGENT_CHILD="+st.Child)
	if st.IgnoreTerm {
		cmd.Env = append(cmd.Env, "FAKEAGENT_IGNORE_TERM=1")
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fail("starting the child: %v", err)
	}
	appendPid(dir, cmd.Process.Pid)
}

// escape starts a child in a new session, as "setsid sleep 300 &" does:
// it is in no group of the agent's, but holds its stdout.
func escape(st step, dir string) {
	cmd := exec.Command(executable())
	cmd.Env = childEnv(st, "FAKEAGENT_CHILD="+st.Escape)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fail("starting the escaped child: %v", err)
	}
	appendPid(dir, cmd.Process.Pid)
}

// startDaemon starts the first half of a daemon's double fork, which
// waits for the second so that the daemon's pid is recorded before the
// agent goes on.
func startDaemon(st step, dir string) {
	cmd := exec.Command(executable())
	cmd.Env = childEnv(st, "FAKEAGENT_DAEMON="+st.Daemon, "FAKEAGENT_RECORD="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		fail("starting the daemon: %v", err)
	}
}

// daemonize is the middle process of a double fork: it starts the daemon
// in a session of its own, with its stdio on /dev/null, and exits, so
// the daemon is nobody's child.
func daemonize(d, dir string) {
	cmd := exec.Command(executable())
	cmd.Env = append(os.Environ(), "FAKEAGENT_CHILD="+d, "FAKEAGENT_DAEMON=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fail("starting the daemon: %v", err)
	}
	appendPid(dir, cmd.Process.Pid)
}

// childEnv is the environment of an escaped child: the agent's, or with
// clean_env none but what the fake agent itself needs.
func childEnv(st step, vars ...string) []string {
	if st.CleanEnv {
		return vars
	}
	return append(os.Environ(), vars...)
}

func executable() string {
	self, err := os.Executable()
	if err != nil {
		fail("%v", err)
	}
	return self
}

func child(d string) {
	if os.Getenv("FAKEAGENT_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	pause(d)
	fmt.Println("child done")
}

// tick prints a line every interval for span: an agent that works
// slowly but shows it.
func tick(interval, span, line string) {
	if interval == "" {
		return
	}
	end := time.Now().Add(duration(span))
	for n := 1; time.Now().Before(end); n++ {
		if line != "" {
			fmt.Println(line)
		} else {
			fmt.Printf("tick %d\n", n)
		}
		time.Sleep(duration(interval))
	}
}

func pause(d string) {
	if d == "" {
		return
	}
	time.Sleep(duration(d))
}

func duration(d string) time.Duration {
	dur, err := time.ParseDuration(d)
	if err != nil {
		fail("bad duration %q: %v", d, err)
	}
	return dur
}

var signals = map[string]syscall.Signal{"SIGSEGV": syscall.SIGSEGV, "SIGKILL": syscall.SIGKILL, "SIGABRT": syscall.SIGABRT, "SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT}

func lookup(name string) syscall.Signal {
	sig, ok := signals[name]
	if !ok {
		fail("unknown signal %q", name)
	}
	return sig
}

// crash ends the process with the signal's default action. The Go
// runtime turns a SIGSEGV or SIGABRT it receives into a panic and exit 2,
// so the process first becomes a shell, keeping its pid, that sends the
// signal to itself.
func crash(name string) {
	lookup(name)
	err := syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -" + strings.TrimPrefix(name, "SIG") + " $$; sleep 1"}, os.Environ())
	fail("cannot crash with %s: %v", name, err)
}

func load(path string) script {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	var s script
	if err := json.Unmarshal(data, &s); err != nil {
		fail("%s: %v", path, err)
	}
	if len(s.Steps) == 0 {
		s.Steps = []step{{}}
	}
	return s
}

// record keeps what rooda gave this run: the prompt bytes, the ROODA_*
// variables, the trace context (TRACEPARENT, TRACESTATE) and what turns
// the CLIs' own telemetry on (OTEL_*, CLAUDE_CODE_*, GEMINI_TELEMETRY_*).
func record(dir string, n int, prompt []byte) {
	write(filepath.Join(dir, fmt.Sprintf("prompt-%d.txt", n)), prompt)
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "ROODA_") || strings.HasPrefix(kv, "TRACE") || strings.HasPrefix(kv, "OTEL_") ||
			strings.HasPrefix(kv, "CLAUDE_CODE_") || strings.HasPrefix(kv, "GEMINI_TELEMETRY_") {
			env = append(env, kv)
		}
	}
	sort.Strings(env)
	write(filepath.Join(dir, fmt.Sprintf("env-%d.txt", n)), []byte(strings.Join(env, "\n")+"\n"))
	appendPid(dir, os.Getpid())
}

func pidsFile(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "pids")
}

func appendPid(dir string, pid int) {
	if dir == "" {
		return
	}
	appendLine(pidsFile(dir), strconv.Itoa(pid))
}

// appendLine appends line to the file at path, in one write.
func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail("%v", err)
	}
	f.WriteString(line + "\n")
	f.Close()
}

func write(path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakeagent: "+format+"\n", args...)
	os.Exit(99)
}
