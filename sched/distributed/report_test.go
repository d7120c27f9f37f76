package distributed

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// A performance report of a job on a cluster and one on the local
// scheduler: every task run drawn once, the time by prefix counted, the
// worker-measured durations at least the sleeps, and nothing that needs
// the network.
func TestPerformanceReport(t *testing.T) {
	c := dashCluster(t, "")
	for _, s := range []struct {
		name string
		s    sched.Scheduler
	}{{"cluster", c}, {"threaded", sched.Threaded{}}} {
		t.Run(s.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "report.html")
			ctx, done := PerformanceReport(context.Background(), path)
			const n, ms = 6, 30
			if _, err := s.s.Get(ctx, napGraph(n, ms), []graph.Key{"total"}); err != nil {
				t.Fatal(err)
			}
			page := finishReport(t, done, path)
			if got := strings.Count(page, `<rect class="bar"`); got != n+1 {
				t.Errorf("%d bars, want %d", got, n+1)
			}
			for prefix, want := range map[string]string{"nap": "6", "total": "1"} {
				if !strings.Contains(page, `data-prefix="`+prefix+`" data-tasks="`+want+`"`) {
					t.Errorf("no row of %s with %s tasks", prefix, want)
				}
			}
			// Each nap's bar says how long it ran: at least its sleep.
			naps := regexp.MustCompile(`nap\[\d+\] on worker -?\d+: ([^<]+)</title>`).FindAllStringSubmatch(page, -1)
			if len(naps) != n {
				t.Fatalf("%d nap bars with a duration, want %d", len(naps), n)
			}
			for _, m := range naps {
				d, err := time.ParseDuration(m[1])
				if err != nil || d < (ms-2)*time.Millisecond {
					t.Errorf("a nap lasted %q (%v), want at least %d ms", m[1], err, ms)
				}
			}
			if strings.Contains(page, "<script") || regexp.MustCompile(`(src|href)="https?:`).MatchString(page) {
				t.Errorf("the report loads something from elsewhere")
			}
		})
	}
}

// Futures computed under a report's context are in the report, as Dask's
// performance_report records client.submit and client.map.
func TestPerformanceReportFutures(t *testing.T) {
	c := dashCluster(t, "")
	path := filepath.Join(t.TempDir(), "report.html")
	ctx, done := PerformanceReport(context.Background(), path)
	cl := c.Client()
	fs := cl.Map(ctx, schedtest.Inc, [][]any{{1}, {2}, {3}})
	g := cl.Submit(ctx, schedtest.Inc, fs[0])
	if _, err := cl.Gather(context.Background(), append(fs, g)...); err != nil {
		t.Fatal(err)
	}
	page := finishReport(t, done, path)
	if got := strings.Count(page, `<rect class="bar"`); got != 4 {
		t.Errorf("%d bars, want 4 (three mapped tasks and one submitted)", got)
	}
	if !strings.Contains(page, `data-prefix="schedtest.inc" data-tasks="4"`) {
		t.Errorf("no row of 4 inc tasks in the report: %s", regexp.MustCompile(`data-prefix="[^"]*" data-tasks="\d+"`).FindAllString(page, -1))
	}
}

// finishReport writes the report (done) and returns the page at path.
func finishReport(t *testing.T, done func() error, path string) string {
	t.Helper()
	if err := done(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
