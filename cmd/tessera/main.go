// Command tessera is tessera's main CLI.
//
//	tessera demo [-out DIR]                 run the seed tutorial's examples
//	tessera bench [-json] [-schedulers sync,threads] [-reps N] [WORKLOAD|GROUP ...]
//	tessera chunktune [-workload W] [-chunks 500,200,100,50] [-schedulers sync,threads] [-reps N] [-plot FILE.png]
//
// Later issues add worker and scheduler.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: tessera <command> [flags]

commands:
  demo    run the seed tutorial's delayed examples and draw their task graph
  bench   time built-in workloads on the schedulers, one JSON line each
  chunktune  time an array workload over chunk sizes and schedulers, plot, recommend
  help    print this text

Run "tessera <command> -h" for a command's flags.
`

// run is main without the process: it returns the exit status (0 ok, 1 the
// work failed, 2 bad usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "chunktune":
		return runChunktune(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "tessera: unknown command %q\n%s", args[0], usage)
	return 2
}
