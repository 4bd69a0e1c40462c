package session

import (
	"fmt"
	"strings"

	"rooda/host"
	"rooda/host/engine"
	"rooda/host/loop"
	"rooda/host/shown"
)

// rehearsal is what a script's dry run found, told as it ends: the loops
// it reported, those not ready to execute, and the results it made up. A
// dry run goes on past a loop that is not ready, so that every loop shows
// with every problem, and exits 1 at the end if any was not ready.
type rehearsal struct {
	loops int
	// notReady name the loops whose checks failed: "task-b at main.star:12".
	notReady []string
	// placeholders name the results the dry run made up instead of
	// running or reading: `run("cat tasks.txt") at main.star:3`.
	placeholders []string
}

// rehearsed counts a loop the dry run reported, not ready when its
// report failed.
func (s *Session) rehearsed(name, pos string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rehearsal.loops++
	if err != nil {
		s.rehearsal.notReady = append(s.rehearsal.notReady, name+" at "+pos)
	}
}

// madeUp counts a result the dry run made up (a placeholder): what the
// script does with it, how many loops it starts among them, may differ in
// a real run.
func (s *Session) madeUp(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rehearsal.placeholders = append(s.rehearsal.placeholders, what)
}

// endRehearsal tells, at the end of a script's dry run, how many loops it
// reported, those not ready, the placeholders the loops may depend on,
// and the exit() that ended the script, if one did (nil when it ran to
// its end); it fails when a loop was not ready.
func (s *Session) endRehearsal(exit *host.Exit) error {
	s.mu.Lock()
	r := s.rehearsal
	s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "=== Dry-run of the script: %s reported", countOf(r.loops, "loop"))
	if len(r.notReady) > 0 {
		fmt.Fprintf(&b, ", %d not ready to execute", len(r.notReady))
	}
	b.WriteString(" ===\n")
	for _, loop := range r.notReady {
		fmt.Fprintf(&b, "  ✗ %s\n", loop)
	}
	if len(r.placeholders) > 0 {
		b.WriteString("Placeholders: what the script did with these results — how many loops, which ones — may differ in a real run:\n")
		for _, p := range r.placeholders {
			fmt.Fprintf(&b, "  %s\n", p)
		}
		b.WriteString("A read-only command marked run(…, safe = True) runs in a dry run too.\n")
	}
	b.WriteString(exitText(exit))
	if _, err := fmt.Fprint(s.opts.Stdout, shown.Text(b.String())); err != nil {
		return err
	}
	if len(r.notReady) > 0 {
		return fmt.Errorf("%w: %d of %s not ready to execute; mend what their ✗ lines say", engine.ErrDryRunFailed, len(r.notReady), countOf(r.loops, "loop"))
	}
	return nil
}

// exitText tells where the script ended itself, with the exit() it
// called. A code other than 0 whose reason names the status "dry-run"
// came of a loop's status, and r.ok is the test that takes that for
// success; an exit for another reason ("TASKS.md is missing") is not
// told of loops.
func exitText(exit *host.Exit) string {
	if exit == nil {
		return ""
	}
	call := fmt.Sprintf("exit(%d)", exit.Code)
	if exit.Reason != "" {
		call = fmt.Sprintf("exit(%d, %q)", exit.Code, exit.Reason)
	}
	text := fmt.Sprintf("The script ended at %s: %s.", exit.Pos, call)
	if exit.Code != 0 && strings.Contains(exit.Reason, string(loop.DryRun)) {
		text += ` A loop of a dry run has status "dry-run": r.ok is True for it, as for "success".`
	}
	return text + "\n"
}

// countOf is n things, in the singular for one.
func countOf(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
