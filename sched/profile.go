package sched

import (
	"sync"
	"time"

	"github.com/tessera-go/tessera/graph"
)

// TaskRecord is one task run, as the Profiler saw it.
type TaskRecord struct {
	Key        graph.Key
	Start, End time.Time
	Worker     int
}

// Profiler records when every task ran and on which worker: the data of
// Dask's task-stream plot, and of viz's colouring by measured time. Attach
// it to a computation with WithCallbacks(ctx, p.Callbacks()). Records
// accumulate over every computation it is attached to; it is safe for
// concurrent use.
type Profiler struct {
	mu      sync.Mutex
	started map[startKey]time.Time
	ran     map[startKey][2]time.Time // times a remote worker measured (Callbacks.Ran)
	records []TaskRecord
	cbs     Callbacks
}

// startKey tells apart two runs of one key on different workers, which a
// retrying distributed scheduler may do.
type startKey struct {
	key    graph.Key
	worker int
}

// NewProfiler returns an empty profiler.
func NewProfiler() *Profiler {
	p := &Profiler{started: map[startKey]time.Time{}, ran: map[startKey][2]time.Time{}}
	p.cbs = Callbacks{
		Pretask: func(k graph.Key, w int) {
			now := time.Now()
			p.mu.Lock()
			p.started[startKey{k, w}] = now
			p.mu.Unlock()
		},
		Ran: func(k graph.Key, w int, start, stop time.Time) {
			p.mu.Lock()
			p.ran[startKey{k, w}] = [2]time.Time{start, stop}
			p.mu.Unlock()
		},
		Posttask: func(k graph.Key, _ any, _ error, w int) {
			now := time.Now()
			p.mu.Lock()
			sk := startKey{k, w}
			if t, ok := p.started[sk]; ok {
				delete(p.started, sk)
				r := TaskRecord{Key: k, Start: t, End: now, Worker: w}
				if tt, ok := p.ran[sk]; ok {
					// Run elsewhere: the worker's own clock.
					delete(p.ran, sk)
					r.Start, r.End = tt[0], tt[1]
				}
				p.records = append(p.records, r)
			}
			p.mu.Unlock()
		},
	}
	return p
}

// Callbacks returns the callbacks that feed p.
func (p *Profiler) Callbacks() *Callbacks { return &p.cbs }

// Records returns a copy of the records, in the order tasks finished.
func (p *Profiler) Records() []TaskRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]TaskRecord(nil), p.records...)
}

// Durations returns the total run time of every key recorded.
func (p *Profiler) Durations() map[graph.Key]time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[graph.Key]time.Duration, len(p.records))
	for _, r := range p.records {
		out[r.Key] += r.End.Sub(r.Start)
	}
	return out
}

// Reset drops every record.
func (p *Profiler) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = nil
	clear(p.started)
	clear(p.ran)
}
