package confine

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestReadSpecRefusesWhatItDoesNotKnow: a rule this trampoline does not
// know (a rooda newer than the rooda-sandbox beside it) stops the agent
// rather than let it run less confined.
func TestReadSpecRefusesWhatItDoesNotKnow(t *testing.T) {
	spec, err := readSpec(`{"mode":"workspace","write":["/w"]}`)
	if err != nil || spec.Mode != Workspace || len(spec.Write) != 1 {
		t.Errorf("a known Spec: %+v, %v", spec, err)
	}
	if _, err := readSpec(`{"mode":"workspace","deny_everything":true}`); err == nil || !strings.Contains(err.Error(), "deny_everything") {
		t.Errorf("an unknown rule: %v, want it refused by name", err)
	}
}

// TestListen: the listeners made without package net are ones it
// serves, on IPv4 and IPv6 loopback, on the port asked for or one the
// kernel chose; localhost is 127.0.0.1.
func TestListen(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		f, port, err := listen(loopbackAddr(addr))
		if err != nil {
			if strings.HasPrefix(addr, "[::1]") {
				t.Logf("no IPv6 loopback here: %v", err)
				continue
			}
			t.Fatalf("%s: %v", addr, err)
		}
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if got := ln.Addr().(*net.TCPAddr).Port; port == 0 || got != port {
			t.Errorf("%s: port %d, the listener's %d", addr, port, got)
		}
		host := strings.TrimSuffix(strings.TrimPrefix(strings.Replace(loopbackAddr(addr), ":0", "", 1), "["), "]")
		c, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			t.Errorf("%s: dialing it: %v", addr, err)
		} else {
			c.Close()
		}
		ln.Close()
	}
}
