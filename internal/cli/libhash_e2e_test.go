package cli

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
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
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

// TestPinsThatLeftOutLinks: the hash left out symbolic links before it
// covered them, and did not follow a library path that is one: a pin of
// those days does not verify, and a run says why and what to do, not
// that rooda.lock was edited.
func TestPinsThatLeftOutLinks(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		link, target string
		// The sha256 rooda lib fetch of commit 338326e (built from that
		// commit) pinned for the library.
		first string
	}{
		// The hash of nothing: the link was not followed.
		"the library's path is a link": {"star", "src", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		// The hash of greet.star alone.
		"a link in the library": {"star/alias.star", "greet.star", "e1faf9febe48b49c9541cfd2bdbad1ded8ff86faff0a930e2572b7419e0fedbc"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo, publish := gitRepo(t)
			if c.link == "star" {
				must(t, os.Mkdir(filepath.Join(repo, "src"), 0o755))
				must(t, os.WriteFile(filepath.Join(repo, "src", "greet.star"), []byte("greeting = 'hello'\n"), 0o644))
			} else {
				must(t, os.MkdirAll(filepath.Join(repo, "star"), 0o755))
			}
			if err := os.Symlink(c.target, filepath.Join(repo, c.link)); err != nil {
				t.Fatal(err)
			}
			commit := publish("hello", "v1")
			w := newLibWorkspace(t, repo, t.TempDir())
			w.write("rooda.lock", `{"libraries": {"team": {"git": "file://`+repo+`", "ref": "v1", "path": "star", "commit": "`+commit+`", "sha256": "`+c.first+`"}}}`+"\n")

			o := w.rooda("script", "run", "main.star")
			want := "Error: library team: rooda.lock pins commit " + commit[:12] + " by a hash of an earlier rooda, which left out symbolic links; the library has them. Check where its links lead, then run rooda lib update team to pin them too\n"
			if o.code != 1 || o.stderr != want {
				t.Errorf("a run: exit %d\n%s\nwant\n%s", o.code, o.stderr, want)
			}
			if o := w.rooda("lib", "update", "team"); o.code != 0 {
				t.Fatalf("lib update: exit %d\n%s", o.code, o.stderr)
			}
			if o := w.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
				t.Errorf("a run after lib update: exit %d\n%s", o.code, o.stderr)
			}
		})
	}
}

// TestLibraryFragmentNamedLikeAModule: fragment() reads its path as a
// file below the script's directory, also when it starts with @, so a
// library's fragment('@rooda//…') is checked as that file is, and a link
// of the library named @rooda that leads out of it is refused.
func TestLibraryFragmentNamedLikeAModule(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	outside := outsideFiles(t)
	team := filepath.Join(w.dir, "team")
	must(t, os.MkdirAll(team, 0o755))
	for _, link := range []string{"@rooda", "@team"} {
		symlink(t, outside, filepath.Join(team, link))
		w.write("team/"+link+".star", "p = compose('p', act = [fragment('"+link+"//secret.md')])\n")
		w.write(link+".star", "load('@team//"+link+".star', 'p')\nprint(p.render())\n")
	}
	w.write("rooda-config.yml", "libraries:\n  team: team\n")
	for _, link := range []string{"@rooda", "@team"} {
		expectRefusedLink(t, w.runScript(link+".star"), link+"/secret.md", filepath.Join(outside, "secret.md"))
	}
}
