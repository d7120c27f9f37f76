// Command tessera is tessera's main CLI.
//
//	tessera demo [-out DIR] [-zarr-size N]  a tour: delayed values, chunked arrays, zarr, UDFs, task-graph pictures
//	tessera bench [-json] [-schedulers sync,threads,distributed] [-reps N] [-gc-check]
//	    [-plot FILE.png [-dask DASK.jsonl] [-results TESSERA.jsonl]] [WORKLOAD|GROUP ...]
//	tessera chunktune [-workload W] [-chunks 500,200,100,50] [-schedulers sync,threads] [-reps N] [-plot FILE.png]
//	tessera scheduler [-address :8786] [-status :8787] [TLS flags] [-token-file F]
//	tessera worker -scheduler HOST:8786 [-listen :0] [-advertise HOST:PORT] [-name N] [-threads N]
//	    [-resources GPU=1,MEM=2] [-memory-limit 4GiB] [-spill-dir D] [TLS flags] [-token-file F]
//	tessera slurm [-workers N] [-workers-per-job N] [-cores N] [-memory 16GiB] [-time 2h] [-partition P]
//	    [-account A] [-directive OPT]... [-prologue LINE]... [-worker-command /shared/bin/myprog] [-dir D]
//	tessera certs -dir D [-hosts h1,10.0.0.2] [-days 365]
//	tessera version
//
// TLS flags are -tls-ca F -tls-cert F -tls-key F [-tls-server-name tessera];
// the token comes from -token-file or the TESSERA_TOKEN environment
// variable. The tessera binary also serves as the worker processes of the
// local cluster that `bench -schedulers distributed` starts.
//
// Exit status: 0 when the work succeeded or help was asked for (-h, -help,
// --help, "tessera help [COMMAND]"), 1 when the work failed, 2 for bad
// usage (an unknown command or flag, a bad flag value), with the usage on
// standard error.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tessera-go/tessera/sched/distributed"
)

func main() {
	// First: a worker of a local cluster runs here and exits.
	distributed.MaybeWorker()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: tessera <command> [flags]

commands:
  demo       a tour of tessera: delayed values, chunked arrays, zarr and UDFs, with task-graph pictures
  bench      time built-in workloads on the schedulers (median, best, load average); -gc-check, -plot
  chunktune  time an array workload over chunk sizes and schedulers, plot, recommend
  scheduler  run a distributed scheduler
  worker     run a distributed worker
  slurm      run a scheduler here and workers as Slurm jobs (sbatch), cancelled at exit
  certs      write a self-signed CA and certificate for a cluster's mutual TLS
  version    print the module version and the VCS revision it was built from
  help       print this text, or a command's flags (help COMMAND)

Run "tessera <command> -h" for a command's flags.
`

// commands maps each command to its function, which gets the arguments
// after the command's name.
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"demo":      runDemo,
	"bench":     runBench,
	"chunktune": runChunktune,
	"scheduler": runScheduler,
	"worker":    runWorker,
	"slurm":     runSlurm,
	"certs":     runCerts,
	"version":   runVersion,
}

// run is main without the process: it returns the exit status (0 ok or
// help asked for, 1 the work failed, 2 bad usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 2 {
			if cmd, ok := commands[args[1]]; ok {
				return cmd(ctx, []string{"-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "tessera help: unknown command %q\n%s", args[1], usage)
			return 2
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "tessera: unknown command %q\n%s", args[0], usage)
	return 2
}
