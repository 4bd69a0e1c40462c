// Package otlp sends host/telemetry's traces over OTLP, http/protobuf or
// grpc as the environment asks, by the official Go SDK and its
// exporters, and registers itself in host/telemetry as it initialises
// (telemetry.UseExporter).
//
// It is a package of its own because the SDK and the exporters, which
// link gRPC and protobuf, initialise at every start of a program that
// links them, what rooda's start-up cannot pay for every command
// (docs/design.md, "Two programs: rooda and rooda-full"): rooda-full
// links it, and rooda hands a run to be traced over to rooda-full.
package otlp

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"rooda/host/telemetry"
)

func init() { telemetry.UseExporter(newSDK) }

// defaultServiceName is service.name unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES name another.
const defaultServiceName = "rooda"

// newSDK is the SDK that batches a run's spans to the OTLP exporter of
// protocol, with the resource the environment describes.
func newSDK(ctx context.Context, protocol string, warn func(format string, args ...any)) (telemetry.Provider, error) {
	exporter, err := newExporter(ctx, protocol)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", defaultServiceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		warn("trace resource: %v", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}

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
