package builtins

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/session"
)

// exitBuiltin is exit(code, reason): the script ends itself, with an exit
// code and a reason of its own, whatever its loops' statuses say.
var exitBuiltin = Builtin{
	Name: "exit",
	Params: []Param{
		{"code", "int", "0", "the run's exit code, 0 to 125"},
		{"reason", "str", "None", "why, for the log, run.json (reason) and rooda runs show"},
	},
	Returns: "None",
	Doc: "Ends the script here, the run with code, whatever its loops' statuses were: the log says \"The script exited with code N: reason\" (an error unless 0), " +
		"and the record's status is \"exited\", with the code and the reason. A worktree holding work no branch has is kept, as when a run is cut short. " +
		"In a dry run the run exits with code too, after the dry run's end (its loops, its placeholders, and where the script exited). " +
		"Without exit(), a script that runs to its end exits as its last loop ended, a parallel() as the worst of its loops (docs/scripts.md).",
	Example: `def main():
    r = iterate(
        compose("p", act = [fragment(content = "Work.")]),
        max_iterations = 1,
        agent = fake_agent(outputs = ["working"]),
    )
    if r.status != "success":
        exit(3, "the work is not done: " + r.status)

assert.fails(main, "exit\\(3\\): the work is not done: max-iters")`,
	fn: exitFn,
}

func exitFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	code := 0
	var reason starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "code?", &code, "reason?", &reason); err != nil {
		return nil, err
	}
	if code < 0 || code > 125 {
		// 126 and above mean, to a shell, a command that could not run
		// or a signal: 130 is rooda's interrupt.
		return nil, fmt.Errorf("exit: code must be 0 to 125, got %d", code)
	}
	text := ""
	if reason != starlark.None {
		s, ok := starlark.AsString(reason)
		if !ok {
			return nil, fmt.Errorf("exit: reason must be a string, got %s", reason.Type())
		}
		text = s
	}
	return nil, &host.Exit{Code: code, Reason: text, Pos: where(caller(thread))}
}

// nowBuiltin is now(): the time, for a budget of the script's own.
var nowBuiltin = Builtin{
	Name:    "now",
	Returns: "float",
	Doc: "The time, in seconds since 1970-01-01 UTC, from the run's clock: the wall clock in a run, " +
		"and in a script test a clock that starts at 2026-01-01 and moves only when the test calls advance(), as the loops' durations do.",
	Example: `# now_test.star — run with: rooda script test now_test.star
def test_now():
    start = now()
    advance("90s")  # the test's clock moves only so
    assert.eq(now() - start, 90.0)`,
	fn: nowFn,
}

func nowFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	t, err := session.FromThread(thread).ScriptNow(thread, where(caller(thread)))
	if err != nil {
		return nil, err
	}
	return starlark.Float(float64(t.UnixNano()) / float64(time.Second)), nil
}

// advanceBuiltin is a script test's advance(d): its clock moves.
var advanceBuiltin = Builtin{
	Name:    "advance",
	Params:  []Param{{"d", "int | float | str", "", "how far: seconds (90, 1.5) or a duration (\"10m\")"}},
	Returns: "None",
	Doc: "In script tests, moves the clock forward: now(), the loops' durations and max_duration see it. " +
		"Called in on_iteration, the loop's time goes on by that much each iteration.",
	Example: `# advance_test.star — run with: rooda script test advance_test.star
def slow(it):
    advance("20m")

def test_an_iteration_of_20_minutes():
    r = iterate(
        compose("p", act = [fragment(content = "Work.")]),
        agent = fake_agent(outputs = ["working"]),
        max_iterations = 10,
        max_duration = "1h",
        on_iteration = slow,
    )
    assert.eq((r.status, r.iterations), ("budget", 3))`,
	fn: advanceFn,
}

func advanceFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	return starlark.None, session.FromThread(thread).Advance(d.d)
}
