// Package libs makes the Starlark libraries a configuration names
// loadable: a directory is used as it is; a git source is fetched (with
// the git program, through host/process like every process rooda starts)
// into the user's cache, its ref resolved to a commit, and the commit and
// a SHA-256 of the library's files pinned in rooda.lock beside the
// configuration. The hash is of a fresh checkout from git, never of the
// cache, which anyone may edit. Later runs use the cache and check the
// hash; moving the pin takes `rooda lib update`. A library's files are
// its own: Outside tells the loader which paths lead out of it.
package libs
