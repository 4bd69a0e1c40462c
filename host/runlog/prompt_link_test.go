package runlog

import (
	"os"
	"path/filepath"
	"testing"

	"rooda/host/loop"
)

// TestSamePromptIsOneFile: iterations given the same prompt keep it in
// one file under each iteration's name, and a different prompt in a file
// of its own; each prompt.txt holds its iteration's exact prompt.
func TestSamePromptIsOneFile(t *testing.T) {
	r, err := Start(t.TempDir(), "build", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	prompts := []string{"same", "same", "other", "same"}
	for i, p := range prompts {
		r.IterationStarted(loop.Request{Iteration: i + 1, Prompt: p})
		r.IterationFinished(&loop.Iteration{Number: i + 1, Prompt: p, Outcome: loop.OutcomeContinue})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var files []os.FileInfo
	for i, want := range prompts {
		path := filepath.Join(iterationDir(r.Dir(), i+1), "prompt.txt")
		data, err := os.ReadFile(path)
		if err != nil || string(data) != want {
			t.Errorf("iteration %d: prompt.txt %q, %v; want %q", i+1, data, err, want)
		}
		info, _ := os.Stat(path)
		files = append(files, info)
	}
	if !os.SameFile(files[0], files[1]) {
		t.Error("iterations 1 and 2, given the same prompt, keep it in two files")
	}
	if os.SameFile(files[1], files[2]) || os.SameFile(files[2], files[3]) {
		t.Error("a different prompt shares a file")
	}
}
