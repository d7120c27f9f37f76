package sched

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/tessera-go/tessera/graph"
)

// ProgressBar draws a line such as
//
//	[################                        ] 42% | 27.1s
//
// redrawn in place with a carriage return, and ended with a newline when
// the computation finishes. Attach it with WithCallbacks(ctx,
// bar.Callbacks()). The total is the number of tasks (literals and aliases
// are not tasks) of the graph given to Start; a failed task does not
// count as done.
//
// A ticker goroutine, started by Start and stopped by Finish, redraws ten
// times a second, so the elapsed time moves during long tasks and a fast
// computation costs one atomic add per task, not one write. Redrawing from
// Posttask was the first version: it wrote on the workers' path and froze
// while a long task ran. One bar follows one computation at a time.
type ProgressBar struct {
	w        io.Writer
	width    int
	interval time.Duration
	now      func() time.Time

	done  atomic.Int64
	total int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex // serialises draws
	cbs   Callbacks
}

// NewProgressBar returns a bar that draws on w.
func NewProgressBar(w io.Writer) *ProgressBar {
	b := &ProgressBar{w: w, width: 40, interval: 100 * time.Millisecond, now: time.Now}
	b.cbs = Callbacks{
		Start: b.begin,
		Posttask: func(_ graph.Key, _ any, err error, _ int) {
			if err == nil {
				b.done.Add(1)
			}
		},
		Finish: b.end,
	}
	return b
}

// Callbacks returns the callbacks that drive b.
func (b *ProgressBar) Callbacks() *Callbacks { return &b.cbs }

func (b *ProgressBar) begin(g *graph.Graph) {
	var total int64
	for i := 0; i < g.Len(); i++ {
		if g.At(i).Kind == graph.KindTask {
			total++
		}
	}
	b.total = total
	b.done.Store(0)
	b.start = b.now()
	b.stop = make(chan struct{})
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		t := time.NewTicker(b.interval)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.draw("")
			}
		}
	}()
}

func (b *ProgressBar) end(error) {
	close(b.stop)
	b.wg.Wait()
	b.draw("\n")
}

func (b *ProgressBar) draw(suffix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	done, total := b.done.Load(), b.total
	frac := 1.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	fill := int(frac * float64(b.width))
	elapsed := b.now().Sub(b.start).Seconds()
	fmt.Fprintf(b.w, "\r[%s%s] %3d%% | %.1fs%s",
		strings.Repeat("#", fill), strings.Repeat(" ", b.width-fill), int(frac*100), elapsed, suffix)
}

// StderrProgress returns the callbacks of a progress bar on standard error
// when it is a terminal and the CI environment variable is not "true";
// otherwise nil, which WithCallbacks ignores, so that logs stay free of
// carriage returns.
func StderrProgress() *Callbacks {
	if os.Getenv("CI") == "true" || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return NewProgressBar(os.Stderr).Callbacks()
}
