package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"demo", "-out", dir, "-zarr-size", "1500"}, &out, &errb); code != 0 {
		t.Fatalf("demo exit %d: %s", code, errb.String())
	}
	// The values the seed tutorial prints, from the formulas themselves.
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

func TestBenchJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"bench", "-json", "-reps", "1", "-schedulers", "sync,threads", "delayed"}, &out, &errb)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines, got %d:\n%s", len(lines), out.String())
	}
	for i, sched := range []string{"sync", "threads"} {
		var r map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		// The fields and names of ../shared/bench/dask_baseline.py.
		if r["workload"] != "delayed_tree_65535" || r["scheduler"] != sched {
			t.Errorf("line %d: got workload %v scheduler %v", i, r["workload"], r["scheduler"])
		}
		sec, _ := r["seconds"].(float64)
		us, _ := r["us_per_task"].(float64)
		if sec <= 0 || us <= 0 {
			t.Errorf("line %d: seconds %v us_per_task %v", i, r["seconds"], r["us_per_task"])
		}
		if got, want := us, 1e6*sec/65535; got < want*0.99-0.001 || got > want*1.01+0.001 {
			t.Errorf("line %d: us_per_task %v, want 1e6·seconds/65535 = %v", i, got, want)
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
