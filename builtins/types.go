package builtins

// Field is one attribute of a value the API gives a script.
type Field struct {
	Name string
	Type string
	Doc  string
}

// Type is a kind of value a script meets: what a builtin returns, what a
// callback is given. Its fields are what the reference documents and the
// stub declares, so that an editor completes it. and r.last.; a test
// holds them to the values' own attributes.
type Type struct {
	Name   string
	Doc    string
	Fields []Field
}

// Types lists the API's types, in the order the reference gives them.
// The methods of a type are in Methods.
func Types() []Type {
	return []Type{
		{"iteration", "One iteration, as on_iteration(it) sees it and as r.last holds it. Frozen. In a dry run r.last is a placeholder: number 0, outcome \"dry-run\".", iterationTypeFields},
		{"loop_result", "What iterate() returns. Frozen.", []Field{
			{"status", "str", "how the loop ended: \"success\", \"stopped\", \"max-iters\", \"aborted\", \"stalled\", \"budget\", or \"dry-run\" (the table of statuses of docs/running.md)"},
			{"reason", "str | None", "why the procedure's verdict ended the loop, when it gave a pair (verdict, reason): (\"stop\", \"over budget\"); None otherwise"},
			{"iterations", "int", "how many iterations ran"},
			{"last", "iteration", "the last iteration that ran (in a dry run, a placeholder)"},
			{"dry_run", "bool", "whether nothing ran (--dry-run)"},
			{"ok", "bool", "whether the loop did its work: status \"success\", or \"dry-run\" (a dry run counts its loops as done, so that exit code logic written with it, if not r.ok: exit(3, …), takes the path of success there and the dry run exits 0)"},
			{"stats", "stats", "the iterations' durations"},
			{"usage", "usage | None", "the tokens the loop's agents used, the sum of its iterations' it.usage; None when no agent reported any (agents read as text)"},
			{"cost", "float | None", "what the loop cost in dollars, the sum of its iterations' it.cost; None when unknown, as it is when one iteration's it.cost is None (an agent read as text, a model nobody priced), however many others are known; an agent that could not start spent nothing"},
		}},
		{"usage", "The tokens an iteration's agent used, it.usage, or a loop's agents, r.usage.", []Field{
			{"input", "int", "input tokens, not counting cached ones"},
			{"output", "int", "output tokens"},
			{"cache_read", "int", "input tokens read from the provider's cache"},
			{"cache_write", "int", "input tokens written to the provider's cache"},
			{"total", "int", "all of them: what max_tokens counts"},
		}},
		{"stats", "The durations of a loop's iterations, in seconds: r.stats.", []Field{
			{"count", "int", "iterations timed"},
			{"total", "float", "their sum"},
			{"min", "float", "the shortest"},
			{"max", "float", "the longest"},
			{"mean", "float", "the mean"},
			{"stddev", "float", "the standard deviation"},
		}},
		{"command_result", "What run() returns. Frozen.", []Field{
			{"exit_code", "int", "the command's exit code (127 when it could not start; 0 in a dry run that did not run it)"},
			{"output", "str", "its stdout and stderr, the last 1 MiB"},
			{"duration", "float", "how long it ran, in seconds"},
			{"timed_out", "bool", "whether it was stopped at its timeout"},
			{"dry_run", "bool", "whether it did not run (--dry-run, and not safe = True): a placeholder"},
		}},
		{"worktree", "What worktree() returns: a git worktree of the run, for iterate(worktree=…), run(dir=…) and git_merge(). Frozen.", []Field{
			{"name", "str", "its name, unique in the run"},
			{"path", "str", "its directory: .rooda/worktrees/<run-id>/<name> below the main checkout"},
			{"branch", "str", "its branch: rooda/<run-id>/<name>, or the one given"},
			{"keep", "bool", "whether it and its branch stay when the run ends"},
		}},
		{"merge_result", "What git_merge() returns. Frozen.", []Field{
			{"merged", "bool", "whether the branch was merged"},
			{"conflicts", "list of str", "the files in conflict (the merge was aborted); empty when merged"},
			{"output", "str", "what git merge said"},
			{"commits", "int", "how many commits the merge brought in; 0 when the checkout had them all (\"Already up to date\")"},
			{"dirty", "bool", "whether the worktree holds uncommitted changes or untracked files, which no merge takes: the run keeps it"},
			{"dry_run", "bool", "whether nothing was merged (--dry-run)"},
		}},
		{"procedure", "What compose() and procedure() return: a prompt to run with iterate(). Its methods are render and with_phases.", []Field{
			{"name", "str", "the name the preamble shows (Procedure: NAME)"},
		}},
		{"fragment", "What fragment() returns: one piece of a phase.", []Field{
			{"path", "str | None", "the file it was read from, or None for inline content"},
			{"content", "str | None", "the inline text, or None for a fragment read from a file"},
		}},
		{"file", "What file() returns: a context file, beside the script or, with work = True, of the work.", []Field{
			{"path", "str", "the file, as the working directory sees it (a file of the work: as given)"},
			{"work", "bool", "whether it is a file of the work, looked for only when a prompt is composed"},
		}},
		{"agent", "What agent() returns: an AI command for iterate(agent=…). It has no fields.", nil},
		{"fake_agent", "In script tests, what fake_agent() returns: an agent that starts no process and records every prompt it receives.", []Field{
			{"calls", "int", "how many iterations it was given"},
			{"prompts", "list of str", "the exact prompt of each of those iterations, in order"},
		}},
	}
}

var iterationTypeFields = []Field{
	{"number", "int", "the iteration's number, from 1"},
	{"outcome", "str", "\"continue\", \"success\", \"failure\", \"abort\" or \"stop\" (the verdict table of docs/running.md); in on_iteration, the agent's outcome before the procedure's verdict"},
	{"cause", "str | None", "why the agent failed: \"signal_failure\", \"agent_failed\", \"timeout\", \"idle\", \"crash\", \"no_start\", \"auth\" … (the README's causes table), kept whatever on_iteration made of the iteration (after (\"stop\", …) r.last.cause still says it); \"procedure\" for a failure on_iteration declared of an iteration the agent did not fail; None when neither failed"},
	{"reason", "str | None", "the reason on_iteration gave with its verdict, a pair (verdict, reason) such as (\"failure\", \"no tests\"): a reviewer's veto, read in r.last and the next iteration's previous; None in on_iteration itself and when it gave none"},
	{"signal", "str | None", "the promise the agent signaled: \"SUCCESS\", \"FAILURE\" (when both, FAILURE), or None; with iterate(promises=…), \"SUCCESS\" or \"FAILURE\" for the kind of the word it wrote"},
	{"exit_code", "int", "the agent's exit code"},
	{"timed_out", "bool", "whether the agent was stopped at the iteration timeout"},
	{"truncated", "bool", "whether output was dropped beyond max_output_buffer"},
	{"duration", "float", "how long the iteration took, in seconds"},
	{"output", "str", "the agent's kept output, stdout and stderr: for an agent whose CLI prints JSON (an alias with an output format), that JSON"},
	{"text", "str", "what the agent said: the assistant text decoded from its CLI's JSON, without tool calls, their results or its echo of the prompt; for an agent read as text, its output itself. The promise signals are looked for here"},
	{"prompt", "str", "the exact prompt the agent was given"},
	{"procedure", "str", "the name of the procedure whose prompt the agent was given: its role's in a loop with roles, else the loop's (\"\" in a dry run's placeholder)"},
	{"role", "str | None", "the name of the agent's role, the procedure of a pair (agent, procedure) it was given as; None for an agent without a role"},
	{"consecutive_failures", "int", "failures in a row, this one included"},
	{"agent", "str", "the agent of the iteration: the name agent(name=…) gave it, else its alias, else its command line (\"\" in a dry run's placeholder)"},
	{"usage", "usage | None", "the tokens the agent used, as its CLI reported them (an alias with a JSON output); None for an agent rooda reads as text"},
	{"cost", "float | None", "what the iteration cost in dollars: the CLI's own figure, else its tokens priced by model_prices; None when unknown"},
	{"changed", "bool | None", "whether the iteration changed the git workspace (a file's content, or HEAD); None outside a git repository, where rooda cannot tell. stall_iterations counts iterations that changed nothing and signaled nothing"},
	{"files_changed", "list of str", "the files the iteration changed, tracked or not, committed or not (rooda's own records left out), the first 1,000 in order; empty outside a git repository"},
}
