package git

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkWorkspace times what the loop adds to each iteration in a git
// workspace: Before, then After. ROODA_BENCH_REPO names a committed
// repository to measure in (a copy of Go's src tree is the 11k-file one
// of docs/performance.md; its files are left as they were); without it, a
// repository of three files. clean: the iteration changes nothing;
// edited: it rewrites a tracked file and an untracked one, as an agent
// does, so the tree is dirty from the first iteration on.
func BenchmarkWorkspace(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := os.Getenv("ROODA_BENCH_REPO")
	if dir == "" {
		dir = b.TempDir()
		for _, args := range [][]string{{"init", "--quiet"}} {
			benchGit(b, dir, args...)
		}
		for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
			must(b, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
		}
		benchGit(b, dir, "add", "-A")
		benchGit(b, dir, "commit", "--quiet", "-m", "first")
	}
	b.Run("clean", func(b *testing.B) {
		g := NewWorkspaceIn(dir)
		defer g.Close()
		for b.Loop() {
			g.Before()
			g.After()
		}
	})
	b.Run("edited", func(b *testing.B) {
		tracked := filepath.Join(dir, benchTracked(b, dir))
		was, err := os.ReadFile(tracked)
		must(b, err)
		untracked := filepath.Join(dir, "rooda-bench-untracked.txt")
		b.Cleanup(func() {
			os.WriteFile(tracked, was, 0o644)
			os.Remove(untracked)
		})
		g := NewWorkspaceIn(dir)
		defer g.Close()
		i := 0
		for b.Loop() {
			g.Before()
			i++
			must(b, os.WriteFile(tracked, fmt.Appendf(nil, "%s\n// %d\n", was, i), 0o644))
			must(b, os.WriteFile(untracked, fmt.Appendf(nil, "%d\n", i), 0o644))
			if c := g.After(); len(c.Files) != 2 {
				b.Fatalf("an iteration that rewrote two files: %+v", c)
			}
		}
	})
}

// benchTracked is the first file the repository tracks.
func benchTracked(b *testing.B, dir string) string {
	out, err := exec.Command("git", "-C", dir, "ls-files").Output()
	must(b, err)
	for i, c := range out {
		if c == '\n' {
			return string(out[:i])
		}
	}
	b.Fatal("the repository tracks no file")
	return ""
}

func benchGit(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
