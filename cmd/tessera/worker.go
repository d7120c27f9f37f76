package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/tessera-go/tessera/sched/distributed"
)

// runWorker is `tessera worker`: a worker that runs tessera's built-in ops
// (a program with ops of its own serves as worker itself, see
// distributed.MaybeWorker), until ctx is done or it loses the scheduler
// for good.
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tessera worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := distributed.WorkerFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: tessera worker -scheduler HOST:8786 [-listen :0] [-advertise HOST:PORT] [-name N] [-threads N]\n"+
			"    [-resources GPU=1,MEM=2] [-memory-limit 4GiB] [-spill-dir D] [-tls-ca F -tls-cert F -tls-key F [-tls-server-name tessera]] [-token-file F]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tessera worker: unexpected arguments %q\n", fs.Args())
		return 2
	}
	o, err := opts()
	if err != nil {
		fmt.Fprintf(stderr, "tessera worker: %v\n", err)
		return 2
	}
	o.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	if err := distributed.RunWorker(ctx, o); err != nil {
		fmt.Fprintf(stderr, "tessera worker: %v\n", err)
		return 1
	}
	return 0
}
