package statusline

import (
	"io"
	"os"
	"os/signal"
	"time"

	"golang.org/x/sys/unix"
)

// OnTerminal starts a status line on stderr when stderr is a terminal
// that can draw one, and returns nil otherwise: a pipe, a file, or
// TERM=dumb. Under NO_COLOR the line has no colour (it is still drawn:
// NO_COLOR asks for no colour, not for less). It is drawn again every
// second, so that the times tick, and at once when the terminal is
// resized; its width is read at every drawing.
func OnTerminal(stderr io.Writer) *Line {
	f, ok := stderr.(*os.File)
	if !ok || !IsTerminal(f) || os.Getenv("TERM") == "dumb" {
		return nil
	}
	resized := make(chan os.Signal, 1)
	signal.Notify(resized, unix.SIGWINCH)
	noColor := os.Getenv("NO_COLOR") != "" // no-color.org: set and not empty
	l := New(f, Options{Width: func() int { return width(f) }, Color: !noColor, Tick: time.Second, Redraw: resized})
	l.onClose = func() { signal.Stop(resized) }
	return l
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// width is the terminal's width in columns, 80 when it cannot be read.
func width(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 80
	}
	return int(ws.Col)
}
