package loop

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestStatusTableInTheDocs: the table of docs/running.md of how a run ends names
// every status, in order, with the exit code the process ends with.
func TestStatusTableInTheDocs(t *testing.T) {
	readme, err := os.ReadFile("../../docs/running.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\| [^|]+ \\| ([0-9]+) \\|$")
	var got []Status
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		status := Status(m[1])
		got = append(got, status)
		if code, _ := strconv.Atoi(m[2]); code != status.ExitCode() {
			t.Errorf("docs/running.md says %s exits %d; it exits %d", status, code, status.ExitCode())
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
