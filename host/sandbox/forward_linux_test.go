package sandbox

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHandoff: the listeners sent over Handoff, as the trampoline sends
// them, are served, and one without a target is closed, not kept; the
// trampoline's end is close-on-exec in rooda, for no other child to
// inherit.
func TestHandoff(t *testing.T) {
	p, err := StartProxy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if flags, err := unix.FcntlInt(p.Handoff().Fd(), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("the handoff's flags %#x, %v: not close-on-exec", flags, err)
	}
	served, servedFile := tcpListener(t)
	extra, extraFile := tcpListener(t)
	if err := handOver(int(p.Handoff().Fd()), []string{proxyTarget}, []*os.File{servedFile, extraFile}); err != nil {
		t.Fatal(err)
	}
	servedFile.Close()
	extraFile.Close()
	client := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return url.Parse("http://" + served) }}}
	res, err := client.Get("http://127.0.0.1:1/")
	if err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("through the handed listener: %v %v", res, err)
	}
	res.Body.Close()
	if c, err := net.Dial("tcp", extra); err == nil {
		c.Close()
		t.Errorf("the listener handed without a target is still open")
	}
}

// tcpListener is a listener on 127.0.0.1 as a file, its address, and no
// other descriptor of it open.
func tcpListener(t *testing.T) (string, *os.File) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), f
}
