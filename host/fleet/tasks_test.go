package fleet

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadTasks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.yaml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runs:\n  - name: login\n    run: build\n    args: [-n, \"5\", -c, tasks/login.md]\n  - run: nightly.star\n    ref: main\n    repo: https://git.example.org/app.git\n")
	tasks, err := ReadTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Task{{Name: "login", Run: "build", Args: []string{"-n", "5", "-c", "tasks/login.md"}}, {Run: "nightly.star", Ref: "main", Repo: "https://git.example.org/app.git"}}
	if !reflect.DeepEqual(tasks, want) {
		t.Errorf("tasks %+v, want %+v", tasks, want)
	}
	for text, why := range map[string]string{
		"runs:\n  - run: build\n    agrs: [-n, \"1\"]\n": "field agrs not found",
		"runs:\n  - name: x\n":                           "run 1 names no procedure or script",
		"runs:\n  - run: build\n    name: a/b\n":         `run name "a/b"`,
		"runs: []\n":                                     "no run under runs:",
	} {
		write(text)
		if _, err := ReadTasks(path); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want an error saying %q", text, err, why)
		}
	}
}
