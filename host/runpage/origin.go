package runpage

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// onlyThisServer answers a request only when it is meant for this server
// and comes from its own pages (or from no page at all). The records
// hold every prompt and output, keys pasted into them included, so two
// ways a web page elsewhere could read them are closed:
//
//   - DNS rebinding: a page of evil.example whose name is made to resolve
//     to 127.0.0.1 reaches this server as its own origin, and its
//     requests say Host: evil.example. Only hosts no one else can make
//     point here are answered: localhost, an IP address (an address
//     resolves to nothing else; 127.0.0.1, [::1], or the machine's own
//     where --addr serves others), and the name --addr gave.
//   - A page of another site that embeds or fetches the pages: browsers
//     say so in Sec-Fetch-Site, and only a person following a link
//     (a navigation to a document) is let through from another site.
//
// servedHost is the host of the address served (--addr).
func onlyThisServer(servedHost string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if host := hostName(r.Host); !knownHost(host, servedHost) {
			http.Error(w, fmt.Sprintf("rooda runs serve answers only requests for localhost, an IP address such as 127.0.0.1, or the host --addr names, not for %q: a page of another site could read the records through it. Open the address rooda runs serve printed, or serve with --addr %s:PORT to be reached by that name.", host, host),
				http.StatusMisdirectedRequest)
			return
		}
		if !fromThisServer(r) {
			http.Error(w, "rooda runs serve does not answer another site's page: open the address rooda runs serve printed yourself.", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostName is the host of a Host header, without its port or the
// brackets of an IPv6 address.
func hostName(hostPort string) string {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		host = hostPort
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// knownHost reports whether a request for host can only have been meant
// for this server.
func knownHost(host, servedHost string) bool {
	switch {
	case host == "":
		return false
	case strings.EqualFold(host, "localhost"), net.ParseIP(host) != nil:
		return true
	}
	return strings.EqualFold(host, servedHost)
}

// fromThisServer reports whether a browser says the request comes from
// this server's own pages, from the user (typed, a bookmark), or is a
// navigation to a page from a link elsewhere. A client that says nothing
// (curl, an older browser) is answered: Sec-Fetch-* is only what a
// browser adds.
func fromThisServer(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
}
