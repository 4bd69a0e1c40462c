package modelserver

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// TestDownHoldsThePort: a server that is down refuses connections, its
// port cannot be taken by another listener meanwhile, and up serves there
// again.
func TestDownHoldsThePort(t *testing.T) {
	s := Start(t, Script{Text("hi")})
	addr := strings.TrimPrefix(s.URL, "http://")
	up, err := s.Down()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("a connection to the server that is down: %v, want refused", err)
	}
	// Tests that run at once start their servers on a free port: none is
	// given this one, however many start.
	for range 30000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		taken := ln.Addr().String() == addr
		ln.Close()
		if taken {
			t.Fatal("a server started on a free port was given the port of the server that is down")
		}
	}
	back, err := up(Script{Text("hi")})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if back.URL != s.URL {
		t.Fatalf("up at %s, want %s", back.URL, s.URL)
	}
	res, err := http.Get(back.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
}
