//go:build !unix

package libs

import "os"

// tryLock does nothing where there is no flock: runs at once may race.
func tryLock(*os.File) (busy bool, err error) { return false, nil }
