package main

import (
	"context"
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
	fs := newFlagSet("worker", "tessera worker -scheduler HOST:8786 [-listen :0] [-advertise HOST:PORT] [-name N] [-threads N]\n"+
		"    [-resources GPU=1,MEM=2] [-memory-limit 4GiB] [-spill-dir D] [-tls-ca F -tls-cert F -tls-key F [-tls-server-name tessera]] [-token-file F]")
	opts := distributed.WorkerFlags(fs)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
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
