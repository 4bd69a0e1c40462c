// Package sandbox confines an agent's processes with Landlock, the
// kernel's unprivileged sandbox: what they may write (the workspace, a
// temporary directory of the iteration's own, the state directories of
// the agent's CLI, what the user adds) and, where the kernel offers it,
// whom they may signal (their own tree: not rooda, not a sibling loop's
// agent).
//
// Landlock and the capabilities are a thread's, and a fork hands the
// forking thread's to the child: where they are all the sandbox asks
// (sandbox: off, which scopes signals alone), rooda applies them to a
// thread of its own that starts the agent (process.Command's Confine),
// and nothing else starts. A mount or network namespace needs code
// between fork and exec, which Go cannot run: there the restriction is
// applied by a trampoline, which restricts itself and execs the agent in
// the same process: rooda-sandbox (cmd/rooda-sandbox, the package confine alone),
// when it is installed beside rooda, else rooda started again in a
// hidden mode (Arg). Landlock domains are inherited: everything the
// agent starts is confined too. This package is rooda's side: what the
// Spec holds, the probes, the proxy of sandbox_hosts.
package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"

	"rooda/host/process"
	"rooda/host/programs"
	"rooda/host/sandbox/confine"
)

// Arg is the hidden first argument of the trampoline: "rooda __sandbox
// -- AGENT ARGS…", its Spec in the environment (confine.SpecVar).
const Arg = confine.Arg

// SignalsABI is the first Landlock ABI that scopes signals.
const SignalsABI = confine.SignalsABI

// NetABI is the first Landlock ABI that confines TCP connections.
const NetABI = confine.NetABI

// Modes of the sandbox setting.
const (
	Off        = confine.Off
	Workspace  = confine.Workspace
	BestEffort = confine.BestEffort
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

// trampoline is the executable that serves as the trampoline:
// rooda-sandbox beside rooda, or rooda's own, once Serve found them; ""
// in a program that cannot (a test binary), whose agents run as they
// are. refused is why a rooda-sandbox found beside rooda is not used.
var (
	trampoline string
	refused    error
	warnOnce   sync.Once
)

// Program is the trampoline's own program, looked for beside rooda's
// executable: it starts in a fraction of rooda's time.
const Program = "rooda-sandbox"

// Serve makes this program the trampoline of the agents it starts: run
// as one (Arg first), it confines itself and execs the agent, never
// returning; else it notes the trampoline for Command: rooda-sandbox
// beside its executable when that is safe to run (programs.Beside), else
// itself.
// rooda's main calls it first.
func Serve() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		Main(os.Args[2:])
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	trampoline = self
	// Only one no one else may change: a program planted beside rooda
	// would run every agent unconfined.
	if beside, err := programs.Beside(self, Program); err == nil {
		trampoline = beside
	} else if !errors.Is(err, fs.ErrNotExist) {
		refused = err
	}
	// rooda itself after the trampoline: a rooda-sandbox older than
	// rooda knows no guard.
	process.UseGuard([]string{trampoline, Arg, process.GuardArg}, []string{self, Arg, process.GuardArg})
}

// Command is how argv starts confined by spec. Where spec asks only what
// a thread can apply to itself (confine.Threaded: no namespace to make),
// argv as it is, started from a thread that thread confines first
// (process.Command's Confine): no second program starts. Else argv
// wrapped in the trampoline, with what to add to its environment. argv
// as it is, and neither, where this program is no trampoline (Serve), or
// where there is nothing to apply: the mode is off and the kernel cannot
// scope signals.
func Command(spec Spec, argv []string) (wrapped []string, env []string, thread func() error, err error) {
	if trampoline == "" || spec.Mode == Off && ABI() < SignalsABI {
		return argv, nil, nil, nil
	}
	applied, _, err := appliedOf(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	// A rooda-sandbox refused is said whether this agent needs one or
	// not: a file planted beside rooda is the user's to know of.
	if refused != nil {
		warnOnce.Do(func() {
			fmt.Fprintf(os.Stderr, "WARN: Sandbox: %s not used: %v; an agent that needs a trampoline starts through rooda itself, a few ms slower\n", Program, refused)
		})
	}
	if confine.Threaded(applied) {
		return argv, nil, func() error { return confine.ConfineThread(applied) }, nil
	}
	wrapped, e, err := Wrap(trampoline, spec, argv)
	return wrapped, []string{e}, nil, err
}

// Wrap is the command line and the environment that run argv under
// spec through the trampoline self (rooda-sandbox or rooda). The
// environment holds what the trampoline applies (confine.Spec), no
// more: a trampoline older than rooda refuses a field it does not know
// rather than confine the agent less than asked.
func Wrap(self string, spec Spec, argv []string) (wrapped []string, env string, err error) {
	_, data, err := appliedOf(spec)
	if err != nil {
		return nil, "", err
	}
	return slices.Concat([]string{self, Arg, "--"}, argv), confine.SpecVar + "=" + string(data), nil
}

// appliedOf is what of spec is applied, and its JSON: the fields of
// confine.Spec, which share their names with Spec's.
func appliedOf(spec Spec) (confine.Spec, []byte, error) {
	var applied confine.Spec
	data, err := json.Marshal(spec)
	if err != nil {
		return applied, nil, err
	}
	if err := json.Unmarshal(data, &applied); err != nil {
		return applied, nil, err
	}
	data, err = json.Marshal(applied)
	return applied, data, err
}

// Main is the trampoline (confine.Main), args those after Arg: it reads
// its Spec, restricts itself, and execs the agent, never returning but
// on failure. With process.GuardArg first, it is the guard of the agents
// started from a confined thread (process.GuardMain).
func Main(args []string) {
	if len(args) > 0 && args[0] == process.GuardArg {
		process.GuardMain(args[1:])
	}
	confine.Main(args)
}

// NotStarted is why the agent could not start, when what the trampoline
// printed and its exit code say it could not; nil when it started.
func NotStarted(exitCode int, output []byte) error {
	// The output may be megabytes: it is looked into only when it begins
	// as the trampoline's message does, and only its first line is kept.
	if exitCode != confine.NotStartedCode || !bytes.HasPrefix(output, []byte(confine.NotStartedPrefix)) {
		return nil
	}
	first, _, _ := bytes.Cut(output[len(confine.NotStartedPrefix):], []byte("\n"))
	return errors.New(string(first))
}
