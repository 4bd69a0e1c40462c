package config

import (
	"slices"

	"gopkg.in/yaml.v3"

	"rooda/host/files"
)

// LogFormatOf is the log format ("text" or "json") for rooda's own
// messages when the configuration may not load: the error that ends
// rooda may be that it does not (a YAML error, a bad value, a flag the
// command line could not parse). It is the log_format of the highest tier
// that can be read and sets one, highest first the flags, the
// environment, the workspace file and the global file; else text. For a
// configuration that loads, that is its loop.log_format. A file counts if
// its log_format can be read, whatever is wrong elsewhere in it: a
// program that asked for JSON must not get a line of text for its error.
func LogFormatOf(opts Options) string {
	// Without a working directory the files cannot be found; the flags
	// and the environment still say what they say.
	opts, _ = opts.withDefaults()
	for _, tier := range []func() string{opts.flagLogFormat, opts.envLogFormat, opts.filesLogFormat} {
		if format := tier(); format != "" {
			return format
		}
	}
	return "text"
}

// flagLogFormat is the last valid --log-format given, or "".
func (o Options) flagLogFormat() string {
	for _, fl := range slices.Backward(o.Flags) {
		if row, _ := flagOf(fl.Name); row == LogFormat.Setting && isLogFormat(fl.Value) {
			return fl.Value
		}
	}
	return ""
}

// envLogFormat is a valid ROODA_LOOP_LOG_FORMAT, or "".
func (o Options) envLogFormat() string {
	if _, value, err := envValue(o.LookupEnv, LogFormat.Setting); err == nil && isLogFormat(value) {
		return value
	}
	return ""
}

// filesLogFormat is the valid loop.log_format of the workspace file,
// else of the global one, else "".
func (o Options) filesLogFormat() string {
	list, _ := o.files()
	for _, f := range slices.Backward(list) {
		if format := f.logFormat(); isLogFormat(format) {
			return format
		}
	}
	return ""
}

// logFormat reads the file's loop.log_format alone, leniently: unknown
// keys and wrong types elsewhere do not hide it. A file that cannot be
// read or parsed sets none.
func (f file) logFormat() (format string) {
	defer func() {
		// yaml.v3 has panicked on hostile input before (see Decode).
		if recover() != nil {
			format = ""
		}
	}()
	data, err := files.Read(f.path, files.ConfigLimit)
	if err != nil {
		return ""
	}
	var doc struct {
		Loop struct {
			LogFormat string `yaml:"log_format"`
		} `yaml:"loop"`
	}
	yaml.Unmarshal(data, &doc) // a type error elsewhere still fills what it can
	return doc.Loop.LogFormat
}

func isLogFormat(s string) bool { return slices.Contains(logFormats, s) }
