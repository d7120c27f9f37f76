package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// runVersion is `tessera version`: the module version and the VCS
// revision, time and dirty flag that the go command stamped into the
// binary (runtime/debug.ReadBuildInfo).
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "tessera version")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tessera version: unexpected arguments %q\n", fs.Args())
		return 2
	}
	fmt.Fprint(stdout, versionText(debug.ReadBuildInfo()))
	return 0
}

// versionText formats build information, ok false when the binary has
// none (built without module support). The first line is always
// "tessera VERSION": "(devel)" when built from a checkout that the go
// command could not version, a module version or pseudo-version
// otherwise. Then the revision, with "(modified)" when the work tree had
// uncommitted changes, the commit time, and the Go version. A field the
// go command did not record (-buildvcs=false, no VCS, go run of a file)
// is said to be unknown rather than left out, so that scripts see the
// same lines.
func versionText(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "tessera (unknown): the binary carries no build information\n"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tessera %s\n", version)
	if p := bi.Main.Path; p != "" && p != "github.com/tessera-go/tessera" {
		// Linked into another program: say whose build this is.
		fmt.Fprintf(&b, "main module %s\n", p)
	}
	rev := settings["vcs.revision"]
	switch {
	case rev == "":
		b.WriteString("revision unknown (not built from a VCS checkout, or with -buildvcs=false)\n")
	case settings["vcs.modified"] == "true":
		fmt.Fprintf(&b, "revision %s (modified: the work tree had uncommitted changes)\n", rev)
	default:
		fmt.Fprintf(&b, "revision %s\n", rev)
	}
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(&b, "commit time %s\n", t)
	} else {
		b.WriteString("commit time unknown\n")
	}
	if bi.GoVersion != "" {
		fmt.Fprintf(&b, "go %s\n", bi.GoVersion)
	}
	return b.String()
}
