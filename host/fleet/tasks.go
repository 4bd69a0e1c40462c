package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// Task is one run of a tasks file, as `rooda fleet add` takes it on its
// command line: a procedure or a script, its arguments, a name, a ref,
// a repository.
type Task struct {
	Name string   `yaml:"name"`
	Run  string   `yaml:"run"`
	Args []string `yaml:"args"`
	Ref  string   `yaml:"ref"`
	Repo string   `yaml:"repo"`
}

// tasksFile is a tasks file: `runs:`, a list of tasks.
type tasksFile struct {
	Runs []Task `yaml:"runs"`
}

// ReadTasks reads the tasks file at path: every task names what it runs,
// and no key is unknown (a misspelt one would be dropped unseen).
func ReadTasks(path string) ([]Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f tasksFile
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Runs) == 0 {
		return nil, fmt.Errorf("%s: no run under runs:", path)
	}
	for i, t := range f.Runs {
		if t.Run == "" {
			return nil, fmt.Errorf("%s: run %d names no procedure or script (run:)", path, i+1)
		}
		if t.Name != "" {
			if err := CheckName(t.Name); err != nil {
				return nil, fmt.Errorf("%s: run %d: %w", path, i+1, err)
			}
		}
	}
	return f.Runs, nil
}
