package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
