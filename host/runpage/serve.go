package runpage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultAddr is where Serve listens unless told: this machine only, on
// any free port.
const DefaultAddr = "127.0.0.1:0"

// Serve serves the records under dir on addr until ctx ends, then stops
// cleanly (a nil error). Once listening, it writes the page's URL to out
// as one line, "Serving the run records of DIR at http://HOST:PORT/",
// for a person to open and a program to read.
func Serve(ctx context.Context, addr, dir string, out io.Writer) error {
	return serve(ctx, addr, Handler(dir, addr), "the run records of "+dir, out)
}

// ServeFleet is Serve with the fleet's runs as its first page, as status
// says them: "Serving the fleet's runs at http://HOST:PORT/".
func ServeFleet(ctx context.Context, addr, dir string, status FleetStatus, out io.Writer) error {
	return serve(ctx, addr, FleetHandler(dir, addr, status), "the fleet's runs", out)
}

func serve(ctx context.Context, addr string, handler http.Handler, what string, out io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("runs serve: %w", err)
	}
	// The pages take no request body; a client that sends nothing, or
	// keeps an idle connection open, is let go.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	unused := trackUnused(srv)
	fmt.Fprintf(out, "Serving %s at http://%s/\n", what, l.Addr())
	if !loopback(l.Addr()) {
		fmt.Fprintf(out, "Warning: %s is not this machine's loopback address: whoever can reach it can read the records, prompts and outputs included\n", l.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Shutdown closes the listener, then calls this: a connection that
	// never sent a request (a browser opens one ahead, in case) would
	// otherwise count as busy, and hold the stop for seconds.
	srv.RegisterOnShutdown(unused.close)
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdown)
	if errors.Is(err, context.DeadlineExceeded) {
		// A request still unanswered after the grace is cut: the user
		// asked the server to stop, and it has.
		err = srv.Close()
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}

// shutdownGrace is how long a stop waits for the requests under way.
const shutdownGrace = 5 * time.Second

// unusedConns are the server's connections that have not begun a request.
type unusedConns struct {
	mu    sync.Mutex
	conns map[net.Conn]bool
}

// trackUnused follows srv's connections from their opening to their
// first request.
func trackUnused(srv *http.Server) *unusedConns {
	u := &unusedConns{conns: map[net.Conn]bool{}}
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		u.mu.Lock()
		defer u.mu.Unlock()
		if state == http.StateNew {
			u.conns[c] = true
		} else {
			delete(u.conns, c)
		}
	}
	return u
}

// close closes every connection that has not begun a request.
func (u *unusedConns) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for c := range u.conns {
		c.Close()
	}
}

// loopback reports whether addr can be reached from this machine only.
func loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
