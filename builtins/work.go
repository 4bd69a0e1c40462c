package builtins

import (
	"go.starlark.net/starlark"

	"rooda/host/session"
)

// The files of the work: relative to the working directory, where the
// agents and run() work, read when the script asks, so that a script can
// name what an earlier loop wrote (file(path, work = True) is the same
// for the CONTEXT section).

var readBuiltin = Builtin{
	Name:    "read",
	Params:  []Param{{"path", "str", "", "a file of the work, relative to the working directory"}},
	Returns: "str",
	Doc: "The content of a file of the work, read now: one an earlier loop wrote (PLAN.md), or a task list. A file that is not there is an error, which exists(path) lets a script avoid; in a dry run it gives \"\", a placeholder that the end of the dry run names, as the earlier loop that would write it did not run. " +
		"For the CONTEXT section, file(path, work = True) reads it before each prompt instead.",
	Example: `# read_test.star — run with: rooda script test read_test.star
def test_read():
    run("printf 'a\\nb\\n' > tasks.txt")
    assert.eq(read("tasks.txt").splitlines(), ["a", "b"])
    assert.fails(lambda: read("PLAN.md"), "PLAN.md is not there")`,
	fn: readFn,
}

func readFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	text, err := session.FromThread(thread).ReadWork(thread, path, where(caller(thread)))
	return starlark.String(text), err
}

var existsBuiltin = Builtin{
	Name:    "exists",
	Params:  []Param{{"path", "str", "", "a file or directory of the work, relative to the working directory"}},
	Returns: "bool",
	Doc:     "Whether a file or directory of the work is there now: context = lambda n: file(\"PLAN.md\", work = True) if exists(\"PLAN.md\") else \"No plan yet.\"",
	Example: `# exists_test.star — run with: rooda script test exists_test.star
def test_exists():
    assert.eq(exists("PLAN.md"), False)  # a test's working directory starts empty
    run("touch PLAN.md")
    assert.eq(exists("PLAN.md"), True)`,
	fn: existsFn,
}

func existsFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	ok, err := session.FromThread(thread).WorkExists(thread, path, where(caller(thread)))
	return starlark.Bool(ok), err
}
