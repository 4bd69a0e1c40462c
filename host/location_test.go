package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testResolver() *resolver {
	return &resolver{workDir: "/work/proj", libraries: map[string]string{"team": "/libs/team"}}
}

func TestResolve(t *testing.T) {
	r := testResolver()
	root := Location{Display: "main.star", Path: "/work/proj/main.star"}
	team := Location{Display: "@team//tools/x.star", Path: "/libs/team/tools/x.star", library: "team", rel: "tools/x.star"}
	std := Location{Display: "@rooda//lib/a.star", Embedded: "lib/a.star"}
	for _, tc := range []struct {
		from           Location
		module         string
		display, path  string
		embedded, fail string
	}{
		{from: root, module: "lib/b.star", display: "lib/b.star", path: "/work/proj/lib/b.star"},
		{from: root, module: "../other/c.star", display: "/work/other/c.star", path: "/work/other/c.star"},
		{from: root, module: "@team//y.star", display: "@team//y.star", path: "/libs/team/y.star"},
		{from: team, module: "../base.star", display: "@team//base.star", path: "/libs/team/base.star"},
		{from: team, module: "../../escape.star", fail: "leaves the library"},
		{from: std, module: "b.star", display: "@rooda//lib/b.star", embedded: "lib/b.star"},
		{from: root, module: "@rooda//x.star", display: "@rooda//x.star", embedded: "x.star"},
		{from: root, module: "@nope//x.star", fail: "unknown library @nope"},
		{from: root, module: "@team", fail: "is not a module"},
		{from: root, module: "", fail: "is not a module"},
	} {
		got, err := r.resolve(tc.from, tc.module)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%s from %s: %v, want %q", tc.module, tc.from.Display, err, tc.fail)
			}
			continue
		}
		if err != nil || got.Display != tc.display || got.Path != tc.path || got.Embedded != tc.embedded {
			t.Errorf("%s from %s: %+v, %v", tc.module, tc.from.Display, got, err)
		}
	}
}

// FuzzResolve: whatever a load() says, resolving it does not panic, and a
// module of a library never lies outside the library's directory.
func FuzzResolve(f *testing.F) {
	for _, m := range []string{"a.star", "@team//x/../y.star", "@rooda//../../etc/passwd", "../../x", "@//", "@team//"} {
		f.Add(m, true)
	}
	r := testResolver()
	root := Location{Display: "main.star", Path: "/work/proj/main.star"}
	team := Location{Display: "@team//x.star", Path: "/libs/team/x.star", library: "team", rel: "x.star"}
	f.Fuzz(func(t *testing.T, module string, fromLibrary bool) {
		from := root
		if fromLibrary {
			from = team
		}
		got, err := r.resolve(from, module)
		if err != nil {
			return
		}
		if got.library != "" || strings.HasPrefix(got.Display, "@team//") {
			if rel, relErr := filepath.Rel("/libs/team", got.Path); relErr != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				t.Fatalf("%q from %s resolved outside the library: %s", module, from.Display, got.Path)
			}
		}
		if strings.HasPrefix(got.Display, "@rooda//") && (strings.HasPrefix(got.Embedded, "../") || got.Embedded == "..") {
			t.Fatalf("%q resolved outside the standard library: %s", module, got.Embedded)
		}
	})
}

// TestResolveConfinesLinks: a library's link out of it is refused, named
// with where it leads; a link inside it, and a link of the workspace's
// own, resolve.
func TestResolveConfinesLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir()) // as the message names it
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(base, "team")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(base, "secret.star"), nil, 0o644)
	os.WriteFile(filepath.Join(lib, "real.star"), nil, 0o644)
	os.Symlink("real.star", filepath.Join(lib, "ok.star"))
	os.Symlink("../secret.star", filepath.Join(lib, "evil.star"))
	os.Symlink("team/evil.star", filepath.Join(base, "mine.star"))
	r := &resolver{workDir: base, libraries: map[string]string{"team": lib}}
	root := onDisk("main.star", filepath.Join(base, "main.star"))
	for module, fail := range map[string]string{
		"@team//ok.star":   "",
		"mine.star":        "",
		"@team//evil.star": "@team//evil.star leads through a symbolic link to " + filepath.Join(base, "secret.star") + ", outside the library team",
	} {
		_, err := r.resolve(root, module)
		if (fail == "" && err != nil) || (fail != "" && (err == nil || !strings.Contains(err.Error(), fail))) {
			t.Errorf("%s: %v, want %q", module, err, fail)
		}
	}
}
