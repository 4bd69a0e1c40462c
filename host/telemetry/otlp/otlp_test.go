package otlp

import (
	"fmt"
	"strings"
	"testing"

	"rooda/host/telemetry"
)

// TestHTTPJSONIsRefused: a protocol the SDK cannot speak warns once
// and exports nothing.
func TestHTTPJSONIsRefused(t *testing.T) {
	for _, off := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
		t.Setenv(off, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json")
	var warned []string
	if r, err := telemetry.Start("build", false, func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }); r != nil || err != nil {
		t.Errorf("a run was started: %v, %v", r, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `"http/json" is not supported`) {
		t.Errorf("warned %q", warned)
	}
}
