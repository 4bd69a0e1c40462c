package telemetry

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// endpointVariables name where traces go; the traces' own beats the
// general one.
var endpointVariables = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"}

// checkEndpoints fails, naming the variable and its value, when one that
// names where traces go (getenv, as os.Getenv) is no URL protocol can
// send them to. The SDK would log that past rooda's log and send the
// traces to localhost instead: a place the user did not name.
func checkEndpoints(getenv func(string) string, protocol string) error {
	for _, name := range endpointVariables {
		value := getenv(name)
		if strings.TrimSpace(value) == "" {
			continue
		}
		if why := malformed(strings.TrimSpace(value), protocol); why != "" {
			return fmt.Errorf("%s=%q is not an OTLP endpoint: %s\nWrite it as a URL, as %s, or unset it to export no traces.",
				name, value, why, exampleEndpoint(protocol))
		}
	}
	return nil
}

// malformed says what is wrong with endpoint as protocol reads it, or
// "". OTLP/HTTP wants an http or https URL with a host; gRPC also takes
// the targets of other schemes as they are (dns:///collector:4317,
// unix:///run/otel.sock).
func malformed(endpoint, protocol string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			return urlErr.Err.Error()
		}
		return err.Error()
	}
	web := strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")
	switch {
	case !web && (protocol != "grpc" || u.Scheme == ""):
		return "it does not start with http:// or https://"
	case web && u.Hostname() == "":
		return "it names no host"
	}
	return ""
}

// exampleEndpoint is protocol's default endpoint, as an example of one.
func exampleEndpoint(protocol string) string {
	if protocol == "grpc" {
		return "http://localhost:4317"
	}
	return "http://localhost:4318"
}
