package distributed

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Status is a snapshot of a scheduler: its workers, its jobs and totals.
// The status endpoint serves it as JSON at GET /status.
type Status struct {
	Address string `json:"address"`
	// Insecure: the scheduler listens beyond loopback without TLS and a
	// token, because it was started with Insecure (-insecure).
	Insecure  bool           `json:"insecure,omitempty"`
	UptimeSec float64        `json:"uptime_s"`
	Workers   []WorkerStatus `json:"workers"`
	Jobs      []JobStatus    `json:"jobs"`
	Totals    StatusTotals   `json:"totals"`
}

// WorkerStatus is one connected worker, as of its last heartbeat (the
// memory and executing figures) and the scheduler's own bookkeeping
// (processing, tasks done).
type WorkerStatus struct {
	ID           int32              `json:"id"`
	Name         string             `json:"name"`
	Address      string             `json:"address"` // data plane host:port
	Host         string             `json:"host"`
	Pid          int32              `json:"pid"`
	Threads      int                `json:"threads"`
	Resources    map[string]float64 `json:"resources,omitempty"`
	MemoryLimit  int64              `json:"memory_limit"`
	MemoryBytes  int64              `json:"memory_bytes"`  // values held in memory
	SpilledBytes int64              `json:"spilled_bytes"` // values spilled to disk
	RSSBytes     int64              `json:"rss_bytes"`
	StoredKeys   int64              `json:"stored_keys"`
	SpillCount   int64              `json:"spill_count"`
	UnspillCount int64              `json:"unspill_count"`
	Executing    int32              `json:"executing"`
	Queued       int32              `json:"queued"`
	Processing   int                `json:"processing"` // tasks sent and not finished
	TasksDone    int64              `json:"tasks_done"`
	CPUPercent   float64            `json:"cpu_percent"` // between the last two heartbeats, of one core
	FetchCount   int64              `json:"fetch_count"` // values fetched from peers so far
	FetchedBytes int64              `json:"fetched_bytes"`
	// LastHeartbeatSec is how long ago the worker last sent a message.
	LastHeartbeatSec float64 `json:"last_heartbeat_age_s"`
	UptimeSec        float64 `json:"uptime_s"`
	// Retiring: the worker is being retired (Server.RetireWorkers): it
	// takes no new task and leaves once its values are moved.
	Retiring bool `json:"retiring,omitempty"`
}

// JobStatus is one job: its tasks counted by state (waiting, queued,
// no-worker, processing, memory, released, erred).
type JobStatus struct {
	ID      uint64         `json:"id"`
	Name    string         `json:"name"`
	Running bool           `json:"running"` // the graph is complete (Run received)
	Tasks   int            `json:"tasks"`
	Outputs int            `json:"outputs"`
	States  map[string]int `json:"tasks_by_state"`
	AgeSec  float64        `json:"age_s"`
}

// StatusTotals sums over the workers and jobs.
type StatusTotals struct {
	Workers      int            `json:"workers"`
	Threads      int            `json:"threads"`
	MemoryBytes  int64          `json:"memory_bytes"`
	SpilledBytes int64          `json:"spilled_bytes"`
	Processing   int            `json:"processing"`
	TasksDone    int64          `json:"tasks_done"`
	Jobs         int            `json:"jobs"`
	Tasks        int            `json:"tasks"`
	States       map[string]int `json:"tasks_by_state"`
}

// Status returns a snapshot of the scheduler's workers and jobs, workers
// by id and jobs by id.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	st := Status{
		Address:   s.Addr(),
		Insecure:  s.insecure,
		UptimeSec: now.Sub(s.started).Seconds(),
		Workers:   []WorkerStatus{},
		Jobs:      []JobStatus{},
		Totals:    StatusTotals{States: map[string]int{}},
	}
	for _, w := range s.live {
		ws := WorkerStatus{
			ID:               w.id,
			Name:             w.reg.Name,
			Address:          w.reg.DataAddress,
			Host:             w.reg.Host,
			Pid:              w.reg.Pid,
			Threads:          w.threads,
			Resources:        w.reg.Resources,
			MemoryLimit:      w.reg.MemoryLimit,
			Processing:       len(w.proc),
			TasksDone:        w.tasksDone,
			LastHeartbeatSec: now.Sub(w.lastSeen).Seconds(),
			UptimeSec:        now.Sub(w.joined).Seconds(),
			Retiring:         w.retiring,
		}
		if hb := w.hb; hb != nil {
			ws.MemoryBytes, ws.SpilledBytes, ws.RSSBytes = hb.MemoryBytes, hb.SpilledBytes, hb.RssBytes
			ws.Executing, ws.Queued = hb.Executing, hb.Queued
			ws.StoredKeys, ws.SpillCount, ws.UnspillCount = hb.StoredKeys, hb.SpillCount, hb.UnspillCount
			ws.CPUPercent, ws.FetchCount, ws.FetchedBytes = w.cpuPct, hb.FetchCount, hb.FetchedBytes
		}
		st.Workers = append(st.Workers, ws)
		t := &st.Totals
		t.Workers++
		t.Threads += ws.Threads
		t.MemoryBytes += ws.MemoryBytes
		t.SpilledBytes += ws.SpilledBytes
		t.Processing += ws.Processing
		t.TasksDone += ws.TasksDone
	}
	for _, j := range s.sortedJobs() {
		js := JobStatus{ID: j.id, Name: j.name, Running: j.run, Tasks: j.ntasks(), Outputs: len(j.outputs),
			States: map[string]int{}, AgeSec: now.Sub(j.created).Seconds()}
		if !j.run {
			js.States["pending"] = j.ntasks()
		}
		for _, x := range j.state {
			js.States[stateNames[x]]++
		}
		for k, v := range js.States {
			st.Totals.States[k] += v
		}
		st.Jobs = append(st.Jobs, js)
		st.Totals.Jobs++
		st.Totals.Tasks += js.Tasks
	}
	slices.SortFunc(st.Workers, func(a, b WorkerStatus) int { return int(a.ID - b.ID) })
	return st
}

// startStatus listens on StatusAddress and serves GET /status and the
// dashboard (dashboard.go). With a
// token, requests must carry it ("Authorization: Bearer <token>" or a
// "tessera-token" header); with TLS, the endpoint is HTTPS with the same
// certificates, client certificates required.
func (s *Server) startStatus() error {
	sec := s.opts.Security
	lis, err := net.Listen("tcp", s.opts.StatusAddress)
	if err != nil {
		return fmt.Errorf("distributed: scheduler status: listen on %s: %w", s.opts.StatusAddress, err)
	}
	mux := http.NewServeMux()
	// auth: the token (header, or the dashboard's cookie), and under TLS
	// a client certificate of the client role.
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(rw http.ResponseWriter, r *http.Request) {
			if !s.statusAuthorized(r) {
				s.statusWarn.warn(s.log, "refused a status request without the cluster token", "peer", r.RemoteAddr, "path", r.URL.Path)
				http.Error(rw, "tessera: missing or wrong cluster token (a browser: open /?token=TOKEN once)", http.StatusUnauthorized)
				return
			}
			if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
				if role := certRole(r.TLS.PeerCertificates[0]); role != "" && role != RoleClient {
					s.log.Warn("refused a status request with a certificate for another role", "peer", r.RemoteAddr, "role", role)
					http.Error(rw, "tessera: the status endpoint needs a client certificate", http.StatusForbidden)
					return
				}
			}
			h(rw, r)
		}
	}
	s.serveDashboard(mux, auth)
	mux.HandleFunc("GET /status", auth(func(rw http.ResponseWriter, r *http.Request) {
		b, err := json.MarshalIndent(s.Status(), "", "  ")
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Write(append(b, '\n'))
	}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if sec.TLS() {
		cfg, err := sec.tlsConfig(true)
		if err != nil {
			lis.Close()
			return err
		}
		hs.TLSConfig = cfg
	}
	s.statusLis = lis
	s.http = hs
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var err error
		if sec.TLS() {
			err = hs.ServeTLS(lis, "", "")
		} else {
			err = hs.Serve(lis)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("scheduler status endpoint stopped", "err", err)
		}
	}()
	return nil
}

func (s *Server) statusAuthorized(r *http.Request) bool {
	tok := s.opts.Security.Token
	if tok == "" {
		return true
	}
	got := r.Header.Get(tokenHeader)
	if a := r.Header.Get("Authorization"); got == "" && strings.HasPrefix(a, "Bearer ") {
		got = strings.TrimPrefix(a, "Bearer ")
	}
	if c, err := r.Cookie(tokenCookie); got == "" && err == nil {
		got = c.Value
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(tok)) == 1
}
