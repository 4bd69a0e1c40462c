//go:build !unix

package files

import "io/fs"

// nonBlocking is nothing where there are no named pipes to block on.
const nonBlocking = 0

// keepOwner does nothing where files have no owner rooda may keep.
func keepOwner(string, fs.FileInfo) error { return nil }
