package host_test

import (
	"strings"
	"testing"

	"rooda/builtins"
	"rooda/host/config"
	"rooda/internal/golden"
)

// TestCheckCalls: what the static checks of builtin calls report, and
// what they leave alone because the source does not tell.
func TestCheckCalls(t *testing.T) {
	cfg := builtInConfig(t)
	for _, tc := range []struct{ call, want string }{
		{`iterate(p, max_iteration = 3)`, `iterate: unexpected keyword argument "max_iteration" (did you mean max_iterations?)`},
		{`iterate(p, zzz = 3)`, `iterate: unexpected keyword argument "zzz" (iterate takes procedure, max_iterations,`},
		{`iterate(p, 3)`, ``},
		{`iterate(p, 3, True, None, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39)`, `iterate: got 40 positional arguments, want at most`},
		{`iterate(p, timeout = [1])`, `iterate: timeout must be an int, a float or a str, got list`},
		{`iterate(p, timeout = 1.5, max_output_buffer = "10MB")`, ``},
		{`iterate(p, unlimited = "yes")`, `iterate: unlimited must be a bool, got string "yes"`},
		{`iterate(p, context = ("a", "b"))`, ``},
		{`iterate(p, context = lambda: [])`, `iterate: context is called as f(number) or f(number, previous), but the lambda takes no arguments`},
		{`iterate(p, context = lambda n, last: [])`, ``},
		{`iterate(p, context = lambda n, last, more: [])`, `iterate: context is called as f(number) or f(number, previous), but the lambda needs 3 arguments`},
		{`iterate(p, on_iteration = lambda it, more = 1: None)`, ``},
		{`iterate(p, on_iteration = lambda *args: None)`, ``},
		{`iterate(p, on_iteration = lambda it, *, strict: None)`, `iterate: on_iteration is called as f(it), but the lambda also needs strict by name`},
		{`iterate(p, on_iteration = helper(1))`, ``},
		{`iterate(p, on_iteration = kept)`, ``},
		{`iterate(p, on_iteration = none_of_it)`, `iterate: on_iteration is called as f(it), but def none_of_it takes no arguments`},
		{`iterate(p, *[1])`, ``},
		{`iterate(p, agent = lambda n, last: "claude")`, ``},
		{`iterate(p, agent = lambda n: "claude")`, ``},
		{`iterate(p, agent = none_of_it)`, `iterate: agent is called as f(number) or f(number, previous), but def none_of_it takes no arguments`},
		{`iterate(p, agent = lambda n, last, more: "claude")`, `iterate: agent is called as f(number) or f(number, previous), but the lambda needs 3 arguments`},
		{`iterate(p, promises = {"COMPLETE": "success"})`, ``},
		{`iterate(p, promises = ["COMPLETE"])`, `iterate: promises must be a dict, got list`},
		{`fragment(path = None, content = "x")`, ``},
		{`compose(None)`, `compose: name must be a str, got NoneType`},
		{`getenv("HOME", default = 3)`, ``},
		{`own(max_iteration = 3)`, ``},
		{`assert.eq(kept(1), None)`, ``},
		{`assert.true(None)`, ``},
		{`assert.contains(None, 1)`, `assert.contains: container must be a str, a list or a dict, got NoneType`},
		{`iterate(p, agent = "claude", timeout = "5m", idle_timeout = 90, max_output_buffer = "10MB")`, ``},
		{`iterate(p, agent = ["claude", ("codex", p), "my-cli --flag", agent("gemini")])`, ``},
		{`iterate(p, agent = [("cluade", p)])`, `iterate: unknown alias "cluade" (did you mean "claude"?); for a command, write agent(cmd="cluade")`},
		{`agent("kodex")`, `agent: unknown alias "kodex" (did you mean "codex"?)`},
		{`agent(cmd = "kodex")`, ``},
		{`procedure("build")`, ``},
		{`procedure("buidl")`, `procedure: unknown procedure "buidl" (did you mean build?); rooda list shows them`},
		{`iterate(p, timeout = "500ms")`, `iterate: timeout must be >= 1 second, got 500ms`},
		{`iterate(p, max_output_buffer = "10 megs")`, `iterate: max_output_buffer`},
		{`iterate(p, on_iteration = lambda it: "success" if it.number > 2 else None)`, ``},
		{`iterate(p, on_iteration = lambda it: "continue" if it.number > 2 else "Abort")`, `iterate: on_iteration (the lambda) returns "Abort", which is no verdict (did you mean "abort"?)`},
		{`iterate(p, on_iteration = judge)`, `iterate: on_iteration (def judge) returns "done", which is no verdict: the verdicts are None, "continue", "success", "failure", "abort" or "stop"`},
		{`iterate(p, on_iteration = combine(kept, judge))`, `(def judge) returns "done"`},
		{`iterate(p, on_iteration = kept)`, ``},
		{`flags(n = 3, agent = "claude", dry = False, model = None, ratio = 0.5)`, ``},
		{`flags(n = [3])`, `flags: n must be a str, an int, a float, a bool or a None, got list`},
		{`flags(3)`, `flags: got 1 positional arguments, want at most 0`},
		{`assert.eq(1, 1, msg = 2)`, `assert.eq: msg must be a str, got int 2`},
		{`fake_agent(durations = "10m")`, `fake_agent: durations must be a list of int, float or str, got string "10m"`},
		{`fake_agent(durations = ["10m", 5, 1.5])`, ``},
		{`fake_agent(output = [])`, `fake_agent: unexpected keyword argument "output" (did you mean outputs?)`},
	} {
		src := "p = compose('x')\ndef helper(n):\n    return None\ndef kept(it):\n    def inner():\n        return 'not a verdict'\n    return 'continue' if inner() else None\ndef judge(it):\n    if it.number > 3:\n        return 'done'\n    return None\ndef combine(*fns):\n    return fns[0]\ndef none_of_it():\n    return None\ndef own(**kw):\n    return None\n" + tc.call + "\n"
		f := newFixture(t, map[string]string{"main_test.star": src})
		f.Opts.Signatures = builtins.Signatures(cfg)
		f.Opts.TestPredeclared = builtins.TestPredeclaredOnce()
		_, err := f.Runtime().Check("main_test.star")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.call, got, tc.want)
		}
	}
}

// builtInConfig is rooda's built-in configuration alone.
func builtInConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{WorkDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestCheckLiterals: the literal mistakes a run would catch only when it
// got there, after a paid iteration, are told by check, each where it
// is: an unknown alias, an unknown procedure, a duration that is none,
// a verdict that is none.
func TestCheckLiterals(t *testing.T) {
	src := `def judge(it):
    if it.output.count("LGTM") > 1:
        return "SUCCESS"
    return None

def nightly():
    build = procedure("buidl")
    return iterate(build, agent = "cluade", timeout = "5 minutes", on_iteration = judge)
`
	f := newFixture(t, map[string]string{"main.star": src})
	f.Opts.Signatures = builtins.Signatures(builtInConfig(t))
	_, err := f.Runtime().Check("main.star")
	if err == nil {
		t.Fatal("no problems found")
	}
	golden.Check(t, "check_literals", err.Error()+"\n")
}

// TestCheckParallelSharedState: a function parallel() runs that changes
// a global, or a variable of the function around it, is told by check
// where it does, before any agent runs; what it makes itself is its own.
func TestCheckParallelSharedState(t *testing.T) {
	src := `results = []
counts = {}

def task(name):
    r = iterate(compose(name), max_iterations = 1)
    results.append(r)
    counts[name] = r.iterations
    mine = []
    mine.append(r)
    return r

def fine(name):
    return [name]

def fan(names):
    done = []
    def one(n):
        done.append(n)
        return n
    return parallel([(one, n) for n in names])

parallel([(task, "a"), (task, "b"), fine])
`
	f := newFixture(t, map[string]string{"main.star": src})
	f.Opts.Signatures = builtins.Signatures(nil)
	_, err := f.Runtime().Check("main.star")
	if err == nil {
		t.Fatal("no problems found")
	}
	golden.Check(t, "check_parallel", err.Error()+"\n")
}
