package cli

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// agentSpansJoinTheTrace: with OTEL_* set and telemetry: agents, the
// iteration's span is an invoke_agent CLIENT span with the GenAI
// attributes read from the CLI's stream; claude's own interaction span
// and codex's exec span, their telemetry turned on by rooda, are its
// children in the same trace. The other CLIs' spans are reported, not
// required: gemini and copilot export theirs in traces of their own;
// opencode exports its own as OTLP/JSON only, which this collector
// (protobuf only) rejects.
func agentSpansJoinTheTrace(t *testing.T, cli realcli.Installed) {
	c := newOTLPCollector(t)
	r := newRealRun(t, cli, modelserver.Text("All done. "+successSignal))
	r.env = append(withoutTracing(r.env), "OTEL_EXPORTER_OTLP_ENDPOINT="+c.URL)
	r.build("-n", "1", "--telemetry", "agents").expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	spans, _ := c.received()
	var agent *tracepb.Span
	for _, s := range spans {
		if s.Name == "invoke_agent "+cli.Name {
			agent = s
		}
	}
	if agent == nil {
		t.Fatalf("no invoke_agent %s span among %d", cli.Name, len(spans))
	}
	a := attrs(agent.Attributes)
	if agent.Kind != tracepb.Span_SPAN_KIND_CLIENT || a["gen_ai.operation.name"].GetStringValue() != "invoke_agent" || a["gen_ai.agent.name"].GetStringValue() != cli.Name ||
		a["gen_ai.conversation.id"].GetStringValue() == "" {
		t.Errorf("%s's invoke_agent span (%v): %v", cli.Name, agent.Kind, agent.Attributes)
	}
	// copilot's stream counts premium requests, not tokens.
	if cli.Name != "copilot" && (intAttr(agent, "gen_ai.usage.input_tokens") == 0 || intAttr(agent, "gen_ai.usage.output_tokens") == 0) {
		t.Errorf("%s's invoke_agent span (%v): %v", cli.Name, agent.Kind, agent.Attributes)
	}
	if want := map[string]string{"claude": "anthropic", "codex": "openai", "gemini": "gcp.gemini"}[cli.Name]; a["gen_ai.provider.name"].GetStringValue() != want {
		t.Errorf("%s's gen_ai.provider.name: %q, want %q", cli.Name, a["gen_ai.provider.name"].GetStringValue(), want)
	}
	var own, children []string
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "invoke_") || strings.HasPrefix(s.Name, "loop ") {
			continue
		}
		if !slices.Contains(own, s.Name) {
			own = append(own, s.Name)
		}
		if string(s.TraceId) == string(agent.TraceId) && string(s.ParentSpanId) == string(agent.SpanId) {
			children = append(children, s.Name)
		}
	}
	t.Logf("%s: its own spans, by name, %q; children of rooda's invoke_agent span (%s): %q", cli.Name, own, hex.EncodeToString(agent.SpanId), children)
	if want := map[string]string{"claude": "claude_code.interaction", "codex": "codex.exec"}[cli.Name]; want != "" && !slices.Contains(children, want) {
		t.Errorf("%s's %s span is not a child of rooda's invoke_agent span: its spans %q", cli.Name, want, own)
	}
}
