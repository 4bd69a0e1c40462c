// Package confine is the sandbox's side that runs in the agent's
// process, between rooda's fork and the agent's exec: it reads the Spec
// rooda wrote, makes the mounts that hide rooda's records and guard git,
// hands the network namespace's listeners over, drops root's
// capabilities, restricts itself with Landlock, and execs the agent.
//
// Go cannot run code between fork and exec, so this runs as a program of
// its own: cmd/rooda-sandbox, which links this package and little else
// (its start is most of the trampoline's cost, and a Go program's start
// is mostly the initialisation of the packages it links), or, where that
// is not installed, rooda itself started again in a hidden mode. Its
// imports stay light for that reason: no net/http, no rooda package but
// host/files. Building the Spec, the proxy and the probes are rooda's
// side, in host/sandbox.
package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Arg is the hidden first argument of the trampoline as rooda runs it:
// "TRAMPOLINE __sandbox -- AGENT ARGS…", its Spec in the environment
// (SpecVar). rooda-sandbox takes it too, so that either program is run
// the same way.
const Arg = "__sandbox"

// SpecVar carries the Spec to the trampoline, which takes it out of the
// agent's environment before exec.
const SpecVar = "ROODA_SANDBOX_SPEC"

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

// Spec is what the trampoline applies: the part of host/sandbox's Spec
// (whose JSON it reads; the rest is for the record) that it acts on,
// under the same names. host/sandbox's tests check that the two agree.
type Spec struct {
	Mode       string   `json:"mode"`
	Write      []string `json:"write,omitempty"`
	Ports      []int    `json:"ports,omitempty"`
	Hide       []string `json:"hide,omitempty"`
	Empty      string   `json:"empty,omitempty"`
	ReadOnly   []string `json:"read_only,omitempty"`
	Pinned     []string `json:"pinned,omitempty"`
	Branch     *Branch  `json:"branch,omitempty"`
	Outside    uint64   `json:"outside_mount_namespace,omitempty"`
	Net        *Net     `json:"net,omitempty"`
	OutsideNet uint64   `json:"outside_net_namespace,omitempty"`
}

// Branch is a worktree agent's own branch, the only ref it moves (as
// host/sandbox's Branch, whose JSON it is).
type Branch struct {
	Ref       string `json:"ref"`
	Head      string `json:"head"`
	CommonDir string `json:"common_dir"`
	Private   string `json:"private,omitempty"`
}

// Overs are what the trampoline mounts for b: the repository's path and
// the private one put over it, the objects' first (an overlay, the
// private one its upper layer).
func (b *Branch) Overs() [][2]string {
	dir := filepath.Dir(filepath.FromSlash(b.Ref))
	return [][2]string{
		{filepath.Join(b.CommonDir, "objects"), filepath.Join(b.Private, "objects")},
		{filepath.Join(b.CommonDir, dir), filepath.Join(b.Private, "refs")},
		{filepath.Join(b.CommonDir, "logs", dir), filepath.Join(b.Private, "logs")},
	}
}

// Net is what the trampoline needs of host/sandbox's Net: the
// descriptor it inherits to hand the proxy its listeners, and the
// loopback entries listened on inside too.
type Net struct {
	Handoff  int      `json:"handoff_fd"`
	Loopback []string `json:"loopback,omitempty"`
}

// ProxyTarget names, among the listeners handed over, the one the proxy
// serves as itself (HTTPS_PROXY); each other is named by the loopback
// host:port whose connections it tunnels there.
const ProxyTarget = "-"

// ProbeArg and ProbeNetArg are the trampoline's hidden arguments (after
// Arg) that try a way of hiding on a directory, "--probe DIR
// OUTSIDE_MOUNT_NAMESPACE", and a network namespace, "--probe-net".
const (
	ProbeArg    = "--probe"
	ProbeNetArg = "--probe-net"
)

// NotStartedPrefix begins what the trampoline prints when the agent
// cannot start, and NotStartedCode is its exit code then, a shell's for
// a command it cannot find or run.
const (
	NotStartedPrefix = "rooda sandbox: cannot start "
	NotStartedCode   = 127
)

// Main is the trampoline, args those after Arg: it reads its Spec,
// restricts itself, and execs the agent, never returning.
func Main(args []string) {
	if len(args) == 3 && args[0] == ProbeArg {
		outside, _ := strconv.ParseUint(args[2], 10, 64)
		probeMain(args[1], outside)
	}
	if len(args) == 1 && args[0] == ProbeNetArg {
		probeNetMain()
	}
	if len(args) < 2 || args[0] != "--" {
		fail(errors.New("usage: rooda " + Arg + " -- COMMAND [ARG…]"))
	}
	spec, err := readSpec(os.Getenv(SpecVar))
	if err != nil {
		fail(fmt.Errorf("%s: %w", SpecVar, err))
	}
	os.Unsetenv(SpecVar)
	lockThread()
	if err := apply(spec); err != nil {
		fail(err)
	}
	var path string
	path, err = lookPath(args[1])
	if err == nil {
		err = syscall.Exec(path, args[1:], os.Environ())
	}
	// The agent did not start: said so that rooda tells it from an agent
	// that failed (host/sandbox's NotStarted).
	fmt.Fprintf(os.Stderr, "%s%s: %v\n", NotStartedPrefix, args[1], err)
	os.Exit(NotStartedCode)
}

// Threaded reports whether spec can be applied to a thread of rooda's
// own that then starts the agent (ConfineThread), which inherits it at
// its fork: Landlock and the capabilities are a thread's, and so is a
// mount namespace the thread unshares, where rooda holds CAP_SYS_ADMIN
// (root). Another user's mounts need a user namespace, which no thread
// of a process with threads can enter, and a network namespace hands
// its listeners over from a process of its own: both take the
// trampoline.
func Threaded(spec Spec) bool {
	if spec.Net != nil {
		return false
	}
	return !mounts(spec) || mayMount()
}

// mounts reports whether spec needs mounts: rooda's records hidden,
// git's settings covered.
func mounts(spec Spec) bool {
	return len(spec.Hide)+len(spec.ReadOnly)+len(spec.Pinned) > 0 || spec.Branch != nil
}

// ConfineThread applies spec, which Threaded accepts, to the calling
// thread, in a mount namespace of its own where spec needs mounts. The
// caller locks that thread to its goroutine for good (Go ends such a
// thread with its goroutine), for no other goroutine to run confined.
func ConfineThread(spec Spec) error {
	if !Threaded(spec) {
		return errors.New("the sandbox's rules need the trampoline")
	}
	if mounts(spec) {
		if err := unshareMounts(); err != nil {
			return fmt.Errorf("a mount namespace of its own: %w", err)
		}
	}
	return apply(&spec)
}

// readSpec reads the Spec rooda wrote. A field this trampoline does not
// know is a rule it cannot apply (a rooda-sandbox older than the rooda
// beside it): refused, for the agent never to run less confined than
// asked.
func readSpec(data string) (*Spec, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	var spec Spec
	if err := dec.Decode(&spec); err != nil {
		return nil, err
	}
	return &spec, nil
}

// apply does to this process what spec asks, in order: git's guard and
// the hiding in its mount namespace, the network namespace's listeners,
// the capabilities dropped, Landlock last (after it, nothing can be
// mounted).
func apply(spec *Spec) error {
	guarded := len(spec.ReadOnly)+len(spec.Pinned) > 0 || spec.Branch != nil
	if guarded {
		if err := guardGit(*spec); err != nil {
			return err
		}
	}
	if len(spec.Hide) > 0 {
		if err := hide(spec.Hide, spec.Write, spec.Empty, spec.Outside); err != nil {
			return err
		}
	} else if guarded {
		if err := settle(); err != nil {
			return err
		}
	}
	if spec.Net != nil {
		if err := enterNet(spec); err != nil {
			return err
		}
	}
	if spec.Mode != Off {
		if err := dropCapabilities(); err != nil {
			return fmt.Errorf("dropping root's capabilities: %w", err)
		}
	}
	return Restrict(*spec)
}

// fail says why the trampoline cannot run the agent, as a start that
// failed: an agent never runs less confined than asked.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "%sthe agent: %v\n", NotStartedPrefix, err)
	os.Exit(NotStartedCode)
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

// ProxyEnv is what tells the agent's programs to use the proxy at addr
// (host:port inside its namespace): the variables curl, Go, Python,
// Rust's reqwest, Bun and the CLIs read, in both cases, and NO_PROXY
// emptied, so that nothing the user's environment lists goes around it
// (there is no around: it would fail).
func ProxyEnv(addr string) []string {
	url := "http://" + addr
	var env []string
	for _, name := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"} {
		env = append(env, name+"="+url, strings.ToLower(name)+"="+url)
	}
	// Node 22.21 and 24 read the variables above only when told to.
	return append(env, "NO_PROXY=", "no_proxy=", "NODE_USE_ENV_PROXY=1")
}
