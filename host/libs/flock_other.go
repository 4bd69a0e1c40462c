//go:build !unix

package libs

import "os"

// flock does nothing where there is no flock: runs at once may race.
func flock(*os.File) error { return nil }
