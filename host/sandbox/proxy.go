package sandbox

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Proxy is the one way out of an agent's network namespace: an HTTP
// proxy, outside the namespace, that lets CONNECT and plain HTTP
// requests through to the hosts it allows and answers the rest 403,
// counting them. It has no socket of its own that another process could
// find: it serves only the listeners the trampoline makes inside the
// namespace and hands it over Handoff, a socket pair's end that the
// trampoline alone inherits (forward.go).
type Proxy struct {
	hosts     []Host
	srv       *http.Server
	transport *http.Transport
	forward   *httputil.ReverseProxy
	onRefuse  func(host string, port int)
	handoff   *os.File

	mu      sync.Mutex
	refused []Refusal
	tunnels map[io.Closer]bool
	closed  bool
}

// dialTimeout bounds a connection to an allowed host; idleTimeout how
// long a connection to one is kept for the next plain request.
const (
	dialTimeout = 30 * time.Second
	idleTimeout = 30 * time.Second
)

// StartProxy starts a proxy that lets hosts through, and waits for the
// trampoline's listeners on Handoff; onRefuse, when set, is told of each
// refusal as it happens.
func StartProxy(hosts []Host, onRefuse func(host string, port int)) (*Proxy, error) {
	mine, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	p := &Proxy{hosts: hosts, onRefuse: onRefuse, handoff: theirs, tunnels: map[io.Closer]bool{}}
	dialer := &net.Dialer{Timeout: dialTimeout}
	p.transport = &http.Transport{DialContext: dialer.DialContext, IdleConnTimeout: idleTimeout}
	p.forward = &httputil.ReverseProxy{
		// The request's absolute URI is where it goes; nothing is added.
		Rewrite:   func(*httputil.ProxyRequest) {},
		Transport: p.transport,
		ErrorLog:  nopLog,
	}
	p.srv = &http.Server{Handler: p, ErrorLog: nopLog, ReadHeaderTimeout: dialTimeout}
	p.track(mine)
	go p.takeListeners(mine)
	return p, nil
}

// Handoff is the end of the proxy's socket pair that the trampoline
// inherits (process.Command's ExtraFiles) and sends its listeners over.
// It is close-on-exec in rooda: no other child inherits it.
func (p *Proxy) Handoff() *os.File { return p.handoff }

// Close stops the proxy, its tunnels and its connections to allowed
// hosts with it, and returns what it refused.
func (p *Proxy) Close() []Refusal {
	p.srv.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	refused := p.refused
	p.mu.Unlock()
	p.handoff.Close()
	// A request still running may yet put one back: idleTimeout ends it.
	p.transport.CloseIdleConnections()
	return refused
}

// ServeHTTP lets through a CONNECT or an absolute-URI request to an
// allowed host, and refuses all else.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		host, port := splitHostPort(r.Host, 443)
		if p.allowed(w, host, port) {
			p.tunnel(w, net.JoinHostPort(host, strconv.Itoa(port)))
		}
	case r.URL.IsAbs() && r.URL.Host != "":
		def := 80
		if r.URL.Scheme == "https" {
			def = 443
		}
		host, port := splitHostPort(r.URL.Host, def)
		if p.allowed(w, host, port) {
			p.forward.ServeHTTP(w, r)
		}
	default:
		http.Error(w, "rooda sandbox proxy: only CONNECT and absolute-URI requests go through", http.StatusBadRequest)
	}
}

// allowed says whether host:port is allowed; if not, it answers 403 and
// counts the refusal.
func (p *Proxy) allowed(w http.ResponseWriter, host string, port int) bool {
	if p.allows(host, port) {
		return true
	}
	p.refuse(host, port)
	http.Error(w, fmt.Sprintf("rooda sandbox: %s is not in sandbox_hosts", net.JoinHostPort(host, strconv.Itoa(port))), http.StatusForbidden)
	return false
}

// allows says whether an entry lets host:port through.
func (p *Proxy) allows(host string, port int) bool {
	for _, h := range p.hosts {
		if h.allows(host, port) {
			return true
		}
	}
	return false
}

// refuse counts a refusal of host:port and tells onRefuse.
func (p *Proxy) refuse(host string, port int) {
	p.mu.Lock()
	found := false
	for i := range p.refused {
		if r := &p.refused[i]; r.Host == host && r.Port == port {
			r.Count++
			found = true
		}
	}
	if !found {
		p.refused = append(p.refused, Refusal{Host: host, Port: port, Count: 1})
	}
	p.mu.Unlock()
	if p.onRefuse != nil {
		p.onRefuse(host, port)
	}
}

// tunnel connects the client to addr and copies both ways until either
// side closes.
func (p *Proxy) tunnel(w http.ResponseWriter, addr string) {
	up, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		http.Error(w, "rooda sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	client, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(client, up) {
		return
	}
	defer p.untrack(client, up)
	io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n")
	pipe(client, buf.Reader, up)
}

// track keeps a tunnel's two ends, or a listener, for Close; false, all
// closed, when the proxy is closed already.
func (p *Proxy) track(conns ...io.Closer) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		if p.closed {
			c.Close()
			continue
		}
		p.tunnels[c] = true
	}
	return !p.closed
}

func (p *Proxy) untrack(conns ...io.Closer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.tunnels, c)
		c.Close()
	}
}

// pipe copies a (read through r, which may buffer it) to b and b to a,
// until both directions end, closing the writing half of each side whose
// source ended so that the other sees the end.
func pipe(a net.Conn, r io.Reader, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(b, r)
		closeWrite(b)
	}()
	io.Copy(a, b)
	closeWrite(a)
	wg.Wait()
}

// closeWrite ends c's writing half, or c, where it has no halves.
func closeWrite(c net.Conn) {
	if h, ok := c.(interface{ CloseWrite() error }); ok {
		h.CloseWrite()
		return
	}
	c.Close()
}

// splitHostPort splits "host:port", or takes def for a host without a
// port; the host lower-case, without brackets.
func splitHostPort(hostport string, def int) (string, int) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host, p = hostport, ""
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		port = def
	}
	return strings.ToLower(strings.Trim(host, "[]")), port
}

// nopLog drops net/http's messages: a client that goes away mid-request
// is the agent's business, not the log's.
var nopLog = log.New(io.Discard, "", 0)
