// Package config loads rooda's configuration: the built-in tier, the global
// and workspace rooda-config.yml files, ROODA_* environment variables and
// command-line overrides, merged in that order.
//
// Every value remembers where it came from (its Source), so that dry-run,
// "rooda info" and "rooda config show" can say why a setting has the value
// it has. Loading fails fast: a type error, an unknown key or a value out
// of range is reported with its file and line before anything runs.
package config
