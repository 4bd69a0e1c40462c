package cli

import (
	"fmt"
	"os"

	"rooda/host/programs"
	"rooda/host/starfmt"
	"rooda/host/telemetry"
)

// fullProgram is rooda with what few commands use linked in: buildifier
// for script fmt and script lint, the OTLP exporters for traces
// (cmd/rooda-full). rooda links neither, whose initialisation would
// slow every start (docs/design.md, "Two programs: rooda and
// rooda-full"), and hands those commands over to it.
const fullProgram = "rooda-full"

// handOver replaces this rooda by rooda-full, run as this rooda was, and
// returns only why it could not.
func handOver() error {
	program, err := programs.Find(fullProgram)
	if err == nil {
		err = programs.HandOver(program)
	}
	return fmt.Errorf("%w; install it with rooda (go install ./cmd/... installs it)", err)
}

// formatterOrHandOver is nil where this program formats and lints
// scripts; else it hands command (script fmt, script lint) over to
// rooda-full, or says why it cannot.
func formatterOrHandOver(command string) error {
	if starfmt.Linked() {
		return nil
	}
	return fmt.Errorf("rooda %s runs in %s: %w", command, fullProgram, handOver())
}

// exportersOrWarn hands rooda over to rooda-full when the environment
// asks for traces and this rooda links no exporter: before anything
// starts (a guard, an agent, a record), so that the whole command is
// rooda-full's. Without a rooda-full, one warning, and the command goes
// on with no trace. A shell's completion request traces nothing, and is
// neither handed over nor warned about at each TAB.
func exportersOrWarn() {
	if !telemetry.Enabled(os.Getenv) || telemetry.Exporting() || isCompletion(os.Args) {
		return
	}
	fmt.Fprintf(os.Stderr, "WARN: Traces: none sent: they are sent by %s: %v\n", fullProgram, handOver())
}
