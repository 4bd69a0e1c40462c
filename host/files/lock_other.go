//go:build !unix

package files

import "os"

// TryLock does nothing where there is no flock: runs at once may race.
func TryLock(*os.File) (busy bool, err error) { return false, nil }
