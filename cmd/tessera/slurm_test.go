package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched/distributed"
)

// TestSlurmCommand: help, a bad flag, and a machine without Slurm, where
// the command fails naming sbatch. The cluster itself is tested in
// sched/distributed (a fake Slurm, and a real one where CI starts it).
func TestSlurmCommand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"help", []string{"slurm", "-h"}, 0, "-partition", ""},
		{"bad flag", []string{"slurm", "-nodes", "3"}, 2, "", "-nodes"},
		{"bad size", []string{"slurm", "-memory", "much"}, 2, "", "-memory"},
		{"extra argument", []string{"slurm", "now"}, 2, "", "unexpected arguments"},
		{"no sbatch", []string{"slurm", "-workers", "1", "-dir", "DIR", "-host", "127.0.0.1"}, 1, "", "sbatch"},
		// No Slurm needed: nothing is submitted.
		{"print script", []string{"slurm", "-print-script", "-dir", "DIR", "-host", "127.0.0.1", "-partition", "short", "-time", "30m"}, 0,
			"#SBATCH --time=00:30:00\n#SBATCH --partition=short\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "no sbatch" || tc.name == "print script" {
				t.Setenv("PATH", t.TempDir())
				for i, a := range tc.args {
					if a == "DIR" {
						tc.args[i] = t.TempDir()
					}
				}
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.inStdout) || !strings.Contains(errb.String(), tc.inStderr) {
				t.Errorf("tessera %q: exit %d, stdout %q, stderr %q; want exit %d, %q in stdout, %q in stderr",
					tc.args, code, out.String(), errb.String(), tc.code, tc.inStdout, tc.inStderr)
			}
			if tc.name == "print script" && !strings.Contains(out.String(), " tessera-worker -scheduler 127.0.0.1:") {
				t.Errorf("the script starts no worker:\n%s", out.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer that one goroutine writes while another
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSlurmCommandReal runs `tessera slurm -workers 2` on the real Slurm
// that .ci/slurm-up.sh starts (TESSERA_SLURM=1), connects a second client
// the way the command's output says, computes a chunked sum on the
// workers, then interrupts the command: it exits 0 and squeue lists none
// of its jobs.
func TestSlurmCommandReal(t *testing.T) {
	if os.Getenv("TESSERA_SLURM") == "" {
		t.Skip("skipping the real-Slurm test: TESSERA_SLURM is not set (.ci/run sets it once .ci/slurm-up.sh has a one-node Slurm running)")
	}
	if out, err := exec.Command("sinfo", "--noheader").CombinedOutput(); err != nil {
		t.Skipf("skipping the real-Slurm test: sinfo fails (%v): %s", err, strings.TrimSpace(string(out)))
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"slurm", "-workers", "2", "-cores", "1", "-time", "10m", "-job-name", "tessera-cli",
			"-dir", dir, "-start-timeout", "2m"}, &out, &errb)
	}()
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(out.String(), "serving until interrupted") {
		select {
		case code := <-done:
			t.Fatalf("tessera slurm exited %d before serving:\n%s\n%s", code, out.String(), errb.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("tessera slurm did not start within 3 minutes:\n%s\n%s", out.String(), errb.String())
		}
	}
	m := regexp.MustCompile(`jobs (\d+),(\d+) joined the scheduler at (\S+)\n`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no jobs and address in the output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "TESSERA_TLS_DIR="+filepath.Join(dir, "tls")) {
		t.Errorf("the output does not say how clients connect:\n%s", out.String())
	}
	token, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := distributed.Connect(ctx, m[3], distributed.ClientOptions{
		Security: distributed.CertSecurity(filepath.Join(dir, "tls"), strings.TrimSpace(string(token))),
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	s, err := chunkarray.Arange(0, n, 1, nd.Int64, n/10).Sum().Compute(ctx, chunkarray.WithScheduler(c))
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := nd.Values[int64](s); err != nil || len(got) != 1 || got[0] != n*(n-1)/2 {
		t.Errorf("sum = %v, %v; want %d", got, err, n*(n-1)/2)
	}
	cancel() // Ctrl-C
	if code := <-done; code != 0 {
		t.Errorf("tessera slurm exited %d after the interrupt:\n%s", code, errb.String())
	}
	q, err := exec.Command("squeue", "--noheader", "--format=%i").CombinedOutput()
	if err != nil {
		t.Fatalf("squeue: %v: %s", err, q)
	}
	for _, id := range strings.Fields(string(q)) {
		if id == m[1] || id == m[2] {
			t.Errorf("squeue still lists job %s", id)
		}
	}
}
