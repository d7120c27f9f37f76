package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/sched/distributed"
)

// TestMain lets the test binary stand in for tessera when chunktune
// re-executes itself (a child gets childEnv set and runs run() on its
// arguments instead of the tests) and when a local cluster starts
// workers.
func TestMain(m *testing.M) {
	// The workers of the local clusters that bench -schedulers
	// distributed starts are this test binary, as they are tessera.
	distributed.MaybeWorker()
	if os.Getenv(childEnv) == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestChunktune(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the zarr stores go there
	tests := []struct {
		name     string
		args     []string
		rows     []string // "chunks scheduler" of each table row, in order
		wantBest string
	}{
		{"randint", []string{"-workload", "randint-sum", "-size", "24", "-chunks", "12,6", "-schedulers", "sync,threads", "-reps", "2"},
			[]string{"12 sync", "12 threads", "6 sync", "6 threads"}, ""},
		{"sin-col", []string{"-workload", "sin-col", "-size", "64", "-chunks", "32,16,100", "-schedulers", "threads", "-reps", "1"},
			[]string{"32 threads", "16 threads", "64 threads"}, ""},
		{"zarr", []string{"-workload", "zarr-sq-sum", "-size", "40", "-chunks", "20,8", "-schedulers", "sync", "-reps", "1"},
			[]string{"20 sync", "8 sync"}, ""},
	}
	row := regexp.MustCompile(`^\s*(\d+)\s+(\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+|\+Inf)\s+([\d.]+)$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			png := filepath.Join(t.TempDir(), "tune.png")
			var out, errb bytes.Buffer
			args := append([]string{"chunktune", "-plot", png}, tt.args...)
			if code := run(context.Background(), args, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var got []string
			for _, l := range strings.Split(out.String(), "\n") {
				m := row.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				got = append(got, m[1]+" "+m[2])
				if m[3] == "0" || m[6] == "0.0" {
					t.Errorf("row %q: no tasks or no peak RSS", l)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.rows, ",") {
				t.Errorf("table rows %q, want %q\n%s", got, tt.rows, out.String())
			}
			if !strings.Contains(out.String(), "recommended chunks: ") {
				t.Errorf("no recommendation:\n%s", out.String())
			}
			if !strings.Contains(errb.String(), "chunktune: [1/") {
				t.Errorf("no progress lines on stderr: %q", errb.String())
			}
			b, err := os.ReadFile(png)
			if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
				t.Errorf("plot %s: %v, %d bytes", png, err, len(b))
			}
		})
	}
}

func TestRecommend(t *testing.T) {
	tests := []struct {
		name string
		rows []tuneRow
		want int
	}{
		{"fastest", []tuneRow{{Chunks: 500, MedianS: 2}, {Chunks: 100, MedianS: 0.5}, {Chunks: 50, MedianS: 0.7}}, 100},
		{"tie to larger", []tuneRow{{Chunks: 200, MedianS: 0.204}, {Chunks: 100, MedianS: 0.200}, {Chunks: 50, MedianS: 0.201}}, 200},
		{"no tie beyond 5%", []tuneRow{{Chunks: 200, MedianS: 0.22}, {Chunks: 100, MedianS: 0.20}}, 100},
	}
	for _, tt := range tests {
		if got := recommend(tt.rows); got.Chunks != tt.want {
			t.Errorf("%s: recommended %d, want %d", tt.name, got.Chunks, tt.want)
		}
	}
}

func TestChunktuneUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"workload", []string{"chunktune", "-workload", "nope"}, `unknown workload "nope"`},
		{"chunks", []string{"chunktune", "-chunks", "10,x"}, "-chunks"},
		{"scheduler", []string{"chunktune", "-schedulers", "gpu"}, `unknown scheduler "gpu"`},
		{"reps", []string{"chunktune", "-reps", "0"}, "-reps"},
		{"args", []string{"chunktune", "extra"}, "unexpected arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("exit %d, stderr %q; want 2 mentioning %q", code, errb.String(), tc.msg)
			}
		})
	}
}
