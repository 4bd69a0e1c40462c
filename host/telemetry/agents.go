package telemetry

import (
	"cmp"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The agent CLIs keep their own telemetry off unless asked. With
// telemetry: agents, each iteration's agent is given what turns on the
// traces of the CLIs that have them, sent to rooda's endpoint, and
// OTEL_RESOURCE_ATTRIBUTES naming the run and the iteration. claude
// (measured with 2.1.197 and 2.1.332) takes its interaction span's parent from
// TRACEPARENT: its spans join rooda's trace below the iteration's
// invoke_agent span. codex (0.169.0) does too, once its trace exporter
// is given on its command line (agentArgs). gemini (0.61.0) exports its
// spans to the same collector, in traces of its own.

// agentEnv is what turns the CLIs' traces on, for iteration n of the
// run runID's loop of procedure; getenv is rooda's environment.
func agentEnv(getenv func(string) string, runID, procedure string, n int) []string {
	base, _ := endpoints(getenv)
	env := []string{
		// claude: its telemetry, its traces (a beta), over OTLP; it
		// reads the endpoint and protocol from the OTEL_* it inherits.
		"CLAUDE_CODE_ENABLE_TELEMETRY=1",
		"CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1",
		"OTEL_TRACES_EXPORTER=otlp",
		// rooda's protocol: claude's own default is grpc.
		"OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol(getenv),
		// gemini: its own variables, its endpoint without the signal's
		// path, which it adds.
		"GEMINI_TELEMETRY_ENABLED=true",
		"GEMINI_TELEMETRY_TRACES_ENABLED=true",
		"GEMINI_TELEMETRY_TARGET=local",
		"GEMINI_TELEMETRY_OTLP_ENDPOINT=" + base,
		"GEMINI_TELEMETRY_OTLP_PROTOCOL=" + geminiProtocol(protocol(getenv)),
		// No prompt leaves with the CLIs' telemetry unless the user
		// asks: gemini logs them by default.
		"GEMINI_TELEMETRY_LOG_PROMPTS=" + cmp.Or(strings.TrimSpace(getenv("GEMINI_TELEMETRY_LOG_PROMPTS")), "false"),
	}
	attrs := []string{"rooda.run.id=" + url.PathEscape(runID), "rooda.procedure=" + url.PathEscape(procedure), "rooda.iteration=" + strconv.Itoa(n)}
	if given := strings.TrimSpace(getenv("OTEL_RESOURCE_ATTRIBUTES")); given != "" {
		attrs = append([]string{given}, attrs...)
	}
	return append(env, "OTEL_RESOURCE_ATTRIBUTES="+strings.Join(attrs, ","))
}

// agentArgs is argv with what turns on codex's traces, when argv starts
// codex: its trace exporter, a config override given before its
// subcommand, pointed at rooda's endpoint. Other CLIs take variables
// alone (agentEnv).
func agentArgs(getenv func(string) string, argv []string) []string {
	if len(argv) == 0 || filepath.Base(argv[0]) != "codex" {
		return argv
	}
	base, traces := endpoints(getenv)
	exporter := `otlp-http={endpoint=` + tomlString(traces) + `,protocol="binary"}`
	if protocol(getenv) == "grpc" {
		exporter = `otlp-grpc={endpoint=` + tomlString(base) + `}`
	}
	return slices.Concat(argv[:1], []string{"-c", "otel.trace_exporter={" + exporter + "}"}, argv[1:])
}

// tomlString is s as a TOML basic string, quoted and escaped.
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// endpoints are where rooda's traces go, as the SDK reads them (the
// traces' own variable beats the general one): base without the path
// OTLP/HTTP adds for a signal, for a CLI that adds it, and traces with
// it.
func endpoints(getenv func(string) string) (base, traces string) {
	if traces = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); traces != "" {
		return strings.TrimSuffix(traces, "/v1/traces"), traces
	}
	base = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	return base, strings.TrimSuffix(base, "/") + "/v1/traces"
}

// geminiProtocol is gemini's name of an OTLP protocol.
func geminiProtocol(p string) string {
	if p == "grpc" {
		return "grpc"
	}
	return "http"
}
