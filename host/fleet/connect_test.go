package fleet

import "testing"

// TestStoreTokenOnlyToThisMachine: the store's token goes only to a
// server on a loopback address, never to one elsewhere that a URL names.
func TestStoreTokenOnlyToThisMachine(t *testing.T) {
	for url, want := range map[string]bool{
		"nats://127.0.0.1:4222":         true,
		"nats://localhost:4222":         true,
		"nats://[::1]:4222":             true,
		"nats://10.0.0.5:4222":          false,
		"nats://fleet.example.org:4222": false,
		"tls://192.168.1.2:4222":        false,
		"nats://%zz":                    false,
	} {
		if got := onThisMachine(url); got != want {
			t.Errorf("onThisMachine(%q) = %v, want %v", url, got, want)
		}
	}
}
