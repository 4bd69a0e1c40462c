// Command fsops measures, in a directory of the file system under test,
// what each kind of file operation an iteration's record makes costs
// there: a directory made, a file made whole under a temporary name and
// renamed into place (prompt.txt, meta.json), the same forced to the
// disk first (output.txt), run.json replaced, and a line appended to the
// journal, forced or not. docs/performance.md ("The record on a disk")
// gives its figures for the development VM's disks.
//
//	go run ./bench/fsops [-n 300] DIR
//
// Each figure is the mean of n operations, in microseconds. A file
// system's cost moves with its state: on an ext4 without a journal, a new
// inode is found by scanning past those freed in the last minutes, so
// run it more than once, and after other work too.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	n := flag.Int("n", 300, "operations of each kind")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/fsops [-n 300] DIR")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp(flag.Arg(0), "fsops-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	data := make([]byte, 1000)
	iteration := func(i int) string { return filepath.Join(dir, fmt.Sprintf("%04d", i)) }
	timed(*n, "a directory made (an iteration's)", func(i int) error { return os.Mkdir(iteration(i), 0o755) })
	timed(*n, "a file made whole and renamed (prompt.txt)", func(i int) error {
		return whole(filepath.Join(iteration(i), "prompt.txt"), data, false)
	})
	timed(*n, "a file made in place, O_EXCL (meta.json)", func(i int) error {
		return inPlace(filepath.Join(iteration(i), "meta.json"), data)
	})
	timed(*n, "the same, forced to the disk first (output.txt)", func(i int) error {
		return whole(filepath.Join(iteration(i), "output.txt"), data, true)
	})
	timed(*n, "run.json replaced", func(int) error { return whole(filepath.Join(dir, "run.json"), data, false) })
	journal, err := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer journal.Close()
	line := data[:100]
	timed(*n, "a journal line appended", func(int) error { _, err := journal.Write(line); return err })
	timed(*n, "a journal line appended and forced to the disk", func(int) error {
		if _, err := journal.Write(line); err != nil {
			return err
		}
		return journal.Sync()
	})
}

// timed runs op n times and prints its mean time.
func timed(n int, what string, op func(i int) error) {
	start := time.Now()
	for i := range n {
		if err := op(i); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
			os.Exit(1)
		}
	}
	fmt.Printf("%-50s %8.1f µs\n", what, float64(time.Since(start).Microseconds())/float64(n))
}

// whole writes data to path as rooda's record does (host/files): a file
// of a temporary name, forced to the disk if sync, renamed into place.
func whole(path string, data []byte, sync bool) error {
	tmp := path + ".tmp"
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	_, err = unix.Write(fd, data)
	if err == nil && sync {
		err = unix.Fsync(fd)
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return unix.Rename(tmp, path)
}

// inPlace writes data to path, a name new in its directory, as one write:
// no temporary name, no rename.
func inPlace(path string, data []byte) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	_, err = unix.Write(fd, data)
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	return err
}
