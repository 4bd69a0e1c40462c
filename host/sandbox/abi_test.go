package sandbox

import "testing"

// needsABI skips a test on a kernel whose Landlock is older than abi,
// with the suite's SKIPPED: marker and the kernel's ABI.
func needsABI(t *testing.T, abi int, what string) {
	t.Helper()
	if ABI() < abi {
		t.Skipf("SKIPPED: this kernel (%s) offers Landlock ABI %d; %s needs %d", Kernel(), ABI(), what, abi)
	}
}
