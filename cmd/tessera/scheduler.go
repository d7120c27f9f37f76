package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/tessera-go/tessera/sched/distributed"
)

// runScheduler is `tessera scheduler`: a standalone scheduler, serving
// until ctx is done (SIGINT or SIGTERM). It needs no op registered: tasks
// pass through it as bytes.
func runScheduler(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("scheduler", "tessera scheduler [-address :8786] [-status :8787] [-tls-ca F -tls-cert F -tls-key F [-tls-server-name tessera]] [-token-file F]")
	opts := distributed.SchedulerFlags(fs)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tessera scheduler: unexpected arguments %q\n", fs.Args())
		return 2
	}
	o, err := opts()
	if err != nil {
		fmt.Fprintf(stderr, "tessera scheduler: %v\n", err)
		return 2
	}
	o.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	srv, err := distributed.NewServer(o)
	if err != nil {
		fmt.Fprintf(stderr, "tessera scheduler: %v\n", err)
		return 1
	}
	status := "none"
	if a := srv.StatusAddr(); a != "" {
		scheme := "http"
		if o.Security.TLS() {
			scheme = "https" // with client certificates, as the other ports
		}
		status = scheme + "://" + a + "/status"
	}
	fmt.Fprintf(stdout, "tessera scheduler: workers and clients connect to %s; status %s\n", srv.Addr(), status)
	if u := srv.DashboardURL(); u != "" {
		fmt.Fprintf(stdout, "tessera scheduler: dashboard at %s\n", u)
	}
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintf(stderr, "tessera scheduler: %v\n", err)
		return 1
	}
	return 0
}
