"""A procedure's calls as a script makes them, written as Python against
rooda's stubs (`rooda script stub`): mypy --strict checks every call, so a
wrong signature in the stubs fails. The load() of a script is Python's
import here."""

from rooda import *
from rooda.termination import combine, min_iterations, stop_on, until_command


def task(wt: Worktree, text: str, tests: str) -> bool:
    """One task's loop in its worktree, then its tests there."""
    work = compose(wt.name, act=[fragment(content=text), "builtin:fragments/act/emit_signal.md"])
    loop = iterate(
        work,
        agent="claude",
        worktree=wt,
        max_iterations=5,
        timeout="30m",
        idle_timeout=600,
        on_iteration=combine(min_iterations(2), until_command(tests, timeout="10m"), stop_on("DONE")),
    )
    if loop.status != "success":
        return False
    run(["git", "add", "-A"], dir=wt)
    check = run(tests, dir=wt, timeout="10m")
    return check.exit_code == 0 and not check.timed_out and not check.dry_run


def enough(it: Iteration) -> str | tuple[str, str] | None:
    """A verdict of the script's own: a pair (verdict, reason), or None."""
    if it.number >= 3 and it.changed is False:
        return ("stop", "nothing changed")
    if it.signal == "SUCCESS" and it.cost is not None and it.cost > 1.0:
        return "abort"
    return None


def main() -> None:
    plan = compose(
        "plan",
        observe=[fragment(path="observe.md", params={"goal": read("GOAL.md")})],
        act=[fragment(content="Write PLAN.md.")],
    )
    prompt: str = plan.render(iteration=1, max_iterations=3, context=[file("notes.md")])
    r = iterate(
        plan,
        max_iterations=3,
        context=[file("PLAN.md", work=True), "inline text"],
        max_cost_usd=2.5,
        promises={"DONE": "success"},
        on_iteration=enough,
    )
    last: Iteration = r.last
    mean: float = r.stats.mean
    files: list[str] = last.files_changed
    reason: str | None = r.reason
    veto: str | None = last.reason
    done: bool = r.ok
    print(prompt, r.status, r.iterations, reason, veto, done, mean, last.outcome, last.usage, files, r.dry_run)
    if last.usage is not None:
        tokens: int = last.usage.total
        print(tokens)
    spent: float | None = r.cost
    if r.usage is not None:
        print(spent, r.usage.total)

    build = procedure("build").with_phases(act=[fragment(content="Build.")])
    iterate(build, agent=agent("claude", name="builder"), on_iteration=lambda it: None if it.signal else "continue")

    opts = flags(tests="go test ./...", max_parallel=2, dry=False)
    trees = [worktree(name, keep=False) for name in args]
    results = parallel([(task, wt, read("tasks/" + wt.name + ".md"), opts.tests) for wt in trees], max_parallel=2)
    for wt, passed in zip(trees, results):
        if passed:
            m = git_merge(wt)
            if not m.merged:
                conflicts: list[str] = m.conflicts
                print(", ".join(conflicts), m.output)
    if dry_run or not exists("PLAN.md"):
        exit(0, "nothing to do")
    # None where a parameter's default is None: the builtins take it.
    fragment(None, content="Work.", params=None)
    exit(0, None)
    started: float = now()
    home: str = getenv("HOME", "")
    print(started, home)


# __main__ comes with the rest: the stub's __all__ names it.
if __main__:
    main()
