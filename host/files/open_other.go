//go:build !unix

package files

// nonBlocking is nothing where there are no named pipes to block on.
const nonBlocking = 0
