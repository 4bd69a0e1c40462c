package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/session"
	"rooda/host/worktree"
)

// worktreeValue is what worktree() returns: a git worktree of the run,
// frozen from the start, so that it may cross into parallel()'s threads.
type worktreeValue struct{ wt *worktree.Worktree }

var _ starlark.HasAttrs = worktreeValue{}

func (w worktreeValue) String() string {
	return fmt.Sprintf("worktree(%q, branch = %q)", w.wt.Name, w.wt.Branch)
}
func (w worktreeValue) Type() string          { return "worktree" }
func (w worktreeValue) Freeze()               {}
func (w worktreeValue) Truth() starlark.Bool  { return starlark.True }
func (w worktreeValue) Hash() (uint32, error) { return starlark.String(w.wt.Path).Hash() }

// Worktree is the host's worktree: session names a loop after it.
func (w worktreeValue) Worktree() *worktree.Worktree { return w.wt }

func (w worktreeValue) AttrNames() []string { return []string{"branch", "keep", "name", "path"} }

func (w worktreeValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(w.wt.Name), nil
	case "path":
		return starlark.String(w.wt.Path), nil
	case "branch":
		return starlark.String(w.wt.Branch), nil
	case "keep":
		return starlark.Bool(w.wt.Keep), nil
	}
	return nil, nil
}

var worktreeBuiltin = Builtin{
	Name: "worktree",
	Params: []Param{
		{"name", "str", "", "the worktree's name: letters, digits, '.', '_', '-'; unique in the run"},
		{"branch", "str", "None", "its branch; None is rooda/<run-id>/<name>"},
		{"base", "str", "\"HEAD\"", "the commit the branch starts from"},
		{"keep", "bool", "False", "keep the worktree and its branch when the run ends, or when it is killed"},
	},
	Returns: "worktree",
	Doc: "Makes a git worktree of the run under .rooda/worktrees/<run-id>/<name>, on a branch of its own, for iterate(worktree = …) and run(dir = …): .name, .path, .branch, .keep.\n\n" +
		"When the script runs to its end, the worktree and its branch are removed unless keep is True; what the script wants of it, it merges first (git_merge). A run cut short (Ctrl+C, an error, a budget) keeps, and names, a worktree holding work: uncommitted changes, or commits on no other branch. A kept one is named as the run ends, with how to remove it, and in rooda runs show.\n\n" +
		"A run killed before its end leaves its worktrees: the next script run removes those of runs that no longer run, but for those kept and those holding work not merged anywhere (uncommitted changes, commits on no other branch), which it names, and leaves to you. In a dry run nothing is made.",
	Example: `# in a git repository:
# wt = worktree("task-a")
# r = iterate(procedure("build"), worktree = wt)
assert.eq(type(worktree), "builtin_function_or_method")`,
	fn: worktreeFn,
}

func worktreeFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, branch string
	base := "HEAD"
	keep := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "branch??", &branch, "base?", &base, "keep?", &keep); err != nil {
		return nil, err
	}
	wt, err := session.FromThread(thread).Worktree(thread, name, branch, base, keep)
	if err != nil {
		return nil, err
	}
	return worktreeValue{wt}, nil
}

var parallelBuiltin = Builtin{
	Name: "parallel",
	Params: []Param{
		{"fns", "list", "", "the functions to run: each a function of no arguments, or a tuple (function, arg, …) that calls it with those arguments (a worktree, say)"},
		{"max_parallel", "int", "0", "how many run at once; 0 is all of them, 1 one after another"},
	},
	Returns: "list",
	Doc: "Runs each function on a Starlark thread of its own (its own step budget), at most max_parallel at once, and returns their results, frozen, in order. " +
		"An iterate() inside runs its loop beside the others': each its own agent process group, output and loop in the run's one record, named on each line of the log when several run at once (by its worktree's name, else its procedure's; a loop whose name another function's loop took first adds its own function's number, [build#2]); the run's budgets and its interrupt cover them all. " +
		"Before they start, every value the functions can reach (their arguments, closures and module's globals) is frozen: a function that changes a shared list fails (\"cannot append to frozen list\"); collect from the results instead. " +
		"An error in one function does not stop the others: parallel() waits for all, then fails with the errors of those that failed.",
	Example: `def square(n):
    return n * n

assert.eq(parallel([(square, 2), (square, 3), lambda: "x"], max_parallel = 2), [4, 9, "x"])`,
	fn: parallelFn,
}

func parallelFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fns *starlark.List
	max := 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fns", &fns, "max_parallel?", &max); err != nil {
		return nil, err
	}
	if max < 0 {
		return nil, fmt.Errorf("parallel: max_parallel must be 0 (all at once) or more, got %d", max)
	}
	calls := make([]session.Call, fns.Len())
	for i := range fns.Len() {
		call, err := callOf(fns.Index(i))
		if err == nil {
			err = host.FromThread(thread).SharedChanges(call.Fn)
		}
		if err != nil {
			return nil, fmt.Errorf("parallel: fns[%d]: %w", i, err)
		}
		calls[i] = call
	}
	results, err := session.FromThread(thread).Parallel(thread, calls, max)
	if err != nil {
		return nil, err
	}
	list := starlark.NewList(results)
	list.Freeze()
	return list, nil
}

// callOf is one item of parallel()'s list: a function, or a tuple of a
// function and its arguments.
func callOf(v starlark.Value) (session.Call, error) {
	if fn, ok := v.(starlark.Callable); ok {
		return session.Call{Fn: fn}, nil
	}
	if t, ok := v.(starlark.Tuple); ok && len(t) > 0 {
		if fn, ok := t[0].(starlark.Callable); ok {
			return session.Call{Fn: fn, Args: t[1:]}, nil
		}
	}
	return session.Call{}, fmt.Errorf("want a function or a tuple (function, arg, …), got %s", v.Type())
}

var gitMergeBuiltin = Builtin{
	Name: "git_merge",
	Params: []Param{
		{"wt", "worktree", "", "the worktree whose branch to merge"},
		{"commit_leftovers", "bool", "False", "whether to commit first, on the worktree's branch, what the agent left uncommitted there (author and committer rooda, message \"rooda: work the agent left uncommitted\"); when False that work is not merged: .dirty is True and the run keeps the worktree"},
	},
	Returns: "merge_result",
	Doc: "Merges a worktree's branch into the branch the main checkout has out, with plain git merge --no-edit (never an AI merge), and returns .merged and .conflicts (the files in conflict), .output (git's words), .commits (how many commits it brought in: 0 for \"Already up to date\", which the log calls nothing to merge) and .dirty (whether the worktree still holds uncommitted changes or untracked files).\n\n" +
		"A merge takes commits only: what the agent left uncommitted is not merged unless commit_leftovers = True, and a worktree that holds such work is never removed as the run ends — the run keeps it and says where, with git -C PATH status to look at it.\n\n" +
		"On a conflict the merge is aborted (git merge --abort) and the checkout is as it was. A merge that cannot start (uncommitted changes in the way) is an error; one interrupted (Ctrl+C) is undone, the checkout left as it was. Either way the worktree and its branch, not merged, are kept. In a dry run nothing is merged: .dry_run is True.",
	Example: `# r = git_merge(wt)
# if not r.merged: print("conflict in", r.conflicts)
assert.eq(type(git_merge), "builtin_function_or_method")`,
	fn: gitMergeFn,
}

func gitMergeFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var wt worktreeValue
	var leftovers bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "wt", &wt, "commit_leftovers?", &leftovers); err != nil {
		return nil, err
	}
	res, ran, err := session.FromThread(thread).Merge(thread, wt.wt, leftovers)
	if err != nil {
		return nil, err
	}
	return mergeValue(res, ran), nil
}

func mergeValue(res worktree.MergeResult, ran bool) starlark.Value {
	conflicts := make([]starlark.Value, len(res.Conflicts))
	for i, f := range res.Conflicts {
		conflicts[i] = starlark.String(f)
	}
	return frozen("merge_result", starlark.StringDict{
		"merged":    starlark.Bool(res.Merged),
		"conflicts": starlark.NewList(conflicts),
		"output":    starlark.String(res.Output),
		"commits":   starlark.MakeInt(res.Commits),
		"dirty":     starlark.Bool(res.Dirty),
		"dry_run":   starlark.Bool(!ran),
	})
}

// worktreeArg is a worktree given where a directory may be, as iterate()
// and run() take it: nil for None.
func worktreeArg(v starlark.Value, what string) (*worktree.Worktree, error) {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return nil, nil
	case worktreeValue:
		return v.wt, nil
	}
	return nil, fmt.Errorf("%s must be a worktree(…), got %s", what, v.Type())
}
