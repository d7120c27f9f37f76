package distributed

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"github.com/tessera-go/tessera/sched/schedtest"
)

const dashToken = "dash-test-token"

// napGraph is n tasks "nap" sleeping ms each, summed by "total".
func napGraph(n, ms int) *graph.Graph {
	g := graph.New(n + 1)
	var refs []graph.Arg
	for i := 0; i < n; i++ {
		k := graph.BlockKey("nap", i)
		must(g.AddTask(k, schedtest.Sleep, graph.Lit(ms), graph.Lit(1)))
		refs = append(refs, graph.Ref(k))
	}
	must(g.AddTask("total", schedtest.Add, refs...))
	return g
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func dashCluster(t *testing.T, token string) *Cluster {
	t.Helper()
	return startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true,
		Security: Security{Token: token}})
}

func getDashboard(t *testing.T, c *Cluster, cursor uint64) DashboardState {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://%s/dashboard.json?cursor=%d", c.Server().StatusAddr(), cursor), nil)
	req.Header.Set(tokenHeader, dashToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /dashboard.json: %s", resp.Status)
	}
	var ds DashboardState
	if err := json.NewDecoder(resp.Body).Decode(&ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// The dashboard's state during and after a job: the job's graph node by
// node with its layers, progress by prefix, and every task run in the
// stream with the time the worker measured.
func TestDashboardState(t *testing.T) {
	c := dashCluster(t, dashToken)
	const n, ms = 12, 150
	done := make(chan error, 1)
	go func() {
		vals, err := c.Get(context.Background(), napGraph(n, ms), []graph.Key{"total"})
		if err == nil && vals[0] != n {
			err = fmt.Errorf("total = %v, want %d", vals[0], n)
		}
		done <- err
	}()
	var during DashboardState
	deadline := time.Now().Add(20 * time.Second)
	for {
		during = getDashboard(t, c, 0)
		if during.Graph != nil && len(during.Progress) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no running job on the dashboard within 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	g := during.Graph
	if g.Tasks != n+1 || len(g.Nodes) != n+1 || len(g.Edges) != n {
		t.Fatalf("graph of %d tasks, %d nodes, %d edges; want %d, %d, %d", g.Tasks, len(g.Nodes), len(g.Edges), n+1, n+1, n)
	}
	for i, nd := range g.Nodes {
		want := int32(0)
		if nd.Prefix == "total" {
			want = 1
		}
		if nd.Layer != want {
			t.Errorf("node %d (%s) in layer %d, want %d", i, nd.Prefix, nd.Layer, want)
		}
	}
	tasks := map[string]int{}
	for _, p := range during.Progress {
		tasks[p.Prefix] += p.Tasks
	}
	if tasks["nap"] != n || tasks["total"] != 1 {
		t.Errorf("progress counts %v, want nap %d and total 1", tasks, n)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	after := getDashboard(t, c, 0)
	runs := map[string]int{}
	for _, r := range after.Stream {
		runs[r.Prefix]++
		if r.Prefix == "nap" && r.Stop-r.Start < (ms-5)/1e3 {
			t.Errorf("a nap ran %.3f s, want at least %d ms", r.Stop-r.Start, ms)
		}
		if r.Worker <= 0 {
			t.Errorf("run on worker %d", r.Worker)
		}
	}
	if runs["nap"] != n || runs["total"] != 1 {
		t.Errorf("stream runs %v, want nap %d and total 1", runs, n)
	}
	if after.Cursor != uint64(len(after.Stream)) {
		t.Errorf("cursor %d after %d runs", after.Cursor, len(after.Stream))
	}
	if again := getDashboard(t, c, after.Cursor); len(again.Stream) != 0 {
		t.Errorf("%d runs after the cursor, want none", len(again.Stream))
	}
	if len(after.Status.Workers) != 2 {
		t.Errorf("%d workers, want 2", len(after.Status.Workers))
	}
}

// The ring keeps the newest streamCap runs and a stale cursor gets what
// is left.
func TestTaskStreamRing(t *testing.T) {
	var ts taskStream
	for i := 0; i < streamCap+10; i++ {
		ts.add(streamRec{worker: 1, start: int64(i), stop: int64(i)})
	}
	recs, cur, _ := ts.since(0, 0)
	if len(recs) != streamCap || cur != streamCap+10 {
		t.Fatalf("%d runs, cursor %d", len(recs), cur)
	}
	if recs[0].Start != 10e-9 || recs[len(recs)-1].Start != float64(streamCap+9)*1e-9 {
		t.Fatalf("oldest %v newest %v", recs[0].Start, recs[len(recs)-1].Start)
	}
	if recs, _, _ := ts.since(cur-3, 0); len(recs) != 3 {
		t.Fatalf("%d runs after cursor-3", len(recs))
	}
	if recs, _, _ := ts.since(cur+5, 0); len(recs) != 0 {
		t.Fatalf("%d runs after a cursor from the future", len(recs))
	}
	// A limit keeps the newest runs and counts the ones left out, those
	// the ring dropped included.
	recs, next, skipped := ts.since(5, 7)
	if len(recs) != 7 || next != cur || skipped != cur-7-5 || recs[6].Start != float64(streamCap+9)*1e-9 {
		t.Fatalf("limit 7 from cursor 5: %d runs, next %d, skipped %d", len(recs), next, skipped)
	}
}

// The page and its data need the token: a header, or the cookie that
// opening /?token=… once sets.
func TestDashboardAuth(t *testing.T) {
	c := dashCluster(t, dashToken)
	base := "http://" + c.Server().StatusAddr()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("GET", base+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for _, path := range []string{"/", "/dashboard.json", "/events", "/status", "/?token=wrong"} {
		if r := get(path, nil); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %s, want 401", path, r.Status)
		}
	}
	r := get("/?token="+dashToken, nil)
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/" {
		t.Fatalf("GET /?token=…: %s to %q, want 303 to /", r.Status, r.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, ck := range r.Cookies() {
		if ck.Name == tokenCookie {
			cookie = ck
		}
	}
	if cookie == nil || cookie.Value != dashToken || !cookie.HttpOnly {
		t.Fatalf("cookie %+v", cookie)
	}
	page := get("/", map[string]string{"Cookie": tokenCookie + "=" + dashToken})
	if page.StatusCode != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / with the cookie: %s %s", page.Status, page.Header.Get("Content-Type"))
	}
	body := make([]byte, len(dashboardHTML))
	if _, err := page.Body.Read(body[:100]); err != nil || !strings.Contains(string(body[:100]), "<!DOCTYPE html>") {
		t.Fatalf("page starts %q (%v)", body[:100], err)
	}
	// Server-sent events: an id (the cursor) and a state, then another.
	ev := get("/events", map[string]string{"Authorization": "Bearer " + dashToken})
	if ev.StatusCode != http.StatusOK || ev.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events: %s %s", ev.Status, ev.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(ev.Body)
	sc.Buffer(nil, 1<<20)
	events := 0
	for events < 2 && sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ds DashboardState
			if err := json.Unmarshal([]byte(data), &ds); err != nil {
				t.Fatalf("event %d: %v", events, err)
			}
			if len(ds.Status.Workers) != 2 {
				t.Fatalf("event %d: %d workers", events, len(ds.Status.Workers))
			}
			events++
		} else if id, ok := strings.CutPrefix(line, "id: "); ok {
			if _, err := strconv.ParseUint(id, 10, 64); err != nil {
				t.Fatalf("event id %q", id)
			}
		}
	}
	if events < 2 {
		t.Fatalf("%d events, want 2 (%v)", events, sc.Err())
	}
}

// chromium returns a headless browser's command, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The page in a real browser (Debian's chromium, headless) during a
// running job: it opens the URL the cluster prints (the token moves into a
// cookie), draws task bars and worker rows, and its task stream grows
// from the first state it drew to every run of the job. The job's second half
// waits on a gate that opens only once the page has asked for states
// twice, so the advance does not depend on how fast the machine is. The
// page long-polls (?poll=1): headless Chromium's virtual time, which ends
// the run, stands still while an event stream is open (the stream itself
// is TestDashboardAuth's). With TESSERA_DASHBOARD_SCREENSHOT set, a
// screenshot of the page while the gated tasks wait is written there
// (README's picture: TESSERA_DASHBOARD_SCREENSHOT=$PWD/docs/images/dashboard.png
// go test ./sched/distributed -run DashboardBrowser).
func TestDashboardBrowser(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("no chromium: apt-get install chromium (.ci/run does)")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	c := dashCluster(t, dashToken)
	// Fewer gated tasks than the cluster's 4 threads, so that the naps
	// run whatever the order.
	const n, gated = 8, 2
	gateFile := t.TempDir() + "/open"
	g := graph.New(n + gated + 1)
	var refs []graph.Arg
	for i := 0; i < n; i++ {
		k := graph.BlockKey("nap", i)
		must(g.AddTask(k, schedtest.Sleep, graph.Lit(20), graph.Lit(1)))
		refs = append(refs, graph.Ref(k))
	}
	for i := 0; i < gated; i++ {
		k := graph.BlockKey("gated", i)
		must(g.AddTask(k, fileGate, graph.Lit(gateFile), graph.Lit(1)))
		refs = append(refs, graph.Ref(k))
	}
	must(g.AddTask("total", schedtest.Add, refs...))
	done := make(chan error, 1)
	go func() {
		vals, err := c.Get(context.Background(), g, []graph.Key{"total"})
		if err == nil && vals[0] != n+gated {
			err = fmt.Errorf("total = %v, want %d", vals[0], n+gated)
		}
		done <- err
	}()
	defer func() { os.WriteFile(gateFile, nil, 0o644) }() // never leave the job hanging
	u := c.Server().DashboardURL()
	u = strings.Replace(u, "/?", "/?poll=1&", 1)
	profile := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for ds := getDashboard(t, c, 0); len(ds.Stream) < n; ds = getDashboard(t, c, 0) {
		if ctx.Err() != nil {
			t.Fatalf("the naps did not run: %d runs", len(ds.Stream))
		}
		time.Sleep(5 * time.Millisecond) // until the naps have run; the gated tasks wait
	}
	if shot := os.Getenv("TESSERA_DASHBOARD_SCREENSHOT"); shot != "" {
		out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--user-data-dir="+profile, "--window-size=1280,820", "--hide-scrollbars", "--virtual-time-budget=1500", "--screenshot="+shot, u+"&wait=0").CombinedOutput()
		if err != nil {
			t.Errorf("screenshot: %v: %s", err, out)
		}
	}
	// The gate opens after the page's second long poll.
	polls0 := c.Server().longPolls.Load()
	go func() {
		for c.Server().longPolls.Load() < polls0+2 {
			time.Sleep(5 * time.Millisecond)
		}
		os.WriteFile(gateFile, nil, 0o644)
	}()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
		"--window-size=1280,900", "--virtual-time-budget=8000", "--dump-dom", u}
	out, err := exec.CommandContext(ctx, browser, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", browser, err)
	}
	dom := string(out)
	attr := func(name string) int {
		m := regexp.MustCompile(`<body[^>]* data-` + name + `="(\d+)"`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("body has no data-%s: %.3000s", name, dom)
		}
		v, _ := strconv.Atoi(m[1])
		return v
	}
	if u := attr("updates"); u < 3 {
		t.Errorf("the page drew %d states, want at least 3", u)
	}
	if first, last := attr("first-runs"), attr("runs"); last <= first || last != n+gated+1 {
		t.Errorf("progress did not advance in the page: %d task runs at first, %d at last (want %d)", first, last, n+gated+1)
	}
	if bars := strings.Count(dom, `class="bar" x=`); bars == 0 {
		t.Errorf("no task bars in the stream")
	}
	if rows := strings.Count(dom, `<tr class="worker"`); rows != 2 {
		t.Errorf("%d worker rows, want 2", rows)
	}
	if !strings.Contains(dom, `data-prefix="nap"`) || !strings.Contains(dom, `data-prefix="gated"`) {
		t.Errorf("the nap and gated prefixes are not both on the page")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A large job's graph, summarised by layer and prefix, counts the tasks
// that erred (a Future's failed task and its dependents) apart from those
// done.
func TestGraphViewCountsErred(t *testing.T) {
	ss := newSimServer(3)
	a := ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 1})
	const n = graphNodesMax + 50
	defs := make([]*pb.TaskDef, 0, n+1)
	deps := make([]int32, n)
	for i := range n {
		defs = append(defs, &pb.TaskDef{Key: string(graph.BlockKey("r", i)), Priority: int64(i)})
		deps[i] = int32(i)
	}
	defs = append(defs, &pb.TaskDef{Key: "total", Deps: deps, Priority: n})
	j := ss.submit(t, &pb.ClientMessage{Tasks: defs, Run: &pb.Run{Outputs: []int32{n}, KeepGoing: true}})
	ss.check(t, func() string { return "submitted" })
	if len(a.specs) == 0 {
		t.Fatalf("worker a was sent no task: states %v, over %v failure %v", jobStateCounts(ss, j), j.over, j.failure)
	}
	ss.send(t, a, &pb.WorkerMessage{Failed: []*pb.TaskFailed{{Job: j.id, Key: a.specs[0].Key, Failure: &pb.Failure{Message: "boom"}}}})
	ss.check(t, func() string { return "a root failed" })
	ss.s.mu.Lock()
	gv := ss.s.graphView(j)
	ss.s.mu.Unlock()
	if gv.Nodes != nil || len(gv.Layers) != 2 {
		t.Fatalf("graph of %d tasks: %d nodes, layers %+v; want two layers", n+1, len(gv.Nodes), gv.Layers)
	}
	want := []GraphLayer{{Layer: 0, Prefix: "r", Tasks: n, Erred: 1}, {Layer: 1, Prefix: "total", Tasks: 1, Erred: 1}}
	if !slices.Equal(gv.Layers, want) {
		t.Errorf("layers %+v, want %+v", gv.Layers, want)
	}
}
