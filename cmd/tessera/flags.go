package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlagSet returns the flag set of `tessera <name>`, whose usage is
// synopsis (the line after "usage: ") and the flag defaults, written to
// the set's output: parseFlags points that at stdout for -h, at stderr
// for a mistake.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("tessera "+name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. ok says whether the command goes on;
// when it does not, code is its exit status: 0 after -h, -help or --help
// (the usage was asked for, so it goes to stdout and is no failure), 2
// after a bad flag (the error and the usage on stderr).
//
// flag.Parse writes the usage before it returns flag.ErrHelp, so the
// output is held in a buffer until the outcome says where it belongs.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(buf.Bytes())
		return 0, false
	default:
		stderr.Write(buf.Bytes())
		return 2, false
	}
}
