// Command rooda-full is rooda with script fmt, script lint and the export
// of traces linked in: buildtools' formatter and linter
// (host/starfmt/buildifier) and the OTLP exporters, with gRPC and
// protobuf (host/telemetry/otlp), which would slow every start of rooda
// (docs/design.md, "Two programs: rooda and rooda-full"). It is
// installed beside rooda, which runs it in its own place for those: it
// never hands anything over itself, for it has everything.
package main

import (
	_ "rooda/host/starfmt/buildifier"
	_ "rooda/host/telemetry/otlp"
	"rooda/internal/cli"
)

func main() { cli.Main() }
