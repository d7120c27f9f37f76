package distributed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Scale starts or stops workers so that n of the cluster's workers run
// (Dask's cluster.scale). New workers offer no resources; Scale waits
// until they have registered. Scaling down stops the newest workers,
// retiring them gracefully first (Server.RetireWorkers, bounded by ctx and
// DefaultRetireTimeout): the values only they hold that are still needed
// move to the workers that stay and their running tasks finish, so that
// nothing is recomputed. A retirement that does not happen (it timed out,
// or n is 0 and no worker would be left) is reported on Stderr unless
// Quiet, and the workers are stopped anyway; values lost with them are
// recomputed from the graph when needed.
func (c *Cluster) Scale(ctx context.Context, n int) error {
	if n < 0 {
		return fmt.Errorf("distributed: Cluster.Scale(%d): negative", n)
	}
	var live []*WorkerProcess
	for _, p := range c.Workers() {
		select {
		case <-p.done:
		default:
			live = append(live, p)
		}
	}
	if n > len(live) {
		ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
		defer cancel()
		var started []*WorkerProcess
		for range n - len(live) {
			p, err := c.start(ctx, nil)
			if err != nil {
				return err
			}
			started = append(started, p)
		}
		return c.waitRegistered(ctx, started)
	}
	victims := slices.Clone(live[n:])
	slices.Reverse(victims)
	if len(victims) == 0 {
		return nil
	}
	names := make([]string, len(victims))
	for i, p := range victims {
		names[i] = p.Name
	}
	rctx, cancel := context.WithTimeout(ctx, DefaultRetireTimeout)
	defer cancel()
	if err := c.server.RetireWorkers(rctx, names...); err != nil && !c.opts.Quiet {
		if errors.Is(err, ErrNoRecipient) {
			fmt.Fprintf(c.out, "tessera: no worker would be left to take over from %s; stopping without retiring\n", strings.Join(names, ","))
		} else {
			fmt.Fprintf(c.out, "tessera: %v; stopping them anyway\n", err)
		}
	}
	for _, p := range victims {
		p.stop(5 * time.Second)
	}
	return nil
}
