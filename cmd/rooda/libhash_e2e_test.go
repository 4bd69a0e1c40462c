package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstPinsStillVerify: a rooda.lock written before links were hashed
// still verifies for a library whose file and directory share a prefix
// (lib.star, lib-a.star, lib/x.star), whose files the hash takes in the
// order of their whole paths.
func TestFirstPinsStillVerify(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	for name, content := range map[string]string{
		"lib.star":   "lib = 'file'\n",
		"lib/x.star": "x = 'in lib/'\n",
		"lib-a.star": "a = 'dash'\n",
		"a/b/c.star": "c = 'deep'\n",
	} {
		path := filepath.Join(repo, "star", filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := publish("hello", "v1")
	w := newLibWorkspace(t, repo, t.TempDir())
	w.write("main.star", "load('@team//lib.star', 'lib')\nload('@team//lib/x.star', 'x')\nprint(lib, x)\n")
	// The sha256 rooda lib fetch of commit 338326e (built from that
	// commit) pinned for these files, with star/greet.star of publish.
	const first = "70de306cbbcbce92633c01083c0dab656ae8a3edb1ff1c9fea1f2fd54a9aaf08"
	w.write("rooda.lock", `{"libraries": {"team": {"git": "file://`+repo+`", "ref": "v1", "path": "star", "commit": "`+commit+`", "sha256": "`+first+`"}}}`+"\n")

	if o := w.rooda("lib", "fetch"); o.code != 0 || o.stdout != "team: v1 at "+commit[:12]+", as pinned\n" {
		t.Errorf("lib fetch on the first pin: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "file in lib/\n" {
		t.Errorf("a run on the first pin: exit %d\n%s", o.code, o.stderr)
	}
	if got := w.pinnedHash(); got != first {
		t.Errorf("rooda.lock now pins %s, not the first pin %s", got, first)
	}
	if o := w.rooda("lib", "update"); o.code != 0 || !strings.HasSuffix(o.stdout, ", unchanged\n") {
		t.Errorf("lib update on the first pin: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}
