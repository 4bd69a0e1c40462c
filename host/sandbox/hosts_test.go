package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestHostAllows(t *testing.T) {
	cases := []struct {
		entry string
		host  string
		port  int
		want  bool
	}{
		{"api.anthropic.com", "api.anthropic.com", 443, true},
		{"api.anthropic.com", "API.Anthropic.com.", 80, true},
		{"api.anthropic.com", "api.anthropic.com", 8443, false},
		{"api.anthropic.com", "evil-api.anthropic.com", 443, false},
		{"*.npmjs.org", "registry.npmjs.org", 443, true},
		{"*.npmjs.org", "npmjs.org", 443, false},
		{"*.npmjs.org", "evilnpmjs.org", 443, false},
		{"127.0.0.1:8080", "127.0.0.1", 8080, true},
		{"127.0.0.1:8080", "127.0.0.1", 443, false},
		{"127.0.0.1:8080", "127.0.0.2", 8080, false},
		{"[::1]:8080", "::1", 8080, true},
	}
	for _, c := range cases {
		h, err := ParseHost(c.entry)
		if err != nil {
			t.Fatalf("%s: %v", c.entry, err)
		}
		if got := h.allows(c.host, c.port); got != c.want {
			t.Errorf("%s allows %s:%d = %t, want %t", c.entry, c.host, c.port, got, c.want)
		}
	}
	for _, bad := range []string{"", "*", "a:0", "a:99999", "http://x", "a b"} {
		if _, err := ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) took it", bad)
		}
	}
	for entry, loop := range map[string]bool{"127.0.0.1:8080": true, "localhost:1": true, "[::1]:2": true, "127.0.0.1": false, "example.com:80": false} {
		if h, _ := ParseHost(entry); h.Loopback() != loop {
			t.Errorf("%s: Loopback %t", entry, !loop)
		}
	}
}

// TestProxy: through the proxy's unix socket, a plain request and a
// CONNECT to the allowed server go through, the same to another port
// are answered 403 and counted, and onRefuse hears of each.
func TestProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	allowed, _ := ParseHosts([]string{srv.Listener.Addr().String()})
	var told []string
	p, err := StartProxy(t.TempDir(), allowed, func(host string, port int) { told = append(told, net.JoinHostPort(host, strconv.Itoa(port))) })
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{
		Proxy:       func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy") },
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return net.Dial("unix", p.Socket()) },
	}}
	get := func(u string) (int, string) {
		res, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := get(srv.URL + "/x"); code != 200 || body != "hello /x" {
		t.Errorf("plain GET: %d %q", code, body)
	}
	if code, body := get(other.URL + "/"); code != 403 || !strings.Contains(body, "not in sandbox_hosts") {
		t.Errorf("plain GET elsewhere: %d %q", code, body)
	}
	for _, target := range []string{srv.Listener.Addr().String(), other.Listener.Addr().String()} {
		code, body := connect(t, p.Socket(), target)
		if target == srv.Listener.Addr().String() && (code != 200 || body != "hello /y") || target != srv.Listener.Addr().String() && code != 403 {
			t.Errorf("CONNECT %s: %d %q", target, code, body)
		}
	}
	refused := p.Close()
	_, port, _ := net.SplitHostPort(other.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	if fmt.Sprint(refused) != fmt.Sprint([]Refusal{{"127.0.0.1", n, 2}}) || len(told) != 2 {
		t.Errorf("refused %v, told %v", refused, told)
	}
}

// connect sends CONNECT target through the proxy at socket and, if it
// is let through, a GET /y in the tunnel; the CONNECT's status and the
// GET's body.
func connect(t *testing.T, socket, target string) (int, string) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil || res.StatusCode != 200 {
		return res.StatusCode, ""
	}
	fmt.Fprintf(c, "GET /y HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	res, err = http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	return 200, string(body)
}
