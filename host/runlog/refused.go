package runlog

import (
	"fmt"
	"net"
	"strconv"

	"rooda/host/sandbox"
	"rooda/host/shown"
)

// refusedLine is runs show's line of the connections an iteration's
// proxy refused, or a loop's in all (sandbox_hosts), each host:port with
// its count; "" for none.
func refusedLine(refused []sandbox.Refusal) string {
	if len(refused) == 0 {
		return ""
	}
	var items []string
	for _, r := range refused {
		items = append(items, fmt.Sprintf("%s (%d)", net.JoinHostPort(r.Host, strconv.Itoa(r.Port)), r.Count))
	}
	return "Refused by the proxy: " + shown.List(items, listLimit, "hosts") + "\n"
}

// refusedOf are the refusals of an iteration's spec.
func refusedOf(spec *sandbox.Spec) []sandbox.Refusal {
	if spec == nil || spec.Net == nil {
		return nil
	}
	return spec.Net.Refused
}
