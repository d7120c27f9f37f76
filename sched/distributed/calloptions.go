package distributed

import "context"

// Options of a Get or Persist: Dask passes them to compute and persist
// (priority=, workers=, allow_other_workers=, retries=); here a
// computation reaches the client as a sched.Scheduler's Get, which takes
// no options, so they ride on its context.

type callOptionsKey struct{}

// WithOptions returns a context under which a computation on the cluster
// (Client.Get and Persist, so Compute and Persist of chunkarray and
// delayed with the cluster as scheduler) takes opts: Priority, Workers
// and AllowOtherWorkers, Retries. Resources and WithKey are options of
// Submit and Map only (a graph's tasks carry their own resources) and are
// ignored here. Submit and Map start from these options too, and their
// own come after. Options of nested WithOptions add up as those of one
// call do (Workers("a") then Workers("b") allows both).
//
//	ctx := distributed.WithOptions(ctx, distributed.Priority(10), distributed.Workers("gpu-node-2"))
//	s, err := x.Sum().Compute(ctx, chunkarray.WithScheduler(cluster))
func WithOptions(ctx context.Context, opts ...SubmitOption) context.Context {
	prev, _ := ctx.Value(callOptionsKey{}).([]SubmitOption)
	all := append(append([]SubmitOption(nil), prev...), opts...)
	return context.WithValue(ctx, callOptionsKey{}, all)
}

// callConfig is the configuration that ctx's options (WithOptions) make
// from base; ok is false when ctx carries none.
func callConfig(ctx context.Context, base submitConfig) (cfg submitConfig, ok bool) {
	opts, _ := ctx.Value(callOptionsKey{}).([]SubmitOption)
	cfg = base
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg, len(opts) > 0
}
