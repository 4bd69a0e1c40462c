package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// TestProxy: through a listener the proxy serves, a plain request and a
// CONNECT to the allowed server go through, the same to another port
// are answered 403 and counted, and onRefuse hears of each.
func TestProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	allowed, _ := ParseHosts([]string{srv.Listener.Addr().String()})
	var told []string
	p, err := StartProxy(allowed, func(host string, port int) { told = append(told, net.JoinHostPort(host, strconv.Itoa(port))) })
	if err != nil {
		t.Fatal(err)
	}
	addr := serveProxy(t, p)
	client := &http.Client{Transport: &http.Transport{
		Proxy: func(*http.Request) (*url.URL, error) { return url.Parse("http://" + addr) },
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
		code, body := connect(t, addr, target)
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

// serveProxy has p serve a listener of the test's own, as it serves the
// one the trampoline hands it; its address.
func serveProxy(t *testing.T, p *Proxy) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.serveListener(ln, proxyTarget)
	return ln.Addr().String()
}

// TestProxyClosesUpstream: Close ends the proxy's connections to the
// allowed hosts, the idle ones kept for the next request too.
func TestProxyClosesUpstream(t *testing.T) {
	var open atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "up") }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	allowed, _ := ParseHosts([]string{srv.Listener.Addr().String()})
	p, err := StartProxy(allowed, nil)
	if err != nil {
		t.Fatal(err)
	}
	proxy := "http://" + serveProxy(t, p)
	client := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return url.Parse(proxy) }}}
	res, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	client.CloseIdleConnections()
	p.Close()
	for deadline := time.Now().Add(5 * time.Second); open.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections to the allowed host outlive the proxy", open.Load())
		}
	}
}

// connect sends CONNECT target through the proxy at addr and, if it is
// let through, a GET /y in the tunnel; the CONNECT's status and the
// GET's body.
func connect(t *testing.T, addr, target string) (int, string) {
	c, err := net.Dial("tcp", addr)
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

// BenchmarkProxyStartClose is what sandbox_hosts' proxy costs an
// iteration: started, then closed with nothing through it
// (docs/performance.md).
func BenchmarkProxyStartClose(b *testing.B) {
	hosts, err := ParseHosts([]string{"127.0.0.1:9"})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := StartProxy(hosts, nil)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
