package distributed

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The dashboard: the scheduler's status port serves, beside GET /status,
// a live page at GET / (dashboard.html, embedded: no CDN, it works with
// no internet) fed by GET /events, server-sent events of DashboardState
// every dashboardPeriod, and GET /dashboard.json, one DashboardState.
// They are behind the same TLS and token as /status; a browser, which
// cannot set the token header, opens /?token=… once and keeps the token
// in a cookie.

//go:embed dashboard.html
var dashboardHTML []byte

const (
	// streamCap bounds the task runs the scheduler keeps for the task
	// stream: a ring, newest last (about 100 bytes a run).
	streamCap = 16384
	// streamPerState bounds the task runs one dashboard state carries:
	// the newest. At two states a second a 65,535-task job on two
	// workers (0.3 s) filled the whole ring into every state, 1.2 MiB of
	// JSON each, for bars a page cannot tell apart.
	streamPerState = 2048
	// dashboardPeriod is how often /events sends a state.
	dashboardPeriod = 500 * time.Millisecond
	// graphNodesMax: a job of at most this many tasks is drawn node by
	// node; a larger one is summarised by layer and prefix.
	graphNodesMax = 400
	// graphLayersMax bounds the summary rows of a large job.
	graphLayersMax = 200
	tokenCookie    = "tessera-token"
)

// streamRec is one run of a task, as the worker reported it.
type streamRec struct {
	worker      int32
	job         uint64
	prefix      string
	start, stop int64 // Unix nanoseconds, on the worker's clock
	nbytes      int64
	failed      bool
}

// taskStream keeps the last streamCap task runs.
type taskStream struct {
	recs []streamRec
	n    uint64 // runs ever added; run number k is recs[k%streamCap]
}

func (ts *taskStream) add(r streamRec) {
	if len(ts.recs) < streamCap {
		ts.recs = append(ts.recs, r)
	} else {
		ts.recs[ts.n%streamCap] = r
	}
	ts.n++
}

// since returns the runs numbered from cursor on (the oldest kept, if
// cursor is older; at most limit, the newest, when limit > 0), the cursor
// of the next run and how many runs after cursor it left out.
func (ts *taskStream) since(cursor uint64, limit int) ([]StreamRecord, uint64, uint64) {
	lo := cursor
	if ts.n > streamCap && lo < ts.n-streamCap {
		lo = ts.n - streamCap
	}
	if lo > ts.n {
		lo = ts.n
	}
	if limit > 0 && ts.n-lo > uint64(limit) {
		lo = ts.n - uint64(limit)
	}
	skipped := uint64(0)
	if lo > cursor {
		skipped = lo - cursor
	}
	out := make([]StreamRecord, 0, ts.n-lo)
	for k := lo; k < ts.n; k++ {
		r := &ts.recs[k%streamCap]
		out = append(out, StreamRecord{Worker: r.worker, Job: r.job, Prefix: r.prefix,
			Start: float64(r.start) / 1e9, Stop: float64(r.stop) / 1e9, Bytes: r.nbytes, Failed: r.failed})
	}
	return out, ts.n, skipped
}

// sampleCPU sets w's CPU use from the heartbeat hb arriving at now and the
// one before.
func (w *srvWorker) sampleCPU(hb *pb.Heartbeat, now time.Time) {
	if w.hb != nil && !w.hbAt.IsZero() {
		if dt := now.Sub(w.hbAt).Seconds(); dt > 0.05 && hb.CpuSeconds >= w.hb.CpuSeconds {
			w.cpuPct = 100 * (hb.CpuSeconds - w.hb.CpuSeconds) / dt
		}
	}
	w.hbAt = now
}

// DashboardState is what the dashboard draws: the status, the task runs
// since the client's cursor, the progress of every job by key prefix and
// the task graph of the newest running job.
type DashboardState struct {
	Time   float64        `json:"t"` // Unix seconds, the scheduler's clock
	Status Status         `json:"status"`
	Cursor uint64         `json:"cursor"` // pass it back for the runs after these
	Stream []StreamRecord `json:"stream"`
	// Skipped counts the runs after the cursor left out of Stream: more
	// ran since the last state than one state carries (streamPerState)
	// or the ring keeps.
	Skipped  uint64           `json:"skipped,omitempty"`
	Progress []PrefixProgress `json:"progress"`
	Graph    *GraphView       `json:"graph,omitempty"`
}

// StreamRecord is one task run: a bar of the task stream.
type StreamRecord struct {
	Worker int32   `json:"w"`
	Job    uint64  `json:"j"`
	Prefix string  `json:"p"`
	Start  float64 `json:"s"` // Unix seconds
	Stop   float64 `json:"e"`
	Bytes  int64   `json:"b"`
	Failed bool    `json:"f,omitempty"`
}

// PrefixProgress counts one job's tasks of one key prefix by state.
type PrefixProgress struct {
	Job     uint64         `json:"job"`
	Prefix  string         `json:"prefix"`
	Tasks   int            `json:"tasks"`
	States  map[string]int `json:"states"`
	MeanSec float64        `json:"mean_s"` // mean run time of the finished ones
}

// GraphView is a job's task graph: node by node (Nodes, Edges between
// node indices) when it is small, by layer (depth from the roots) and
// prefix otherwise.
type GraphView struct {
	Job    uint64       `json:"job"`
	Name   string       `json:"name"`
	Tasks  int          `json:"tasks"`
	Nodes  []GraphNode  `json:"nodes,omitempty"`
	Edges  [][2]int32   `json:"edges,omitempty"`
	Layers []GraphLayer `json:"layers,omitempty"`
}

// GraphNode is one task of a small job's graph.
type GraphNode struct {
	Prefix string `json:"p"`
	Layer  int32  `json:"l"`
	State  string `json:"s"`
}

// GraphLayer is the tasks of one prefix at one depth of a large graph.
type GraphLayer struct {
	Layer  int32  `json:"l"`
	Prefix string `json:"p"`
	Tasks  int    `json:"n"`
	Done   int    `json:"done"`            // in memory or released
	Erred  int    `json:"erred,omitempty"` // failed for good (a Future's task and its dependents)
}

// longPollMax bounds the wait of a long poll of /dashboard.json.
const longPollMax = 10 * time.Second

// waitForRuns returns once a task has run after cursor, no job is
// running, ctx ends or d has passed. It polls: a wake-up on every task
// run would cost the scheduler's hot path for the sake of a page.
func (s *Server) waitForRuns(ctx context.Context, cursor uint64, d time.Duration) {
	end := time.Now().Add(d)
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for time.Now().Before(end) {
		s.mu.Lock()
		ready := s.stream.n > cursor || !s.running()
		s.mu.Unlock()
		if ready {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

// running reports whether a job is under way. s.mu must be held.
func (s *Server) running() bool {
	for _, j := range s.jobs {
		if j.run && !j.over {
			return true
		}
	}
	return false
}

// DashboardURL returns the address of the dashboard, for a browser: with
// the cluster token when there is one (opening it once sets a cookie), and
// https under TLS, where the browser must also present a client
// certificate (tessera certs writes client.crt and client.key). It is ""
// when the scheduler serves no status endpoint.
func (s *Server) DashboardURL() string {
	a := s.StatusAddr()
	if a == "" {
		return ""
	}
	u := "http://" + a + "/"
	if s.opts.Security.TLS() {
		u = "https://" + a + "/"
	}
	if tok := s.opts.Security.Token; tok != "" {
		u += "?token=" + url.QueryEscape(tok)
	}
	return u
}

// Dashboard returns the dashboard's state, with the task runs numbered
// from cursor on.
func (s *Server) Dashboard(cursor uint64) DashboardState {
	st := s.Status()
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := DashboardState{Time: float64(time.Now().UnixNano()) / 1e9, Status: st}
	ds.Stream, ds.Cursor, ds.Skipped = s.stream.since(cursor, streamPerState)
	var newest *srvJob
	for _, j := range s.sortedJobs() {
		if j.over || len(j.prefix) != j.ntasks() {
			continue
		}
		byPrefix := make([]PrefixProgress, len(j.prefixNames))
		for id, p := range j.prefixNames {
			byPrefix[id] = PrefixProgress{Job: j.id, Prefix: p, States: map[string]int{}}
			if n := j.prefixRuns[id]; n > 0 {
				byPrefix[id].MeanSec = float64(j.prefixNanos[id]) / float64(n) / 1e9
			}
		}
		for t, x := range j.state {
			pp := &byPrefix[j.prefix[t]]
			pp.Tasks++
			pp.States[stateName(x, j.run)]++
		}
		slices.SortFunc(byPrefix, func(a, b PrefixProgress) int { return cmp.Compare(a.Prefix, b.Prefix) })
		ds.Progress = append(ds.Progress, byPrefix...)
		if j.run {
			newest = j
		}
	}
	if newest != nil {
		ds.Graph = s.graphView(newest)
	}
	return ds
}

func stateName(x uint8, run bool) string {
	if !run {
		return "pending"
	}
	if int(x) < len(stateNames) {
		return stateNames[x]
	}
	return "unknown"
}

// graphView draws j: node by node when small, else by layer and prefix.
func (s *Server) graphView(j *srvJob) *GraphView {
	n := j.ntasks()
	if j.layers == nil {
		j.layers = taskLayers(j)
	}
	gv := &GraphView{Job: j.id, Name: j.name, Tasks: n}
	if n <= graphNodesMax {
		gv.Nodes = make([]GraphNode, n)
		for i := range n {
			t := int32(i)
			gv.Nodes[i] = GraphNode{Prefix: j.prefixNames[j.prefix[t]], Layer: j.layers[t], State: stateName(j.state[t], j.run)}
			for _, d := range j.deps(t) {
				gv.Edges = append(gv.Edges, [2]int32{d, t})
			}
		}
		return gv
	}
	type lp struct{ layer, prefix int32 }
	idx := map[lp]int{}
	for i := range n {
		t := int32(i)
		k := lp{j.layers[t], j.prefix[t]}
		at, ok := idx[k]
		if !ok {
			at = len(gv.Layers)
			idx[k] = at
			gv.Layers = append(gv.Layers, GraphLayer{Layer: k.layer, Prefix: j.prefixNames[k.prefix]})
		}
		gv.Layers[at].Tasks++
		switch j.state[t] {
		case tsMemory, tsReleased:
			gv.Layers[at].Done++
		case tsErred:
			gv.Layers[at].Erred++
		}
	}
	slices.SortFunc(gv.Layers, func(a, b GraphLayer) int {
		return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.Prefix, b.Prefix))
	})
	if len(gv.Layers) > graphLayersMax {
		gv.Layers = gv.Layers[:graphLayersMax]
	}
	return gv
}

// taskLayers returns each task's depth: 0 for a root, else one more than
// its deepest dependency (Kahn's order, so any task order works).
func taskLayers(j *srvJob) []int32 {
	n := j.ntasks()
	layer := make([]int32, n)
	pending := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := range n {
		pending[i] = int32(len(j.deps(int32(i))))
		if pending[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for q := 0; q < len(queue); q++ {
		t := queue[q]
		for _, u := range j.dependents(t) {
			layer[u] = max(layer[u], layer[t]+1)
			if pending[u]--; pending[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	return layer
}

// serveDashboard adds the dashboard's routes to mux; auth wraps each
// handler with the status endpoint's checks.
func (s *Server) serveDashboard(mux *http.ServeMux, auth func(http.HandlerFunc) http.HandlerFunc) {
	mux.HandleFunc("GET /{$}", func(rw http.ResponseWriter, r *http.Request) {
		if tok := r.URL.Query().Get("token"); tok != "" {
			// A browser's first visit: keep the token in a cookie and
			// take it out of the address bar.
			http.SetCookie(rw, &http.Cookie{Name: tokenCookie, Value: tok, Path: "/", HttpOnly: true,
				Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
			r.Header.Set(tokenHeader, tok)
			if !s.statusAuthorized(r) {
				http.Error(rw, "tessera: missing or wrong cluster token", http.StatusUnauthorized)
				return
			}
			q := r.URL.Query()
			q.Del("token")
			to := "/"
			if len(q) > 0 {
				to += "?" + q.Encode()
			}
			http.Redirect(rw, r, to, http.StatusSeeOther)
			return
		}
		auth(func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			rw.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
			rw.Header().Set("Cache-Control", "no-store")
			rw.Write(dashboardHTML)
		})(rw, r)
	})
	mux.HandleFunc("GET /dashboard.json", auth(func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		cursor, _ := strconv.ParseUint(q.Get("cursor"), 10, 64)
		if w, err := strconv.ParseFloat(q.Get("wait"), 64); err == nil && w > 0 {
			// A long poll (the page's ?poll=1 mode): answer once a task
			// ran after cursor, or no job is running, or after wait
			// seconds (at most longPollMax).
			s.longPolls.Add(1)
			s.waitForRuns(r.Context(), cursor, time.Duration(min(w, longPollMax.Seconds())*float64(time.Second)))
		}
		b, err := json.Marshal(s.Dashboard(cursor))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Write(append(b, '\n'))
	}))
	mux.HandleFunc("GET /events", auth(func(rw http.ResponseWriter, r *http.Request) {
		fl, ok := rw.(http.Flusher)
		if !ok {
			http.Error(rw, "tessera: streaming unsupported", http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "text/event-stream")
		rw.Header().Set("Cache-Control", "no-store")
		// A browser reconnecting after a drop sends the id of the last
		// event it got: the cursor to go on from.
		c := r.Header.Get("Last-Event-ID")
		if c == "" {
			c = r.URL.Query().Get("cursor")
		}
		cursor, _ := strconv.ParseUint(c, 10, 64)
		tick := time.NewTicker(dashboardPeriod)
		defer tick.Stop()
		for {
			ds := s.Dashboard(cursor)
			cursor = ds.Cursor
			b, err := json.Marshal(ds)
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(rw, "id: %d\ndata: %s\n\n", cursor, b); err != nil {
				return // the browser went away
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			case <-tick.C:
			}
		}
	}))
}
