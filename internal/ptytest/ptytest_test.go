package ptytest

import (
	"os/exec"
	"testing"
	"time"
)

// TestAProgramSeesATerminal: the program's stderr is a terminal of the
// size asked, and what it writes reaches the screen as written.
func TestAProgramSeesATerminal(t *testing.T) {
	p := Open(t, 24, 33)
	cmd := exec.Command("sh", "-c", `test -t 2 && echo "tty"; stty size; printf 'a\nb'`)
	if err := p.Start(cmd); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Closed():
	case <-time.After(30 * time.Second):
		t.Fatal("the terminal was not closed")
	}
	cmd.Wait()
	if got, want := p.Screen(), "tty\n24 33\na\nb"; got != want {
		t.Errorf("screen %q, want %q", got, want)
	}
}
