package runpage

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"testing"
	"time"
)

// TestServeStopsWithConnectionsOpen: stopped, Serve returns nil at once
// although a client holds a connection that never sent a request (as a
// browser opens one ahead) and another that is idle after its request,
// and both are closed.
func TestServeStopsWithConnectionsOpen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, DefaultAddr, t.TempDir(), w) }()
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`at http://(\S+)/\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("Serve printed %q (%v)", line, err)
	}
	go io.Copy(io.Discard, out) // a warning line, if any, must not block Serve
	unused, err := net.Dial("tcp", m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer unused.Close()
	client := &http.Client{Transport: &http.Transport{}}
	resp, err := client.Get("http://" + m[1] + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close() // the connection stays open, idle, for the next request
	// The server accepts in order: the unused connection, dialled first, is
	// now known to it.
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve, stopped with connections open: %v", err)
		}
	case <-time.After(shutdownGrace + 5*time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	unused.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := unused.Read(make([]byte, 1)); err == nil || n > 0 {
		t.Errorf("the unused connection is still open: read %d bytes, %v", n, err)
	}
}
