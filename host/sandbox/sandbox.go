// Package sandbox confines an agent's processes with Landlock, the
// kernel's unprivileged sandbox: what they may write (the workspace, a
// temporary directory of the iteration's own, the state directories of
// the agent's CLI, what the user adds) and, where the kernel offers it,
// whom they may signal (their own tree: not rooda, not a sibling loop's
// agent).
//
// Go cannot run code between fork and exec, so the restriction is applied
// by a trampoline: rooda started again in a hidden mode (Arg), which
// restricts itself and execs the agent in the same process. Landlock
// domains are inherited: everything the agent starts is confined too.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Arg is the hidden first argument of the trampoline: "rooda __sandbox
// -- AGENT ARGS…", its Spec in the environment (specVar).
const Arg = "__sandbox"

// specVar carries the Spec to the trampoline, which takes it out of the
// agent's environment before exec.
const specVar = "ROODA_SANDBOX_SPEC"

// SignalsABI is the first Landlock ABI that scopes signals.
const SignalsABI = 6

// NetABI is the first Landlock ABI that confines TCP connections.
const NetABI = 4

// Modes of the sandbox setting.
const (
	Off        = "off"
	Workspace  = "workspace"
	BestEffort = "best-effort"
)

// Spec is what the trampoline applies.
type Spec struct {
	// Mode is Off (only signals are scoped), Workspace or BestEffort.
	Mode string `json:"mode"`
	// Write are the directories and files the agent may write; all
	// else it reads, as before, and cannot write.
	Write []string `json:"write,omitempty"`
	// Ports, when given, are the only TCP ports the agent may connect
	// to.
	Ports []int `json:"ports,omitempty"`
	// Hide are the directories the agent may neither read nor write:
	// rooda's records and the worktrees of runs (HideDirs), and the
	// files, sockets and directories sandbox_hide names. The process
	// must start in a namespace of its own for them (HideDirs' attr).
	Hide []string `json:"hide,omitempty"`
	// Empty is the empty file bound over each file of Hide (AgentDir's).
	Empty string `json:"empty,omitempty"`
	// ABI is the kernel's Landlock ABI, and NotHidden why what should
	// have been hidden is not: for the record, which keeps the Spec.
	ABI       int    `json:"abi"`
	NotHidden string `json:"not_hidden,omitempty"`
	// ReadOnly are the parts of the workspace's git directory that make
	// git run programs (config, hooks, …) and a worktree's .git file,
	// covered read-only; Pinned the .git directories bound onto
	// themselves, which cannot be renamed away; Branch a worktree
	// agent's own branch, the only ref it moves (gitguard.go). Each
	// needs the namespace too.
	ReadOnly []string `json:"read_only,omitempty"`
	Pinned   []string `json:"pinned,omitempty"`
	Branch   *Branch  `json:"branch,omitempty"`
	// NotCovered says why git's settings are not covered.
	NotCovered string `json:"not_covered,omitempty"`
	// Outside names rooda's own mount namespace, which the trampoline
	// must not be in to hide anything.
	Outside uint64 `json:"outside_mount_namespace,omitempty"`
	// Net, under sandbox_hosts, is the agent's way out of a network
	// namespace of its own (net_linux.go), and OutsideNet names rooda's.
	Net        *Net   `json:"net,omitempty"`
	OutsideNet uint64 `json:"outside_net_namespace,omitempty"`
}

// trampoline is the executable that serves as the trampoline: rooda's,
// once Serve found it can; "" in a program that cannot (a test binary),
// whose agents run as they are.
var trampoline string

// Serve makes this program the trampoline of the agents it starts: run
// as one (Arg first), it confines itself and execs the agent, never
// returning; else it notes its executable for Wrap. rooda's main calls it
// first.
func Serve() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		Main(os.Args[2:])
	}
	trampoline, _ = os.Executable()
}

// Command is argv confined by spec, with what to add to its environment;
// argv as it is where this program is no trampoline (Serve), or where
// there is nothing to apply: the mode is off and the kernel cannot scope
// signals.
func Command(spec Spec, argv []string) (wrapped []string, env []string, err error) {
	if trampoline == "" || spec.Mode == Off && ABI() < SignalsABI {
		return argv, nil, nil
	}
	wrapped, e, err := Wrap(trampoline, spec, argv)
	return wrapped, []string{e}, err
}

// Wrap is the command line and the environment that run argv under
// spec through the trampoline, self being rooda's executable.
func Wrap(self string, spec Spec, argv []string) (wrapped []string, env string, err error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, "", err
	}
	return slices.Concat([]string{self, Arg, "--"}, argv), specVar + "=" + string(data), nil
}

// Main is the trampoline: it reads its Spec, restricts itself, and execs
// the agent, never returning but on failure (its exit code 126, as a
// shell's for a command that cannot run).
func Main(args []string) {
	if len(args) == 3 && args[0] == probeArg {
		outside, _ := strconv.ParseUint(args[2], 10, 64)
		probeMain(args[1], outside)
	}
	netMain(args)
	if len(args) < 2 || args[0] != "--" {
		fail(errors.New("usage: rooda " + Arg + " -- COMMAND [ARG…]"))
	}
	var spec Spec
	if err := json.Unmarshal([]byte(os.Getenv(specVar)), &spec); err != nil {
		fail(fmt.Errorf("%s: %w", specVar, err))
	}
	os.Unsetenv(specVar)
	lockThread()
	guarded := len(spec.ReadOnly)+len(spec.Pinned) > 0 || spec.Branch != nil
	if guarded {
		if err := guardGit(spec); err != nil {
			fail(err)
		}
	}
	if len(spec.Hide) > 0 {
		if err := hide(spec.Hide, spec.Write, spec.Empty, spec.Outside); err != nil {
			fail(err)
		}
	} else if guarded {
		if err := settle(); err != nil {
			fail(err)
		}
	}
	if spec.Net != nil {
		if err := enterNet(&spec); err != nil {
			fail(err)
		}
	}
	if spec.Mode != Off {
		if err := dropCapabilities(); err != nil {
			fail(fmt.Errorf("dropping root's capabilities: %w", err))
		}
	}
	if err := Restrict(spec); err != nil {
		fail(err)
	}
	path, err := lookPath(args[1])
	if err == nil {
		err = syscall.Exec(path, args[1:], os.Environ())
	}
	// The agent did not start: said so that rooda tells it from an agent
	// that failed (NotStarted).
	fmt.Fprintf(os.Stderr, "%s%s: %v\n", notStarted, args[1], err)
	os.Exit(notStartedCode)
}

// notStarted begins what the trampoline prints when the agent cannot
// start, and notStartedCode is its exit code then, a shell's for a
// command it cannot find or run.
const (
	notStarted     = "rooda sandbox: cannot start "
	notStartedCode = 127
)

// NotStarted is why the agent could not start, when what the trampoline
// printed and its exit code say it could not; nil when it started.
func NotStarted(exitCode int, output []byte) error {
	first, _, _ := strings.Cut(string(output), "\n")
	if exitCode != notStartedCode || !strings.HasPrefix(first, notStarted) {
		return nil
	}
	return errors.New(strings.TrimPrefix(first, notStarted))
}

// fail says why the trampoline cannot run the agent, as a start that
// failed (NotStarted): an agent never runs less confined than asked.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "%sthe agent: %v\n", notStarted, err)
	os.Exit(notStartedCode)
}

// lookPath finds the agent's executable as exec.LookPath does, without
// its refusal of relative paths found through PATH.
func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range strings.Split(os.Getenv("PATH"), ":") {
		if dir == "" {
			dir = "."
		}
		path := dir + "/" + name
		if info, err := os.Stat(path); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s: executable file not found in $PATH", name)
}

// probeArg is the trampoline's hidden argument that tries a way of
// hiding on a directory: "rooda __sandbox --probe DIR".
const probeArg = "--probe"
