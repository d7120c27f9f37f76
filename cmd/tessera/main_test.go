package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"demo", "-out", dir, "-zarr-size", "1500"}, &out, &errb); code != 0 {
		t.Fatalf("demo exit %d: %s", code, errb.String())
	}
	// The values Dask's tutorial prints for these examples, from the
	// formulas themselves.
	for _, want := range []string{
		"computed:   3",
		"eager add(square(x), square(y)) = 13, delayed = 13",
		"sum = 536887296", // Σ_{i<32768} (i+1) = 32768·32769/2
		// The array examples: ones, sin(1) = 0.841471, max 1 per image.
		"computed: [1 1 1 1 1 1 1 1 1 1]",
		"[[0.841471 0.841471 0.841471 0.841471 0.841471]\n [0.841471",
		"max over axes (1, 2): [1 1 1]; sum of the normalised images: 3e+06",
		"eager and chunked agree",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	// The zarr store stays in -out, where the README says, and reads back
	// as the written image: 1500² values in 0–99.
	store := filepath.Join(dir, "large_example_image.zarr")
	if !strings.Contains(out.String(), "written with ToZarr to "+store) {
		t.Errorf("demo does not name its store %s:\n%s", store, out.String())
	}
	if _, err := os.Stat(filepath.Join(store, ".zarray")); err != nil {
		t.Errorf("zarr store: %v", err)
	}
	for _, name := range []string{"sum-squares.*", "array-normalize.*"} {
		pics, _ := filepath.Glob(filepath.Join(dir, name))
		if len(pics) != 1 {
			t.Fatalf("want one picture %s in %s, got %v", name, dir, pics)
		}
		b, err := os.ReadFile(pics[0])
		if err != nil || len(b) == 0 {
			t.Fatalf("picture %s: %v (%d bytes)", pics[0], err, len(b))
		}
	}
}

func TestBadUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown workload", []string{"bench", "nope"}, 2, `unknown workload "nope"`},
		{"unknown scheduler", []string{"bench", "-schedulers", "gpu", "delayed"}, 2, `unknown scheduler "gpu"`},
		{"distributed without address", []string{"bench", "-schedulers", "distributed=", "delayed"}, 2, "distributed=HOST:PORT"},
		{"scheduler bad flag", []string{"scheduler", "-allowed-failures", "0"}, 2, "-allowed-failures"},
		{"worker without scheduler", []string{"worker"}, 2, "-scheduler"},
		{"worker bad size", []string{"worker", "-scheduler", "h:1", "-memory-limit", "lots"}, 2, "-memory-limit"},
		{"certs without dir", []string{"certs"}, 2, "-dir"},
		{"bad reps", []string{"bench", "-reps", "0"}, 2, "-reps"},
		{"bad flag", []string{"bench", "-bogus"}, 2, "bogus"},
		{"demo args", []string{"demo", "extra"}, 2, "unexpected arguments"},
		{"bad flag shows usage", []string{"certs", "-bogus"}, 2, "usage: tessera certs"},
		{"help unknown command", []string{"help", "frobnicate"}, 2, `unknown command "frobnicate"`},
		{"version args", []string{"version", "extra"}, 2, "unexpected arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("got exit %d, stderr %q; want exit %d mentioning %q", code, errb.String(), tc.code, tc.msg)
			}
		})
	}
}

// TestDemoZarrSize: a bad -zarr-size is refused before the demo does any
// work: exit 2, the bounds named, and not even the -out folder made.
func TestDemoZarrSize(t *testing.T) {
	for _, size := range []string{"-1", "0", "20001", "1000000000"} {
		t.Run(size, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "demo")
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"demo", "-out", dir, "-zarr-size", size}, &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), "-zarr-size "+size+": want 1 to 20000") {
				t.Errorf("got exit %d, stderr %q; want 2 and the bounds", code, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("the demo started: %q", out.String())
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("-out folder %s exists (%v); want nothing made", dir, err)
			}
		})
	}
}

// placeholders are the words a flag's usage may name its value by (the
// flag package takes the first `quoted` word of the usage, or the type):
// one word each. A placeholder outside this list is most likely a
// backquoted phrase of the usage text taken for one, as
// "-schedulers tessera certs" was; add a real new one here.
var placeholders = map[string]bool{
	"int": true, "string": true, "float": true, "duration": true, "value": true, "uint": true,
	"list": true, "folder": true, "directory": true, "file": true, "name": true, "host:port": true, "N": true,
	"account": true, "partition": true, "option": true, "line": true, "program": true, // tessera slurm
}

// TestHelp runs every command's -h, -help and --help: exit 0, the usage
// on stdout and nothing on stderr; every flag line of the usage names its
// value by one word of placeholders, so that no backquoted phrase of a
// usage string has become a placeholder. "help COMMAND" prints the same.
func TestHelp(t *testing.T) {
	var names []string
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, h := range []string{"-h", "-help", "--help"} {
			t.Run(name+" "+h, func(t *testing.T) {
				var out, errb bytes.Buffer
				if code := run(context.Background(), []string{name, h}, &out, &errb); code != 0 || errb.Len() != 0 {
					t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errb.String())
				}
				if !strings.HasPrefix(out.String(), "usage: tessera "+name) {
					t.Errorf("stdout does not start with the usage:\n%s", out.String())
				}
				checkFlagLines(t, out.String())
				var help bytes.Buffer
				if code := run(context.Background(), []string{"help", name}, &help, io.Discard); code != 0 || help.String() != out.String() {
					t.Errorf("help %s: exit %d, output differs from %s %s:\n%s", name, code, name, h, help.String())
				}
			})
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "usage: tessera <command>") || errb.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
		for _, name := range names {
			if !strings.Contains(out.String(), "\n  "+name+" ") {
				t.Errorf("%q: the command list lacks %s", args, name)
			}
		}
	}
}

// checkFlagLines checks the flag lines of a usage text: "  -name" alone
// or followed by one placeholder word, up to the tab or line end.
func checkFlagLines(t *testing.T, usage string) {
	t.Helper()
	flags := 0
	for _, line := range strings.Split(usage, "\n") {
		if !strings.HasPrefix(line, "  -") {
			continue
		}
		flags++
		head, _, _ := strings.Cut(line, "\t")
		f := strings.Fields(head)
		switch {
		case len(f) > 2:
			t.Errorf("flag line %q: placeholder %q is more than one word", line, strings.Join(f[1:], " "))
		case len(f) == 2 && !placeholders[f[1]]:
			t.Errorf("flag line %q: placeholder %q is not a known placeholder word", line, f[1])
		}
		if strings.Contains(head, "`") {
			t.Errorf("flag line %q: a backquote in the placeholder", line)
		}
	}
	if flags == 0 && !strings.Contains(usage, "tessera version") {
		t.Errorf("no flag lines in:\n%s", usage)
	}
}

// TestVersionText formats build information of each kind the go command
// writes; the oracle is the lines written out by hand.
func TestVersionText(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const mod = "github.com/tessera-go/tessera"
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"checkout, modified", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "(devel)"},
			Settings: vcs("vcs", "git", "vcs.revision", "3546f02c0ffee", "vcs.time", "2026-11-24T02:59:00Z", "vcs.modified", "true")},
			true, "tessera (devel)\nrevision 3546f02c0ffee (modified: the work tree had uncommitted changes)\ncommit time 2026-11-24T02:59:00Z\ngo go1.26.0\n"},
		{"tagged, clean", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "v0.3.0"},
			Settings: vcs("vcs.revision", "abc", "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "false")},
			true, "tessera v0.3.0\nrevision abc\ncommit time 2026-01-02T03:04:05Z\ngo go1.26.0\n"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "(devel)"}},
			true, "tessera (devel)\nrevision unknown (not built from a VCS checkout, or with -buildvcs=false)\ncommit time unknown\ngo go1.26.0\n"},
		{"linked into another module", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}},
			true, "tessera (devel)\nmain module example.com/app\nrevision unknown (not built from a VCS checkout, or with -buildvcs=false)\ncommit time unknown\n"},
		{"no build info", nil, false, "tessera (unknown): the binary carries no build information\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.bi, tc.ok); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestVersion runs the command in this test binary, whose build
// information the go command wrote: the first line names the module
// version as ReadBuildInfo has it.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	bi, ok := debug.ReadBuildInfo()
	want := "tessera (unknown)"
	if ok {
		want = "tessera " + bi.Main.Version
		if bi.Main.Version == "" {
			want = "tessera (devel)"
		}
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); first != want && !strings.HasPrefix(first, want+":") {
		t.Errorf("first line %q, want %q", first, want)
	}
	if !strings.Contains(out.String(), "revision ") && ok {
		t.Errorf("no revision line:\n%s", out.String())
	}
}
