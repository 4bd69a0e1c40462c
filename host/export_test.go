package host

// LibraryNamesRead reports whether r has read the standard library's
// names (libraryNames), for the tests of package host_test.
func LibraryNamesRead(r *Runtime) bool { return r.library != nil }
