package config

import (
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
)

// The table of settings. Each row says everything rooda knows of one
// setting: its key in rooda-config.yml, what it accepts, where it may be
// given, its environment variables, its flags, its iterate() keyword and
// its doc. The configuration's keys, the environment mapping, the flags,
// iterate()'s parameters, rooda info and docs/settings.md are all derived
// from it: adding a setting is adding a row, using its value, and a test.
//
// The rows are in the order of the keys in rooda-config.yml, as
// rooda config show writes them.
var (
	IterationMode = Define(Setting{
		Key:   "iteration_mode",
		Doc:   "max-iterations stops after default_max_iterations; unlimited runs until SUCCESS, the failure threshold or an interrupt",
		Group: iterationsGroup,
		Flags: []FlagDef{{Name: "unlimited", Alias: "u", Sets: ModeUnlimited, Category: "Loop",
			Usage: "no iteration limit: run until SUCCESS, the failure threshold or Ctrl+C"}},
		Keyword: &Keyword{Name: "unlimited", Type: "bool", Sets: ModeUnlimited, Doc: "no iteration limit"},
		Shown:   ShownNever, // in Max Iterations
	}, OneOf(iterationModes...))
	DefaultMaxIterations = Define(Setting{
		Key:   "default_max_iterations",
		Doc:   "how many iterations a loop runs at most, when iteration_mode is max-iterations",
		Group: iterationsGroup,
		Flags: []FlagDef{{Name: "max-iterations", Alias: "n", Category: "Loop",
			Usage: "stop after `N` iterations (N >= 1)"}},
		Keyword: &Keyword{Name: "max_iterations", Type: "int",
			Doc: "stop after this many iterations (>= 1); None takes the procedure's or the configuration's"},
		Shown: ShownNever, // in Max Iterations
	}, AtLeast(1))
	IterationTimeout = Define(Setting{
		Key: "iteration_timeout",
		Doc: "how long one iteration's agent may run before it is stopped; none for no limit",
		Flags: []FlagDef{{Name: "iteration-timeout", Category: "Loop",
			Usage: "stop an iteration after `DURATION` (seconds, or 90s, 5m)"}},
		Keyword: &Keyword{Name: "timeout", Type: "int | float | str",
			Doc: `stop an iteration after this long: seconds (30, 1.5) or a duration ("90s")`},
		Shown: ShownAlways,
	}, Timeout)
	// IdleTimeout stops an agent that has printed nothing for that long:
	// several CLIs wait forever, silent, when the network or their server
	// is down, and iteration_timeout is none by default.
	IdleTimeout = Define(Setting{
		Key: "idle_timeout",
		Doc: "how long one iteration's agent may write nothing, on stdout or stderr, before it is stopped; for an agent whose output rooda decodes, how long a tool it called may run with no result; none for no limit",
		Flags: []FlagDef{{Name: "idle-timeout", Category: "Loop",
			Usage: "stop an iteration whose agent prints nothing for `DURATION` (seconds, or 90s, 15m; none)"}},
		Keyword: &Keyword{Name: "idle_timeout", Type: "int | float | str",
			Doc: `stop an iteration whose agent prints nothing for this long: seconds (600) or a duration ("15m"), or "none"`},
		Shown: ShownAlways,
	}, Timeout)
	// ModelTimeout stops an agent whose decoded stream shows it waiting
	// on its model, no tool running, for that long: a CLI that retries or
	// reconnects prints, but does no work. 10 minutes: a model writing
	// one long answer (a file of thousands of lines in one tool call)
	// shows nothing in the stream until it is done, and claude itself
	// gives up on a request after 10 minutes.
	ModelTimeout = Define(Setting{
		Key: "model_timeout",
		Doc: "how long an agent whose output rooda decodes (output: claude-stream-json …) may wait on its model, no tool running, with no text, thinking, tool call or tokens in its stream, before it is stopped (its CLI's retries and reconnects do not count); none for no limit. While a tool runs, idle_timeout applies instead",
		Flags: []FlagDef{{Name: "model-timeout", Category: "Loop",
			Usage: "stop an iteration whose agent waits on its model, showing no work, for `DURATION` (seconds, or 90s, 10m; none)"}},
		Keyword: &Keyword{Name: "model_timeout", Type: "int | float | str",
			Doc: `stop an iteration whose decoded agent waits on its model, showing no work, for this long: seconds (600) or a duration ("10m"), or "none"`},
		Shown: ShownAlways,
	}, Timeout)
	MaxOutputBuffer = Define(Setting{
		Key: "max_output_buffer",
		Doc: "how much of the agent's output rooda keeps: the last bytes, where the promise is",
		Flags: []FlagDef{{Name: "max-output-buffer", Category: "Loop",
			Usage: "keep the last `SIZE` of the agent's output (bytes, or 10MB)"}},
		Keyword: &Keyword{Name: "max_output_buffer", Type: "int | str",
			Doc: `keep the last this many bytes of the agent's output (10485760, "10MB"; >= 1024)`},
		Shown: ShownAlways,
	}, Size(1024))
	FailureThreshold = Define(Setting{
		Key: "failure_threshold",
		Doc: "how many failed iterations in a row abort the loop",
		Flags: []FlagDef{{Name: "failure-threshold", Category: "Loop",
			Usage: "abort after `N` consecutive failed iterations"}},
		Keyword: &Keyword{Name: "failure_threshold", Type: "int",
			Doc: "abort after this many consecutive failed iterations"},
		Shown: ShownAlways,
	}, AtLeast(1))
	// MinIterations is how many iterations run before a SUCCESS may end
	// the loop (seed 004).
	MinIterations = Define(Setting{
		Key: "min_iterations",
		Doc: "the first iteration whose success may end the loop; before it, a success is continue",
		Flags: []FlagDef{{Name: "min-iterations", Category: "Loop",
			Usage: "let no success end the loop before iteration `N`, whoever declares it"}},
		Keyword: &Keyword{Name: "min_iterations", Type: "int",
			Doc: `let no success end the loop before this iteration, whoever declares it (the agent's SUCCESS or on_iteration's "success"): it is continue; the preamble says so`},
		Shown: ShownWithMaxIterations,
	}, AtLeast(1))
	// MaxCostUSD and MaxTokens are budgets of what the agents spend: the
	// loop ends, status budget, once what the run has spent so far
	// reaches them. Given to iterate(), iterate() returns that status to
	// the script; given by the user, the run ends.
	MaxCostUSD = Define(Setting{
		Key: "max_cost_usd",
		Doc: "the dollars the run's agents may spend, as their CLIs report it or the model_prices table prices it; the run ends with status budget once it has spent this much (given to a script's iterate(), only that loop ends, and the script goes on)",
		Flags: []FlagDef{{Name: "max-cost-usd", Category: "Budgets",
			Usage: "end the run once its agents have spent `DOLLARS` (2.50)"}},
		Keyword: &Keyword{Name: "max_cost_usd", Type: "int | float",
			Doc: "end this loop, status budget, once the run's agents have spent this many dollars, counting every loop of the run so far; the script goes on"},
	}, Dollars)
	MaxTokens = Define(Setting{
		Key: "max_tokens",
		Doc: "the tokens (input, output and cached) the run's agents may use; the run ends with status budget once they have used this many (given to a script's iterate(), only that loop ends, and the script goes on)",
		Flags: []FlagDef{{Name: "max-tokens", Category: "Budgets",
			Usage: "end the run once its agents have used `N` tokens"}},
		Keyword: &Keyword{Name: "max_tokens", Type: "int",
			Doc: "end this loop, status budget, once the run's agents have used this many tokens, counting every loop of the run so far; the script goes on"},
	}, AtLeast(1))
	// Strict turns the warning that no budget of a loop can be counted
	// into an error before its first iteration: an unattended run that
	// was meant to be capped is not started uncapped.
	Strict = Define(Setting{
		Key: "strict",
		Doc: "whether a loop none of whose budgets (max_cost_usd, max_tokens) can be counted, its agents reporting nothing they count, fails before its first iteration rather than being warned about",
		Flags: []FlagDef{{Name: "strict", Sets: "true", Category: "Budgets",
			Usage: "fail before the first iteration when no budget given can count what the agents spend (strict: true)"}},
	}, Boolean)
	// MaxDuration bounds one loop's wall time, as max_cost_usd bounds
	// its spending: a script's own budget, which iterate() returns as
	// status budget. The run's --max-duration is a budget of the script
	// run, not this setting.
	MaxDuration = Define(Setting{
		Key: "max_duration",
		Doc: "how long one loop may run, looked at as each iteration ends: the loop ends with status budget once it has run this long; none for no limit",
		Keyword: &Keyword{Name: "max_duration", Type: "int | float | str",
			Doc: `end the loop, status budget, once it has run this long: seconds (600) or a duration ("30m"), looked at as each iteration ends`},
	}, Timeout)
	// StallIterations stops a loop that goes round without changing
	// anything.
	StallIterations = Define(Setting{
		Key: "stall_iterations",
		Doc: "end the loop, status stalled, after this many iterations in a row that changed nothing (the same HEAD and working tree) and signaled nothing",
		Flags: []FlagDef{{Name: "stall-iterations", Category: "Loop",
			Usage: "end the loop after `N` iterations in a row that changed no file and signaled nothing"}},
		Keyword: &Keyword{Name: "stall_iterations", Type: "int",
			Doc: "end the loop, status stalled, after this many iterations in a row that changed nothing and signaled nothing (it.changed says whether one did)"},
	}, AtLeast(1))
	// MaxLimitWait bounds how long, in all, one iteration waits for its
	// agent's limits to reset and its outages to pass before it runs
	// again (host/loop's wait.go).
	MaxLimitWait = Define(Setting{
		Key: "max_limit_wait",
		Doc: "how long, in all, rooda waits in one iteration for an agent's usage or rate limit to reset, or for its model's server to come back (a backoff from 30s to 10m between tries when no reset time is given), each time running the same iteration again; a limit that resets later, or an outage that outlasts it, is a failure (cause rate_limited or network)",
		Flags: []FlagDef{{Name: "max-limit-wait", Category: "Loop",
			Usage: "wait up to `DURATION` in all for an agent's usage limit to reset or its server to come back (6h; none: never wait)"}},
		Keyword: &Keyword{Name: "max_limit_wait", Type: "int | float | str",
			Doc: `wait up to this long in all, in one iteration, for an agent's limit to reset or its server to come back: seconds or a duration ("6h"), or "none" to count them as failures at once`},
	}, Timeout)
	// BreakerHits, BreakerWindow and BreakerBackoff are the breaker of
	// the accounts' ledger (host/ledger): limits met again and again on
	// one account pause every loop of it.
	BreakerHits = Define(Setting{
		Key: "breaker_hits",
		Doc: "pause every loop of an agent's account, on this machine or any worker of the fleet, once its loops have met this many usage or rate limits within breaker_window: none of them starts its agent until breaker_backoff has passed (a wait, not a failure); unset, no pause",
	}, AtLeast(1))
	BreakerWindow = Define(Setting{
		Key: "breaker_window",
		Doc: "how recent the limits breaker_hits counts must be: seconds or a duration (\"10m\")",
	}, Timeout)
	BreakerBackoff = Define(Setting{
		Key: "breaker_backoff",
		Doc: "how long the breaker pauses an account's loops: seconds or a duration (\"30m\"), within each iteration's max_limit_wait",
	}, Timeout)
	// Sandbox confines what the agent's processes may write (Landlock):
	// host/sandbox.
	Sandbox = Define(Setting{
		Key: "sandbox",
		Doc: "what the agent's processes may write: off (anything the user may), workspace (only the loop's workspace, a temporary directory of the iteration's own, its CLI's state directories, the caches and sandbox_write, rooda's run records and the worktrees of other loops hidden from it where the system allows a mount namespace; refused where the kernel has no Landlock) or best-effort (as workspace, as far as the kernel can); in every mode, where the kernel can, the agent may signal no process outside its own tree",
		Flags: []FlagDef{{Name: "sandbox", Category: "Loop",
			Usage: "confine what the agent writes: `MODE` off, workspace or best-effort (Landlock)"}},
		Keyword: &Keyword{Name: "sandbox", Type: "str",
			Doc: `"workspace" confines the agent's writes to its workspace, its own TMPDIR, its CLI's state directories and sandbox_write; "best-effort" as far as the kernel can; "off" does not`},
		Shown: ShownWhenGiven,
	}, OneOf(SandboxModes...))
	// SandboxWrite adds paths the agent may write under a sandbox.
	SandboxWrite = Define(Setting{
		Key: "sandbox_write",
		Doc: "more directories and files the agent may write under a sandbox, a YAML list or separated by ':' (~/ is the home directory, $VAR or ${VAR:-default} a variable; a path whose variable is not set is left out; a relative path is from rooda's working directory), as a build's caches need",
		Flags: []FlagDef{{Name: "sandbox-write", Category: "Loop",
			Usage: "under a sandbox, let the agent write `PATHS` too (separated by ':')"}},
		Keyword: &Keyword{Name: "sandbox_write", Type: "str",
			Doc: "more paths the agent may write under a sandbox, separated by ':'"},
		Shown: ShownWhenGiven,
	}, PathList)
	// SandboxHide covers what the agent may not read or connect to:
	// Landlock confines no reads, nor connecting to a unix socket.
	SandboxHide = Define(Setting{
		Key: "sandbox_hide",
		Doc: "under a sandbox, files, unix sockets and directories the agent can neither read, write nor connect to, a YAML list or separated by ':' (as sandbox_write: /var/run/docker.sock, ${XDG_RUNTIME_DIR}/bus, ~/.ssh): in the agent's mount namespace a directory is covered by an empty read-only directory, anything else by an empty read-only file; refused under workspace where no mount namespace can be had",
		Flags: []FlagDef{{Name: "sandbox-hide", Category: "Loop",
			Usage: "under a sandbox, hide `PATHS` from the agent (files, sockets, directories; separated by ':')"}},
		Keyword: &Keyword{Name: "sandbox_hide", Type: "str",
			Doc: "files, unix sockets and directories the agent can neither read nor connect to under a sandbox, separated by ':'"},
		Shown: ShownWhenGiven,
	}, PathList)
	// SandboxNet limits the TCP ports the agent may connect to.
	SandboxNet = Define(Setting{
		Key: "sandbox_net",
		Doc: "under a sandbox, the only TCP ports the agent may connect to, a YAML list or separated by ',' (443 for HTTPS to its model; Landlock ABI 4); unset, any",
		Flags: []FlagDef{{Name: "sandbox-net", Category: "Loop",
			Usage: "under a sandbox, let the agent connect to these TCP `PORTS` only (443,8080)"}},
		Keyword: &Keyword{Name: "sandbox_net", Type: "str",
			Doc: "under a sandbox, the only TCP ports the agent may connect to, separated by ','"},
		Shown: ShownWhenGiven,
	}, Ports)
	// SandboxHosts limits the agent's network to a proxy that lets
	// through only the hosts it names (host/sandbox's Proxy).
	SandboxHosts = Define(Setting{
		Key: "sandbox_hosts",
		Doc: "under a sandbox, the only hosts the agent may reach, a YAML list or separated by ',': a name or an address (ports 443 and 80), host:port, or *.domain for the names below it; \"defaults\" adds the hosts its CLI's alias declares. The agent runs in a network namespace of its own whose one way out is a proxy of the iteration's (HTTPS_PROXY), which refuses the rest and records each refusal; DNS and UDP do not leave it. Unset, no proxy",
		Flags: []FlagDef{{Name: "sandbox-hosts", Category: "Loop",
			Usage: "under a sandbox, let the agent reach these `HOSTS` only, through a proxy (api.anthropic.com,*.npmjs.org,127.0.0.1:8080,defaults)"}},
		Keyword: &Keyword{Name: "sandbox_hosts", Type: "str",
			Doc: "under a sandbox, the only hosts the agent may reach through its proxy, separated by ','"},
		Shown: ShownWhenGiven,
	}, Hosts)
	// Digest puts the facts of the previous iteration in each prompt
	// after the first (seed 003).
	Digest = Define(Setting{
		Key: "digest",
		Doc: "whether each prompt after the first states the previous iteration's facts",
		Flags: []FlagDef{{Name: "digest", Sets: "true", Category: "Prompt", For: ForYAMLRuns,
			Usage: "state the previous iteration's facts in each prompt after the first (digest: true)"}},
		Keyword: &Keyword{Name: "digest", Type: "bool", Sets: "true",
			Doc: "state the previous iteration's facts (exit code, signal, files changed, checks) in each prompt after the first"},
	}, Boolean)
	LogLevel = Define(Setting{
		Key:        "log_level",
		Scope:      LoopWide,
		Doc:        "the least important messages rooda logs",
		EnvSynonym: "ROODA_LOG_LEVEL",
		Flags: []FlagDef{
			{Name: "log-level", For: ForAll, Usage: "log `LEVEL`: debug, info, warn or error"},
			{Name: "quiet", Alias: "q", Sets: "warn", For: ForAll, Usage: "log warnings and errors only (log_level: warn)"},
		},
		Shown: ShownAlways,
	}, OneOf(logLevels...))
	ShowAIOutput = Define(Setting{
		Key:        "show_ai_output",
		Scope:      LoopWide,
		Doc:        "whether the agent's output streams to stdout",
		EnvSynonym: "ROODA_SHOW_AI_OUTPUT",
		Flags: []FlagDef{{Name: "verbose", Alias: "v", Sets: "true", For: ForAll,
			Usage: "stream the agent's output (show_ai_output: true)"}},
		Shown: ShownAlways,
	}, Boolean)
	// Telemetry says whose traces a run exports where OTEL_* asks for
	// traces: rooda's alone, or the agent CLIs' own too.
	Telemetry = Define(Setting{
		Key:   "telemetry",
		Scope: LoopWide,
		Doc:   "where OTEL_EXPORTER_OTLP_ENDPOINT asks for traces: rooda (rooda's spans alone, the default) or agents (the agent CLIs' own telemetry too, turned on and sent to the same endpoint: claude's and codex's spans become children of each iteration's invoke_agent span; gemini's and copilot's go to the same collector in traces of their own, and gemini sends its logs and metrics as well)",
		Flags: []FlagDef{{Name: "telemetry",
			Usage: "with OTEL_* set, also turn on the agents' own traces (`WHOSE`: rooda or agents)"}},
		Shown: ShownWhenGiven,
	}, OneOf(TelemetryValues...))
	// LogFormat is text (the seeds' lines) or json (an object per event).
	LogFormat = Define(Setting{
		Key:   "log_format",
		Scope: LoopWide,
		Doc:   "text (lines, the default) or json (an object per event, for CI and log aggregators)",
		Flags: []FlagDef{{Name: "log-format", For: ForAll,
			Usage: "log as `FORMAT`: text (lines) or json (an object per event, for CI and log aggregators)"}},
		Shown: ShownNever,
	}, OneOf(logFormats...))
	// LogTimestampFormat is how a text line's time reads; the upstream
	// Go rooda's values and spellings, so that its configurations load.
	LogTimestampFormat = Define(Setting{
		Key:   "log_timestamp_format",
		Scope: LoopWide,
		Doc:   "how a text log line's time stamp reads: time ([15:04:05], the default), time-ms ([15:04:05.000]), relative (since the run started, [+1m02s]), iso (RFC 3339 with milliseconds) or none; JSON events keep their time",
		Flags: []FlagDef{{Name: "log-timestamp-format", For: ForAll,
			Usage: "stamp log lines as `FORMAT`: time, time-ms, relative, iso or none"}},
		Shown: ShownNever,
	}, OneOf(timestampFormats...))
	// StatusLine turns the status line under the log off where it would
	// be drawn (a terminal, a text log at info or below).
	StatusLine = Define(Setting{
		Key:   "status_line",
		Scope: LoopWide,
		Doc:   "auto draws a status line under the log while a run goes on when stderr is a terminal (not for a pipe, TERM=dumb, -q or a JSON log); off never does",
		Shown: ShownNever,
	}, OneOf(statusLineModes...))
	// Notify is a command told of a run's events (its end, a limit wait,
	// a login failure), one JSON object on its stdin: one program serves
	// a desktop notice, a chat or mail.
	Notify = Define(Setting{
		Key:   "notify",
		Scope: LoopWide,
		Doc:   "a command run when the run ends (run_finished), waits for a usage limit or an outage (limit_wait) or stops because its agent cannot log in (login_failed), with the event as one JSON object on stdin; its failure is a warning",
		Shown: ShownNever,
	}, Command)
	// RunsDir is where runs are recorded, from the working directory.
	RunsDir = Define(Setting{
		Key:   "runs_dir",
		Scope: LoopWide,
		Doc:   "where runs are recorded, from the working directory (default .rooda/runs)",
		Shown: ShownNever,
	}, Text)
	// KeepRuns is how many records are kept.
	KeepRuns = Define(Setting{
		Key:   "keep_runs",
		Scope: LoopWide,
		Doc:   "how many run records are kept (default 50); older ones are removed",
		Shown: ShownNever,
	}, AtLeast(1))
	// MaxMemory is the memory budget of a script's run, in bytes.
	MaxMemory = Define(Setting{
		Key:   "max_memory",
		Scope: LoopWide,
		Doc:   "the memory a script's run may hold before it is stopped",
		Flags: []FlagDef{{Name: "max-memory", Category: "Budgets", For: ForScriptRuns,
			Usage: "stop a script that holds more than `SIZE` of memory (1GiB, 512MiB; max_memory, default 1GiB)"}},
		Shown: ShownNever,
	}, Size(MinMaxMemory))
	AICmd = Define(Setting{
		Key:   "ai_cmd",
		Doc:   "the agent's command line; it beats ai_cmd_alias at the same level",
		Flags: []FlagDef{{Name: "ai-cmd", Category: "AI command", Usage: "run the agent as `COMMAND` (a command line)"}},
		Shown: ShownNever, // in AI Command
	}, Command)
	AICmdAlias = Define(Setting{
		Key:   "ai_cmd_alias",
		Doc:   "the agent, by the name of an alias of ai_cmd_aliases; several (a list) take turns, one per iteration",
		Flags: []FlagDef{{Name: "ai-cmd-alias", Category: "AI command", Usage: "run the agent named `ALIAS` (claude, codex, gemini, …); several, separated by ',', take turns"}},
		Shown: ShownNever, // in AI Command
	}, Names)
)

// iterationsGroup holds the iteration mode and count, which say one thing.
const iterationsGroup = "max iterations"

// Setting is one row of the table of settings.
type Setting struct {
	// Key is the key in rooda-config.yml; ROODA_LOOP_<KEY> sets it too.
	Key   string
	Scope Scope
	// Doc says what the setting does, for docs/settings.md.
	Doc string
	// Group names settings that say one thing together, as the iteration
	// mode and count do: two flags of one group cannot be given together,
	// and a user who sets one at loop level overrides the built-in
	// procedures' values of both.
	Group string
	// EnvSynonym is a second variable that sets the key, from seed 002
	// (ROODA_LOG_LEVEL); "" for none.
	EnvSynonym string
	// Flags are the command line's flags that set it.
	Flags []FlagDef
	// Keyword is iterate()'s parameter that sets it; nil for none.
	Keyword *Keyword
	// Shown says when rooda info and --dry-run list it.
	Shown Shown

	accepts string
	sep     string
	parse   func(string) (any, error)
	format  func(any) string
	show    func(any) string
}

// Scope says where a setting may be given.
type Scope int

const (
	// PerProcedure settings may be given for the loop, for a procedure,
	// to iterate() and on the command line, which beats them all.
	PerProcedure Scope = iota
	// LoopWide settings hold for the whole run: loop:, the environment
	// and the command line.
	LoopWide
)

// FlagDef is a command-line flag of a setting.
type FlagDef struct {
	Name  string // without dashes: "max-iterations"
	Alias string // a one-letter alias, "" for none
	// Sets is what a switch (a flag that takes no value) sets the setting
	// to: --unlimited sets iteration_mode to unlimited. "" for a flag that
	// takes a value.
	Sets string
	// Usage is the help's text; a `WORD` in it names the value.
	Usage string
	// Category is the help's heading; "" for the global options.
	Category string
	For      FlagUse
	// Key is the setting's key; Flags fills it in.
	Key string
}

// FlagUse says which commands take a flag.
type FlagUse int

const (
	// ForRuns: every command that works out a procedure's settings (run,
	// info, script run).
	ForRuns FlagUse = iota
	// ForAll: every command that loads the configuration (a global option).
	ForAll
	// ForYAMLRuns: a run of a YAML procedure.
	ForYAMLRuns
	// ForScriptRuns: a run of a script.
	ForScriptRuns
)

// Keyword is iterate()'s parameter for a setting.
type Keyword struct {
	Name string
	// Type is the Starlark type it takes, as the reference writes it: the
	// builtins convert a value to text by it ("int", "bool", "int | str",
	// "int | float | str").
	Type string
	Doc  string
	// Sets is what True sets a "bool" keyword's setting to (False sets
	// nothing).
	Sets string
	// Key is the setting's key; Keywords fills it in.
	Key string
}

// Default is the keyword's default as the reference writes it.
func (k Keyword) Default() string {
	if k.Type == "bool" {
		return "False"
	}
	return "None"
}

// Shown says when rooda info and --dry-run list a setting.
type Shown int

const (
	// ShownWhenGiven lists a setting that is set to anything but its
	// type's zero value: digest: true, not digest: false.
	ShownWhenGiven Shown = iota
	// ShownAlways lists it every time.
	ShownAlways
	// ShownWithMaxIterations lists it, when set, after Max Iterations,
	// which it qualifies.
	ShownWithMaxIterations
	// ShownNever lists it not at all, or as part of another line.
	ShownNever
)

// Def is a row of the table with its type: a setting's handle, through
// which its values are read.
type Def[T any] struct{ *Setting }

// table holds the rows, in the order of their keys.
var table []*Setting

// Define adds a row to the table, parsed by p, and returns its handle.
// The keys, the flags' and the keywords' names must be new. Define is
// meant for package variables; a test may define a setting of its own
// and Undefine it after.
func Define[T any](s Setting, p Parser[T]) *Def[T] {
	row := &s
	row.accepts, row.sep = p.accepts, p.sep
	row.parse = func(text string) (any, error) {
		v, err := p.parse(text)
		return v, err
	}
	// An unset value (nil) is the type's zero.
	row.format = func(v any) string {
		t, _ := v.(T)
		return p.format(t)
	}
	row.show = func(v any) string {
		t, _ := v.(T)
		if p.show != nil {
			return p.show(t)
		}
		return fmt.Sprint(t)
	}
	if err := clashes(row); err != nil {
		panic("config: " + err.Error())
	}
	table = append(table, row)
	return &Def[T]{row}
}

// clashes reports a row whose key, flag or keyword another row has.
func clashes(row *Setting) error {
	for _, other := range table {
		switch {
		case other.Key == row.Key:
			return fmt.Errorf("two settings have the key %s", row.Key)
		case row.Keyword != nil && other.Keyword != nil && row.Keyword.Name == other.Keyword.Name:
			return fmt.Errorf("two settings have the keyword %s", row.Keyword.Name)
		}
		for _, f := range row.Flags {
			if other.flag(f.Name) != nil {
				return fmt.Errorf("two settings have the flag --%s", f.Name)
			}
		}
	}
	return nil
}

// Undefine removes the row of key: the end of a test's own setting.
func Undefine(key string) {
	table = slices.DeleteFunc(table, func(s *Setting) bool { return s.Key == key })
}

// In is the setting's value in l: a tier's, or the resolved Settings'.
func (d *Def[T]) In(h holder) Value[T] {
	s, ok := h.limits().values[d.Key]
	if !ok {
		return Value[T]{}
	}
	return Value[T]{V: s.v.(T), Set: true, Source: s.src, Line: s.line}
}

// holder is what holds values of settings: Limits, and Settings.
type holder interface{ limits() *Limits }

// rowOf is the row of key, or nil.
func rowOf(key string) *Setting {
	i := slices.IndexFunc(table, func(s *Setting) bool { return s.Key == key })
	if i < 0 {
		return nil
	}
	return table[i]
}

func (s *Setting) flag(name string) *FlagDef {
	for i := range s.Flags {
		if s.Flags[i].Name == name {
			return &s.Flags[i]
		}
	}
	return nil
}

// conflictKey is what two flags or keywords must not both set: the
// setting's group, else its key.
func (s *Setting) conflictKey() string {
	if s.Group != "" {
		return s.Group
	}
	return s.Key
}

// conflictKeyOf is the conflict key of the row of key, or key itself when
// no row has it any more (a test's setting, undefined).
func conflictKeyOf(key string) string {
	if row := rowOf(key); row != nil {
		return row.conflictKey()
	}
	return key
}

// Label is the setting's name as rooda info shows it: "Failure Threshold".
func (s *Setting) Label() string {
	words := strings.Split(s.Key, "_")
	for i, w := range words {
		if w == "ai" {
			words[i] = "AI"
		} else {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// EnvNames are the variables that set the key: ROODA_LOOP_<KEY>, after its
// seed synonym if it has one.
func (s *Setting) EnvNames() []string {
	if s.EnvSynonym == "" {
		return []string{EnvName(s.Key)}
	}
	return []string{s.EnvSynonym, EnvName(s.Key)}
}

// Flags yields every setting's flags, each with its setting's key, in
// the table's order; nothing is copied out for the commands that list
// them at each start.
func Flags() iter.Seq[FlagDef] {
	return func(yield func(FlagDef) bool) {
		for _, s := range table {
			for _, f := range s.Flags {
				f.Key = s.Key
				if !yield(f) {
					return
				}
			}
		}
	}
}

// Keywords are iterate()'s keywords of every setting that has one, in the
// table's order, each with its setting's key.
func Keywords() []Keyword {
	var out []Keyword
	for _, s := range table {
		if s.Keyword != nil {
			out = append(out, s.keyword())
		}
	}
	return out
}

// KeywordNamed is iterate()'s keyword name, with its setting's key.
func KeywordNamed(name string) (Keyword, bool) {
	for _, s := range table {
		if s.Keyword != nil && s.Keyword.Name == name {
			return s.keyword(), true
		}
	}
	return Keyword{}, false
}

// keyword is s's keyword, with s's key.
func (s *Setting) keyword() Keyword {
	k := *s.Keyword
	k.Key = s.Key
	return k
}

// stored is the value of a setting in one tier, its type erased.
type stored struct {
	v    any
	src  Source
	line int
}

func (s stored) value() Value[any] { return Value[any]{V: s.v, Set: true, Source: s.src, Line: s.line} }

// isZero reports whether a value is its type's zero: digest: false.
func isZero(v any) bool { return reflect.ValueOf(v).IsZero() }
