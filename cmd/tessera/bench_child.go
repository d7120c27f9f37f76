package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
)

// childArgs is the command line of a child that measures w on scheduler
// s as this run would: same repetitions, check and stream size, one JSON
// line out.
func (b *bencher) childArgs(w *workloads.Workload, s string) []string {
	if w.BuildOnly {
		s = "sync" // ignored: the child times Build alone
	}
	args := []string{"bench", "-child", "-json", "-reps", strconv.Itoa(b.cfg.reps), "-schedulers", s,
		"-stream-gib", strconv.FormatFloat(b.cfg.streamGiB, 'g', -1, 64),
		"-stream-chunk-mib", strconv.FormatFloat(b.cfg.streamChunkMiB, 'g', -1, 64)}
	if !b.cfg.check {
		args = append(args, "-nocheck")
	}
	return append(args, w.BenchName)
}

// inChild measures w on scheduler s in a child process (this binary
// re-executed) whose environment is this one's with env ("NAME=value")
// replacing variables of those names. Its standard error passes through.
func (b *bencher) inChild(ctx context.Context, w *workloads.Workload, s string, env ...string) (*benchResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot re-execute itself: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, b.childArgs(w, s)...)
	cmd.Env = childEnviron(env...)
	cmd.Stderr = b.stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("child process %s: %w", strings.Join(env, " "), err)
	}
	rows, err := parseResults(out.Bytes(), "child output")
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || rows[0].Workload != w.BenchName {
		return nil, fmt.Errorf("child process printed %d results, want one of %s: %q", len(rows), w.BenchName, out.String())
	}
	return &rows[0], nil
}

// gcCheck measures w on s under GOGC=100, then under GOGC=off, each in a
// child of its own, and returns the first with the second as GCOff and
// the ratio of the medians.
//
// The GOGC=off child gets a GOMEMLIMIT of three quarters of the
// machine's memory unless one is set: a workload that allocates without
// bound would otherwise take the machine down; if the limit is reached
// the collector runs, and the child's gc_cycles says so.
func (b *bencher) gcCheck(ctx context.Context, w *workloads.Workload, s string) (*benchResult, error) {
	on, err := b.inChild(ctx, w, s, "GOGC=100")
	if err != nil {
		return nil, err
	}
	off, err := b.inChild(ctx, w, s, offEnv()...)
	if err != nil {
		return nil, err
	}
	// The runtime's own report is the check that the variable reached
	// it (a GOGC the runtime cannot parse is ignored, silently).
	if on.GOGC != "100" || off.GOGC != "off" {
		return nil, fmt.Errorf("the children ran under GOGC %q and %q, want 100 and off", on.GOGC, off.GOGC)
	}
	r := *on
	r.GCOff = off
	r.LoadEnd = off.LoadEnd
	if off.MedianS > 0 {
		ratio := round3(on.MedianS / off.MedianS)
		r.GCRatio = &ratio
	}
	return &r, nil
}

// offEnv is the environment of the GOGC=off child.
func offEnv() []string {
	env := []string{"GOGC=off"}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := memTotal(); total > 0 {
			env = append(env, "GOMEMLIMIT="+strconv.FormatInt(total/4*3, 10))
		}
	}
	return env
}

// memTotal is MemTotal of /proc/meminfo in bytes, 0 where unknown.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
