// Package ptytest runs a program under a real pseudo-terminal, for the
// tests of what rooda does on a terminal (the status line), without a
// dependency: it opens /dev/ptmx with golang.org/x/sys/unix, as a
// terminal emulator does.
//
// The terminal's output processing is off (no "\n" turned into "\r\n"),
// so that the screen's bytes are exactly what the program wrote.
package ptytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// PTY is a pseudo-terminal: the program runs on its slave, the test
// reads the master.
type PTY struct {
	master, slave *os.File
	mu            sync.Mutex
	screen        bytes.Buffer
	done          chan struct{}
}

// Open opens a pseudo-terminal of rows and columns; the test's cleanup
// closes it.
func Open(t testing.TB, rows, cols int) *PTY {
	t.Helper()
	p, err := open(rows, cols)
	if err != nil {
		t.Fatalf("cannot open a pseudo-terminal: %v", err)
	}
	t.Cleanup(p.close)
	return p
}

func open(rows, cols int) (*PTY, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("ptsname: %w", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, err
	}
	p := &PTY{master: master, slave: slave, done: make(chan struct{})}
	if err := errors.Join(p.rawOutput(), p.Resize(rows, cols)); err != nil {
		p.close()
		return nil, err
	}
	go p.read()
	return p, nil
}

// rawOutput turns the terminal's output processing off.
func (p *PTY) rawOutput() error {
	fd := int(p.slave.Fd())
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	tio.Oflag &^= unix.OPOST
	return unix.IoctlSetTermios(fd, unix.TCSETS, tio)
}

// read keeps what the master reads until the terminal is closed (EIO
// once no program holds the slave).
func (p *PTY) read() {
	defer close(p.done)
	buf := make([]byte, 4096)
	for {
		n, err := p.master.Read(buf)
		p.mu.Lock()
		p.screen.Write(buf[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Resize sets the terminal's size; the program learns of it by SIGWINCH
// (the kernel sends it to the terminal's foreground process group).
func (p *PTY) Resize(rows, cols int) error {
	return unix.IoctlSetWinsize(int(p.master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
}

// Start starts cmd with the terminal as its stdin, stdout and stderr
// (unless cmd sets them), its controlling terminal in a session of its
// own. The test's copy of the slave is closed, so that the screen ends
// when the program and its children have.
func (p *PTY) Start(cmd *exec.Cmd) error {
	for _, std := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if *std == nil {
			*std = p.slave
		}
	}
	if cmd.Stdin == nil {
		cmd.Stdin = p.slave
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
	err := cmd.Start()
	p.slave.Close()
	return err
}

// Type sends s to the program as typed at the keyboard: it reads it from
// the terminal, its stdin.
func (p *PTY) Type(s string) error {
	_, err := p.master.WriteString(s)
	return err
}

// Screen is every byte written to the terminal so far.
func (p *PTY) Screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.screen.String()
}

// Closed is closed once the terminal has no writer left and everything
// written has been read.
func (p *PTY) Closed() <-chan struct{} { return p.done }

func (p *PTY) close() {
	p.slave.Close()
	p.master.Close()
}
