package builtins_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"rooda/host/config"
	"rooda/host/prompt"
	"rooda/internal/hosttest"
)

// eval runs main.star in a workspace of files and returns what it printed
// (with the loop's log at level error), or its error.
func eval(t *testing.T, files map[string]string, flags ...config.Flag) (string, error) {
	t.Helper()
	f := hosttest.New(t, files)
	// The loop's progress would mix with what the script prints.
	f.Flags = append(flags, config.Flag{Name: "log-level", Value: "error"})
	err := f.Run("main.star")
	return f.Stderr.String(), err
}

func mustEval(t *testing.T, files map[string]string, flags ...config.Flag) string {
	t.Helper()
	out, err := eval(t, files, flags...)
	if err != nil {
		t.Fatalf("%v\nprinted:\n%s", err, out)
	}
	return out
}

// TestRenderIsThePrompt: compose().render() is byte for byte the prompt
// host/prompt composes for the same fragments and iteration.
func TestRenderIsThePrompt(t *testing.T) {
	out := mustEval(t, map[string]string{
		"main.star": `p = compose("review",
    observe = ["prompts/look.md"],
    orient = [fragment(content = "Judge {{.what}}.", params = {"what": "the diff"})],
    act = ["builtin:fragments/act/emit_signal.md"])
print(p.render(iteration = 2, max_iterations = 5, context = ["focus on auth"]))`,
		"prompts/look.md": "Look at the diff.\n",
	})
	var want strings.Builder
	proc := prompt.Procedure{Name: "review"}
	proc.Phases[prompt.Observe] = []prompt.Fragment{{Content: "Look at the diff.\n"}}
	proc.Phases[prompt.Orient] = []prompt.Fragment{{Content: "Judge the diff."}}
	proc.Phases[prompt.Act] = []prompt.Fragment{{Path: "builtin:fragments/act/emit_signal.md"}}
	text, err := prompt.Compose(proc, prompt.Iteration{Number: 2, Max: 5}, []string{"focus on auth"})
	if err != nil {
		t.Fatal(err)
	}
	want.WriteString(text + "\n")
	if out != want.String() {
		t.Errorf("render:\n%s\nwant:\n%s", out, want.String())
	}
}

// TestFragmentPathsAreTheCallersOwn: a fragment path is taken from the
// directory of the .star file that calls fragment(), wherever the script
// runs from.
func TestFragmentPathsAreTheCallersOwn(t *testing.T) {
	out := mustEval(t, map[string]string{
		"main.star":          "load('lib/procs.star', 'p')\nprint(p.render())",
		"lib/procs.star":     "p = compose('p', act = [fragment('prompts/act.md'), 'prompts/act.md'])\n",
		"lib/prompts/act.md": "From the library's folder.\n",
	})
	if strings.Count(out, "From the library's folder.") != 2 {
		t.Errorf("prompt:\n%s", out)
	}
}

func TestFragmentErrors(t *testing.T) {
	for src, want := range map[string]string{
		"fragment()":                                                  "must specify either content or path",
		"fragment('a.md', content = 'x')":                             "cannot specify both content and path",
		"fragment('builtin:fragments/act/nope.md')":                   "embedded fragment not found: builtin:fragments/act/nope.md",
		"fragment(content = '{{.x', params = {})":                     "template parse error",
		"fragment(content = 'x', params = {1: 2})":                    "template parameter names must be strings",
		"compose('p', act = [3])":                                     "act[0]: want a fragment or a path, got int",
		"compose('', act = [])":                                       "name must not be empty",
		"procedure('biuld')":                                          "unknown procedure 'biuld'",
		"agent('claud')":                                              `unknown alias "claud" (did you mean "claude"?)`,
		"agent()":                                                     "give an alias or a command line",
		"agent(cmd = 'x \"y')":                                        "is not a valid command line",
		"iterate(compose('p'), timeout = 'soon')":                     `want a duration like "30s"`,
		"iterate(compose('p'), max_iterations = 0)":                   "max_iterations must be >= 1, got 0",
		"iterate(compose('p'), max_output_buffer = 10)":               "max_output_buffer must be >= 1024 bytes, got 10",
		"iterate(compose('p'), max_iterations = 2, unlimited = True)": "cannot be used together",
	} {
		_, err := eval(t, map[string]string{"main.star": src + "\n"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %q", src, err, want)
		}
	}
}

// TestProcedureFromConfig: procedure() gives the configured fragments,
// with_phases() replaces only the phases it is given.
func TestProcedureFromConfig(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `
p = procedure("build")
q = p.with_phases(act = [fragment(content = "Only this.")])
text = q.render()
print(p.name, "builtin:" not in text, "# Read AGENTS.md" in text, "Only this." in text, "# Commit Changes" in text)
`})
	if out != "build True True True False\n" {
		t.Errorf("printed %q", out)
	}
}

func TestAgentAliasOrCommand(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `print(agent("claude"), agent("my-agent --fast"), agent(cmd = "claude"))`})
	if out != `agent("claude") agent(cmd="my-agent --fast") agent(cmd="claude")`+"\n" {
		t.Errorf("printed %q", out)
	}
}

// TestIterateAndCallbacks runs a real loop with a shell agent: context
// from a function, on_iteration's verdicts, the frozen result.
func TestIterateAndCallbacks(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `
seen = []
def ctx(n):
    return "context for %d" % n
def judge(it):
    seen.append((it.number, it.signal, it.exit_code, it.outcome))
    if it.number == 2:
        return "abort"
p = compose("p", act = [fragment(content = "Act.")])
r = iterate(p, agent = "sh -c 'grep -o \"context for [0-9]\"; echo \"<promise>FAILURE</promise>\"; exit 3'",
            max_iterations = 5, failure_threshold = 5, timeout = 30, context = ctx, on_iteration = judge)
print(r.status, r.iterations, r.last.number, r.last.output.startswith("context for 2"), r.stats.count)
print(seen)
`})
	want := "aborted 2 2 True 2\n[(1, \"FAILURE\", 3, \"failure\"), (2, \"FAILURE\", 3, \"failure\")]\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("printed:\n%s\nwant suffix:\n%s", out, want)
	}
}

// TestCallbackErrorStopsTheScript: an error in on_iteration is the
// script's, with the callback's line in the backtrace.
func TestCallbackErrorStopsTheScript(t *testing.T) {
	_, err := eval(t, map[string]string{"main.star": `
def judge(it):
    return 1 // 0
iterate(compose("p", act = [fragment(content = "x")]), agent = "sh -c 'cat >/dev/null'", on_iteration = judge)
print("after")
`})
	if err == nil || !strings.Contains(err.Error(), "main.star:3:14: in judge") || !strings.Contains(err.Error(), "floored division by zero") {
		t.Errorf("error: %v", err)
	}
	_, err = eval(t, map[string]string{"main.star": `
iterate(compose("p", act = [fragment(content = "x")]), agent = "sh -c 'cat >/dev/null'", on_iteration = lambda it: "maybe")
`})
	if err == nil || !strings.Contains(err.Error(), `on_iteration (lambda) returned "maybe", which is no verdict: return None to keep the host's verdict, "continue"`) {
		t.Errorf("error: %v", err)
	}
}

// TestCommandLineBeatsScript: --max-iterations and --ai-cmd override what
// iterate() says.
func TestCommandLineBeatsScript(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `
r = iterate(compose("p", act = [fragment(content = "x")]), agent = "no-such-agent", max_iterations = 9)
print(r.status, r.iterations)
`}, config.Flag{Name: "max-iterations", Value: "2"}, config.Flag{Name: "ai-cmd", Value: "sh -c 'cat >/dev/null'"})
	if !strings.HasSuffix(out, "max-iters 2\n") {
		t.Errorf("printed:\n%s", out)
	}
}

func TestRunAndGetenv(t *testing.T) {
	t.Setenv("ROODA_TEST_VALUE", "set")
	out := mustEval(t, map[string]string{"main.star": `
r = run("sh -c 'echo out; echo err >&2; exit 4'")
s = run("sleep 30", timeout = 0.2)
print(r.exit_code, r.output, s.timed_out, r.dry_run)
print(getenv("ROODA_TEST_VALUE"), getenv("ROODA_TEST_UNSET"), getenv("ROODA_TEST_UNSET", "dflt"))
`})
	if out != "4 out\nerr\n True False\nset None dflt\n" {
		t.Errorf("printed %q", out)
	}
}

// TestTerminationLibrary exercises @rooda//termination.star.
func TestTerminationLibrary(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `
load("@rooda//termination.star", "min_iterations", "stop_on", "abort_on", "combine")
p = compose("p", act = [fragment(content = "x")])
says = "sh -c 'cat >/dev/null; echo \"<promise>SUCCESS</promise> DONE\"'"
got = [
    iterate(p, agent = says, on_iteration = min_iterations(3)).iterations,
    iterate(p, agent = "sh -c 'cat >/dev/null; echo DONE'", on_iteration = stop_on("DONE")).status,
    iterate(p, agent = "sh -c 'cat >/dev/null; echo BAD'", on_iteration = abort_on("BAD")).status,
    iterate(p, agent = says, on_iteration = combine(min_iterations(2), stop_on("DONE"))).iterations,
]
print(got)
`})
	if !strings.HasSuffix(out, "[3, \"success\", \"aborted\", 2]\n") {
		t.Errorf("printed:\n%s", out)
	}
}

// TestIterationFacts: on_iteration sees the facts of each iteration:
// the failure count its outcome makes, a timeout, a truncated output.
func TestIterationFacts(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `
facts = []
def judge(it):
    facts.append((it.number, it.consecutive_failures, it.timed_out, it.truncated, it.exit_code != 0))
flood = "sh -c 'cat >/dev/null; head -c 5000 /dev/zero; exit 1'"
iterate(compose("p", act = [fragment(content = "x")]), agent = flood, max_iterations = 2, max_output_buffer = 1024, on_iteration = judge)
iterate(compose("p", act = [fragment(content = "x")]), agent = "sleep 30", max_iterations = 1, timeout = 1, on_iteration = judge)
print(facts)
`})
	if !strings.HasSuffix(out, "[(1, 1, False, True, True), (2, 2, False, True, True), (1, 1, True, False, True)]\n") {
		t.Errorf("printed:\n%s", out)
	}
}

// TestNoLoopInALoop: iterate() inside on_iteration is an error, so no
// loop escapes the run's budgets.
func TestNoLoopInALoop(t *testing.T) {
	_, err := eval(t, map[string]string{"main.star": `
p = compose("p", act = [fragment(content = "x")])
iterate(p, agent = "sh -c 'cat >/dev/null'", on_iteration = lambda it: iterate(p))
`})
	if err == nil || !strings.Contains(err.Error(), "iterate() cannot be called while a loop runs") {
		t.Errorf("error: %v", err)
	}
}

// TestEmptyContextIsNoContext: a context function whose command printed
// nothing gives no CONTEXT section, not an error.
func TestEmptyContextIsNoContext(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `
r = iterate(compose("p", act = [fragment(content = "x")]), agent = "sh -c 'grep -c CONTEXT; true'", max_iterations = 1,
            context = lambda n: ["", run("true").output])
print(r.status, r.last.output.strip())
`})
	if !strings.HasSuffix(out, "max-iters 0\n") {
		t.Errorf("printed:\n%s", out)
	}
}

// TestStdlibFragments: a fragment a @rooda// module names by a relative
// path comes from the embedded library, ../ included; one outside it is
// an error.
func TestStdlibFragments(t *testing.T) {
	f := hosttest.New(t, map[string]string{"main.star": "load('@rooda//sub/m.star', 'p')\nprint(p.render())\n"})
	f.Opts.Stdlib = fstest.MapFS{
		"sub/m.star":  {Data: []byte("p = compose('p', act = [fragment('../top.md'), 'here.md'])\n")},
		"top.md":      {Data: []byte("From the top.\n")},
		"sub/here.md": {Data: []byte("From here.\n")},
		"bad.star":    {Data: []byte("f = fragment('../../out.md')\n")},
	}
	if err := f.Run("main.star"); err != nil {
		t.Fatal(err)
	}
	if out := f.Stderr.String(); !strings.Contains(out, "From the top.\n\nFrom here.\n") {
		t.Errorf("prompt:\n%s", out)
	}
	f.Write(map[string]string{"bad.star": "load('@rooda//bad.star', 'f')\n"})
	if err := f.Run("bad.star"); err == nil || !strings.Contains(err.Error(), "leaves the library") {
		t.Errorf("error: %v", err)
	}
}

func TestJSONAndStruct(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `print(json.encode(struct(a = 1, b = [True, None])), json.decode('{"x": 2}')["x"], dry_run, args)`})
	if out != `{"a":1,"b":[true,null]} 2 False ()`+"\n" {
		t.Errorf("printed %q", out)
	}
}

// TestRenderNamesCustomPromises: render(promises=…) gives the prompt
// iterate(promises=…) gives the agent: the preamble names the custom
// words; without them it is the default preamble.
func TestRenderNamesCustomPromises(t *testing.T) {
	out := mustEval(t, map[string]string{"main.star": `p = compose("p", act = [fragment(content = "Work.")])
print(p.render(promises = {"COMPLETE": "success", "STUCK": "failure"}))
print("---")
print(p.render())`})
	custom, plain, _ := strings.Cut(out, "---\n")
	if !strings.Contains(custom, "output: <promise>COMPLETE</promise>\n") || !strings.Contains(custom, "output: <promise>STUCK</promise>\n") || strings.Contains(custom, "SUCCESS") {
		t.Errorf("render with promises:\n%s", custom)
	}
	if !strings.Contains(plain, "output: <promise>SUCCESS</promise>\n") {
		t.Errorf("render without:\n%s", plain)
	}
	if _, err := eval(t, map[string]string{"main.star": `compose("p", act = ["x.md"]).render(promises = {"DONE": "maybe"})`, "x.md": "x"}); err == nil || !strings.Contains(err.Error(), `render: promise word "DONE": its kind must be "success" or "failure", got "maybe"`) {
		t.Errorf("a bad kind: %v", err)
	}
}
