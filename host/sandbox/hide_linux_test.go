package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestHideEachWay: in a namespace made either way, a hidden directory
// is empty and read-only to the agent, what of its workspace lies below
// it is there and writable, and nothing changed outside.
func TestHideEachWay(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	before := trampoline
	trampoline = self
	t.Cleanup(func() { trampoline = before })
	ways := map[string]func(*syscall.SysProcAttr){"own namespace": ownNamespace, "user namespace": userNamespace}
	for name, way := range ways {
		t.Run(name, func(t *testing.T) {
			if why := try(way); why != nil {
				t.Skipf("SKIPPED: this system makes no namespace this way: %v", why)
			}
			hidden := t.TempDir()
			ws := filepath.Join(hidden, "run", "ws")
			must(t, os.MkdirAll(ws, 0o755))
			must(t, os.WriteFile(filepath.Join(hidden, "record.txt"), []byte("secret"), 0o644))
			// bare keeps nothing of the workspace below it: its cover is
			// mounted read-only at once, where hidden's is made so
			// once ws is bound back.
			bare := t.TempDir()
			line := `cat ` + hidden + `/record.txt 2>/dev/null || echo read-refused; ` +
				`(echo x > ` + hidden + `/new.txt) 2>/dev/null || echo write-refused; ` +
				`(echo x > ` + bare + `/new.txt) 2>/dev/null || echo bare-write-refused; ` +
				`echo y > ` + ws + `/own.txt && echo own-ok`
			argv, env, err := Wrap(self, Spec{Mode: Off, Write: []string{ws}, Hide: []string{hidden, bare}, Outside: mountNamespace()}, []string{"sh", "-c", line})
			must(t, err)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env, cmd.SysProcAttr = append(os.Environ(), env), &syscall.SysProcAttr{}
			way(cmd.SysProcAttr)
			out, _ := cmd.CombinedOutput()
			for _, want := range []string{"read-refused", "write-refused", "bare-write-refused", "own-ok"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("%q lacks %s", out, want)
				}
			}
			if strings.Contains(string(out), "secret") {
				t.Errorf("the hidden record was read: %q", out)
			}
			if _, err := os.Stat(filepath.Join(ws, "own.txt")); err != nil {
				t.Errorf("the write in the workspace below the hidden directory: %v", err)
			}
			if _, err := os.Stat(filepath.Join(bare, "new.txt")); err == nil {
				t.Errorf("the write below the bare cover reached the disk")
			}
			if data, err := os.ReadFile(filepath.Join(hidden, "record.txt")); string(data) != "secret" {
				t.Errorf("outside, the record: %q, %v", data, err)
			}
		})
	}
}

// TestHideRefusesRoodasNamespace: a trampoline started without a mount
// namespace of its own hides nothing and starts no agent: its mounts
// would be everyone's.
func TestHideRefusesRoodasNamespace(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hidden := t.TempDir()
	must(t, os.WriteFile(filepath.Join(hidden, "record.txt"), []byte("kept"), 0o644))
	argv, env, err := Wrap(self, Spec{Mode: Off, Hide: []string{hidden}, Outside: mountNamespace()}, []string{"sh", "-c", "echo agent-ran"})
	must(t, err)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "agent-ran") || !strings.Contains(string(out), "not in a mount namespace of its own") {
		t.Errorf("%v: %q", err, out)
	}
	if data, err := os.ReadFile(filepath.Join(hidden, "record.txt")); string(data) != "kept" {
		t.Errorf("the directory was covered here: %q, %v", data, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHideDirsCoversNestedOnce: a directory inside another to hide is
// covered with it (covering it after would find no place for it), and
// each is named by its real path, as the agent's own paths are.
func TestHideDirsCoversNestedOnce(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	before := trampoline
	trampoline = self
	t.Cleanup(func() { trampoline = before })
	if CanHide() != nil {
		t.Skipf("SKIPPED: this system makes no mount namespace: %v", CanHide())
	}
	real := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(real, "runs", "worktrees"), 0o755))
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(real, link))
	var spec Spec
	if _, err := spec.HideDirs([]string{filepath.Join(link, "runs"), filepath.Join(link, "runs", "worktrees"), filepath.Join(link, "none")}); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(real, "runs")}; !slices.Equal(spec.Hide, want) || spec.Outside == 0 {
		t.Errorf("hidden %q (outside %d), want %q", spec.Hide, spec.Outside, want)
	}
}
