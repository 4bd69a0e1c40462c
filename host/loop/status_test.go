package loop

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestStatusTableInTheDocs: the table of docs/running.md of how a run ends names
// every status, in order, with the exit code the process ends with (for
// exited, the script's own: "the code given").
func TestStatusTableInTheDocs(t *testing.T) {
	readme, err := os.ReadFile("../../docs/running.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\| [^|]+ \\| ([0-9]+|the code given) \\|$")
	var got []Status
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		status := Status(m[1])
		got = append(got, status)
		code, err := strconv.Atoi(m[2])
		switch {
		case status == Exited && err == nil:
			t.Errorf("docs/running.md says exited exits %d; it exits with the code the script gave", code)
		case status != Exited && code != status.ExitCode():
			t.Errorf("docs/running.md says %s exits %s; it exits %d", status, m[2], status.ExitCode())
		}
	}
	if len(got) != len(Statuses) {
		t.Fatalf("the table of docs/running.md lists %q, want %q", got, Statuses)
	}
	for i := range got {
		if got[i] != Statuses[i] {
			t.Errorf("row %d is %q, want %q", i+1, got[i], Statuses[i])
		}
	}
}
