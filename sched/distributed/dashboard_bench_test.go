package distributed

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// BenchmarkDashboard is BenchmarkTree's 65,535-task tree on two worker
// processes, with the dashboard closed and with one page open: Open
// reads /events throughout, as a browser tab does, and in every
// iteration loads a second page while the job runs (GET /, then /events
// until its first state). Compare Closed and Open run alternately on one
// machine: the scheduler's cost per task with a page open, the page load
// during a job (median ms to the page and to its first state) and the
// update rate the page gets (events/s, KiB per event, runs per event).
func BenchmarkDashboard(b *testing.B) {
	b.Run("Closed", func(b *testing.B) { benchmarkDashboard(b, false) })
	b.Run("Open", func(b *testing.B) { benchmarkDashboard(b, true) })
}

func benchmarkDashboard(b *testing.B, open bool) {
	c, err := StartCluster(context.Background(), ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true,
		Security: Security{Token: dashToken}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const leaves = 1 << 15
	g, root := schedtest.AddTree(leaves)
	want := leaves * (leaves + 1) / 2
	var page *pageReader
	if open {
		page, err = openPage(c.Server().StatusAddr())
		if err != nil {
			b.Fatal(err)
		}
		defer page.close()
	}
	b.ReportAllocs()
	var ev0, by0, runs0 int64
	if page != nil {
		ev0, by0, runs0 = page.events.Load(), page.bytes.Load(), page.runs.Load()
	}
	var loads, firsts []time.Duration
	for b.Loop() {
		var got []any
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, err = c.Get(context.Background(), g, []graph.Key{root})
		}()
		if page != nil {
			p, err := pageDuringJob(c.Server(), done)
			if err != nil {
				b.Fatal(err)
			}
			if p != nil {
				loads, firsts = append(loads, p.loadPage), append(firsts, p.firstState)
				p.close()
			}
		}
		<-done
		if err != nil {
			b.Fatal(err)
		}
		if got[0] != want {
			b.Fatalf("root = %v, want %d", got[0], want)
		}
	}
	el := b.Elapsed()
	b.ReportMetric(float64(el.Microseconds())/float64(b.N)/float64(g.Len()), "µs/task")
	if page != nil {
		ev := page.events.Load() - ev0
		if len(loads) > 0 {
			b.ReportMetric(medianMS(loads), "ms-page")
			b.ReportMetric(medianMS(firsts), "ms-first-state")
		}
		b.ReportMetric(float64(ev)/el.Seconds(), "events/s")
		if ev > 0 {
			b.ReportMetric(float64(page.bytes.Load()-by0)/float64(ev)/1024, "KiB/event")
			b.ReportMetric(float64(page.runs.Load()-runs0)/float64(ev), "runs/event")
		}
		if err := page.failure(); err != nil {
			b.Fatal(err)
		}
	}
}

// pageDuringJob opens a page once the job has tasks processing, unless
// it ended first (nil, nil then).
func pageDuringJob(s *Server, done <-chan struct{}) (*pageReader, error) {
	for s.Status().Totals.Processing == 0 {
		select {
		case <-done:
			return nil, nil
		case <-time.After(100 * time.Microsecond):
		}
	}
	return openPage(s.StatusAddr())
}

func medianMS(ds []time.Duration) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1e3
}

// pageReader is an open dashboard page: it read / and reads /events.
type pageReader struct {
	loadPage, firstState time.Duration
	events, bytes, runs  atomic.Int64
	cancel               context.CancelFunc
	wg                   sync.WaitGroup
	mu                   sync.Mutex
	err                  error
}

func openPage(addr string) (*pageReader, error) {
	get := func(ctx context.Context, path string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set(tokenHeader, dashToken)
		resp, err := http.DefaultClient.Do(req)
		if err == nil && resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			err = fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return resp, err
	}
	p := &pageReader{}
	t0 := time.Now()
	resp, err := get(context.Background(), "/")
	if err != nil {
		return nil, err
	}
	html, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Contains(html, []byte("</html>")) {
		return nil, fmt.Errorf("GET /: %d bytes, %v", len(html), err)
	}
	p.loadPage = time.Since(t0)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	ev, err := get(ctx, "/events")
	if err != nil {
		cancel()
		return nil, err
	}
	first := make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer ev.Body.Close()
		sc := bufio.NewScanner(ev.Body)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !bytes.HasPrefix(line, []byte("data: ")) {
				continue
			}
			if p.events.Add(1) == 1 {
				close(first)
			}
			p.bytes.Add(int64(len(line)))
			// Each run in the stream is one {"w":…} object.
			p.runs.Add(int64(bytes.Count(line, []byte(`{"w":`))))
		}
		if err := sc.Err(); err != nil && ctx.Err() == nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
		}
	}()
	select {
	case <-first:
		p.firstState = time.Since(t0)
	case <-time.After(30 * time.Second):
		p.close()
		return nil, fmt.Errorf("no state on /events within 30 s")
	}
	return p, nil
}

func (p *pageReader) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *pageReader) close() {
	p.cancel()
	p.wg.Wait()
}
