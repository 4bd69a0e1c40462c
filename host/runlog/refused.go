package runlog

import (
	"fmt"
	"net"
	"strconv"

	"rooda/host/sandbox"
	"rooda/host/shown"
)

// refusedLine is runs show's line of the connections the iteration's
// proxy refused (sandbox_hosts), each host:port with its count; "" for
// none.
func refusedLine(spec *sandbox.Spec) string {
	if spec == nil || spec.Net == nil || len(spec.Net.Refused) == 0 {
		return ""
	}
	var items []string
	for _, r := range spec.Net.Refused {
		items = append(items, fmt.Sprintf("%s (%d)", net.JoinHostPort(r.Host, strconv.Itoa(r.Port)), r.Count))
	}
	return "Refused by the proxy: " + shown.List(items, listLimit, "hosts") + "\n"
}
