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

// TestResourceErrorsAreWarned: the SDK reports a malformed
// OTEL_RESOURCE_ATTRIBUTES through OpenTelemetry's error handler as it is
// made; rooda's handler, set before, says it in rooda's warning, where
// the default would print it to stderr past rooda's log.
func TestResourceErrorsAreWarned(t *testing.T) {
	for _, off := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		t.Setenv(off, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "team=a%zz")
	var warned []string
	r, err := telemetry.Start("build", false, func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) })
	if r == nil || err != nil {
		t.Fatalf("no run was started: %v, %v", r, err)
	}
	r.End(telemetry.RunEnd{})
	if len(warned) != 1 || !strings.Contains(warned[0], `invalid URL escape "%zz"`) {
		t.Errorf("warned %q", warned)
	}
}
