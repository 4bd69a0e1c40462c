package cli

import (
	"strings"
	"testing"

	"rooda/internal/golden"
)

// TestUnknownFlagNamedAsTyped: a mistyped flag is named as the user typed
// it, dashes and all, with the flag it most likely meant, whether it
// comes after the procedure's name or before, with one dash or two.
func TestUnknownFlagNamedAsTyped(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := exe(t, "build", "--itrations", "3")
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	golden.Check(t, "error_unknown_flag_typo", stderr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--itrations=3", "build"}, "Error: unknown flag --itrations\n\nDid you mean --max-iterations?\n"},
		{[]string{"run", "build", "-itrations", "3"}, "Error: unknown flag -itrations\n\nDid you mean --max-iterations?\n"},
		{[]string{"script", "run", "x.star", "--max-step", "3"}, "Error: unknown flag --max-step\n\nDid you mean --max-steps?\nRun 'rooda script run --help' for usage.\n"},
	} {
		_, stderr, code := exe(t, tc.args...)
		if code != 1 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want it to start %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestMalformedOTLPEndpointStopsTheRun: an OTLP endpoint that is no URL
// traces can go to ends a run and a script run before they start, naming
// the variable and its value: the SDK would have sent the traces to
// localhost, or nowhere, and said so only past the run.
func TestMalformedOTLPEndpointStopsTheRun(t *testing.T) {
	t.Parallel()
	loopScript := "p = compose('p', act = [fragment(content = 'Act.')])\niterate(p, max_iterations = 1)\n"
	for _, value := range []string{"http//bad", ":::", "localhost:notaport", "http://localhost:notaport"} {
		for _, args := range [][]string{{"build", "-n", "1", "--ai-cmd", agentArg}, {"script", "run", "main.star", "--ai-cmd", agentArg}} {
			w := newWorkspace(t, step{"output": successSignal})
			w.traced(value)
			o := w.runScenario(jsonScenario{args: args, files: map[string]string{"main.star": loopScript}})
			if value == "http//bad" {
				golden.Check(t, "error_otlp_endpoint", o.stderr)
			}
			want := `Error: OTEL_EXPORTER_OTLP_ENDPOINT="` + value + `" is not an OTLP endpoint: `
			if o.code != 1 || !strings.HasPrefix(o.stderr, want) {
				t.Errorf("%s with %q: exit %d, stderr %q, want exit 1 and it to start %q", args[0], value, o.code, o.stderr, want)
			}
			if w.ran(1) {
				t.Errorf("%s with %q: an agent ran", args[0], value)
			}
			if runs := runIDs(t, w); len(runs) != 0 {
				t.Errorf("%s with %q: recorded %v", args[0], value, runs)
			}
		}
	}
}
