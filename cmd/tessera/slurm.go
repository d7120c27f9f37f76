package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/tessera-go/tessera/sched/distributed"
)

// runSlurm is `tessera slurm`: a scheduler on this machine and workers
// submitted as Slurm jobs (distributed.StartSlurmCluster), serving until
// ctx is done (SIGINT or SIGTERM), when the jobs are cancelled.
func runSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("slurm", "tessera slurm [-workers 1] [-workers-per-job 1] [-cores N] [-memory 16GiB] [-time 2h]\n"+
		"    [-partition P] [-account A] [-job-name tessera] [-directive OPTION]... [-prologue LINE]...\n"+
		"    [-worker-command /shared/bin/myprog] [-data-dir D]... [-dir D] [-host H] [-address :0] [-status 127.0.0.1:0]\n"+
		"    [-tls-ca F -tls-cert F -tls-key F [-tls-server-name tessera] -token-file F | -insecure] [-print-script]")
	opts := distributed.SlurmFlags(fs)
	printScript := fs.Bool("print-script", false, "print the job script that would be submitted, submit nothing, and exit")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tessera slurm: unexpected arguments %q\n", fs.Args())
		return 2
	}
	o, err := opts()
	if err != nil {
		fmt.Fprintf(stderr, "tessera slurm: %v\n", err)
		return 2
	}
	o.Stderr = stderr
	o.Scheduler.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	if *printScript {
		// The script names the scheduler's port and the certificate
		// files, so a scheduler starts, with no job, for as long as it
		// takes to write it.
		o.Workers, o.Quiet = 0, true
		o.Scheduler.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c, err := distributed.StartSlurmCluster(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "tessera slurm: %v\n", err)
		return 1
	}
	if *printScript {
		fmt.Fprint(stdout, c.JobScript())
		if err := c.Close(); err != nil {
			fmt.Fprintf(stderr, "tessera slurm: %v\n", err)
			return 1
		}
		return 0
	}
	var ids []string
	for _, j := range c.Jobs() {
		ids = append(ids, j.ID)
	}
	fmt.Fprintf(stdout, "tessera slurm: %d workers in jobs %s joined the scheduler at %s\n",
		len(c.Server().Status().Workers), strings.Join(ids, ","), c.Address())
	if sec := c.ClientSecurity(); sec.TLS() {
		fmt.Fprintf(stdout, "tessera slurm: clients connect with TESSERA_TLS_DIR=%s TESSERA_TOKEN=$(cat %s)\n",
			filepath.Dir(sec.CAFile), filepath.Join(c.Dir(), "token"))
	}
	if u := c.Server().DashboardURL(); u != "" {
		fmt.Fprintf(stdout, "tessera slurm: dashboard at %s\n", u)
	}
	fmt.Fprintln(stdout, "tessera slurm: serving until interrupted; then the jobs are cancelled")
	<-ctx.Done()
	if err := c.Close(); err != nil {
		fmt.Fprintf(stderr, "tessera slurm: %v\n", err)
		return 1
	}
	return 0
}
