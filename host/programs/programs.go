// Package programs finds rooda's other programs, installed beside it
// (rooda-sandbox, rooda-full), and hands a command over to one.
package programs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Beside is the program name that lies beside self, rooda's executable,
// if it is one rooda may run: a regular executable file, owned by
// rooda's user or root, that no one else may write (a program planted
// there, or one another user could change, would run with rooda's
// rights whenever rooda runs it). Else why not: fs.ErrNotExist when
// there is none.
func Beside(self, name string) (string, error) {
	path := filepath.Join(filepath.Dir(self), name)
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.Mode().IsRegular() || info.Mode()&0o100 == 0:
		return "", fmt.Errorf("%s is not an executable file", path)
	case info.Mode()&0o022 != 0:
		return "", fmt.Errorf("%s may be written by others than its owner (mode %v)", path, info.Mode().Perm())
	case !ok || st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return "", fmt.Errorf("%s belongs to another user", path)
	}
	return path, nil
}

// Find is the program name that this program hands a command over to:
// the one beside its executable (Beside), else the first on PATH. One
// beside it that Beside refuses is an error, not passed over for
// another. Never this program itself: a program under name that lacks
// what name has (rooda copied as rooda-full) would hand over to itself
// without end.
func Find(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return find(self, name)
}

// find is Find for the program at self.
func find(self, name string) (string, error) {
	path, err := Beside(self, name)
	if errors.Is(err, fs.ErrNotExist) {
		path, err = exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("no %s beside %s (%s) or on PATH", name, filepath.Base(self), filepath.Join(filepath.Dir(self), name))
		}
	}
	if err != nil {
		return "", err
	}
	if same(self, path) {
		return "", fmt.Errorf("%s is this very program, %s, which lacks what %s has", path, self, name)
	}
	return path, nil
}

// same says whether the files at a and b are one.
func same(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// HandOver replaces this program by program, run with this one's
// arguments (argv[0] too) and environment: the same process, with the
// same stdin, stdout and stderr, so that what started this one sees no
// difference. It returns only why it could not.
func HandOver(program string) error {
	return fmt.Errorf("running %s: %w", program, syscall.Exec(program, os.Args, os.Environ()))
}
