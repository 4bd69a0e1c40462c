// Package otlp sends host/telemetry's traces over OTLP, http/protobuf or
// grpc as the environment asks, by the official Go SDK's exporters, and
// registers itself in host/telemetry as it initialises
// (telemetry.UseExporter).
//
// It is a package of its own because the exporters link gRPC and
// protobuf, which initialise at every start of a program that links
// them, what rooda's start-up cannot pay for every command
// (docs/design.md, "Two programs: rooda and rooda-full"): rooda-full
// links it, and rooda hands a run to be traced over to rooda-full.
package otlp

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"rooda/host/telemetry"
)

func init() { telemetry.UseExporter(newExporter) }

// newExporter is the OTLP exporter of protocol, which reads its
// endpoint, headers, timeout and compression from the environment.
// http/json is refused: the Go SDK has no exporter for it.
func newExporter(ctx context.Context, protocol string) (sdktrace.SpanExporter, error) {
	switch protocol {
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("OTLP protocol %q is not supported; use http/protobuf or grpc", protocol)
}
