package distributed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultRetireTimeout is the default of SlurmOptions.RetireTimeout and of
// the bound Cluster.Scale puts on a retirement.
const DefaultRetireTimeout = time.Minute

// retireJobs retires the connected workers of jobs ids gracefully before
// Scale cancels the jobs, bounded by ctx and RetireTimeout. A retirement
// that does not happen is reported; the jobs are cancelled anyway.
func (c *SlurmCluster) retireJobs(ctx context.Context, ids []string) {
	if c.opts.RetireTimeout < 0 {
		return
	}
	byJob := c.workersByJob()
	var names []string
	for _, id := range ids {
		names = append(names, byJob[id]...)
	}
	if len(names) == 0 {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, c.opts.RetireTimeout)
	defer cancel()
	err := c.server.RetireWorkers(rctx, names...)
	switch {
	case err == nil:
		fmt.Fprintf(c.out, "tessera: retired workers %s\n", strings.Join(names, ","))
	case errors.Is(err, ErrNoRecipient):
		fmt.Fprintf(c.out, "tessera: no worker would be left to take over from %s; cancelling without retiring\n", strings.Join(names, ","))
	default:
		fmt.Fprintf(c.out, "tessera: %v; cancelling their jobs anyway\n", err)
	}
}
