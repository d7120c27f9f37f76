//go:build linux

package distributed

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// TestNetns runs a cluster across several "hosts" on this machine: three
// network namespaces, each with its own address on a bridge of the root
// namespace, as machines on a LAN. The scheduler and the client run in
// this process (root namespace), each worker is this test binary started
// as `BINARY tessera-worker FLAGS` inside a namespace, and every
// connection is mutual TLS with a token, as across machines. It needs
// root and the ip command; it skips without them.
func TestNetns(t *testing.T) {
	n := newNetnsNet(t, 3)

	dir := t.TempDir()
	if err := GenerateCerts(filepath.Join(dir, "certs"), nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	const token = "netns-s3cret"
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sec := CertSecurity(filepath.Join(dir, "certs"), token)

	schedLog := &netnsBuffer{}
	srv, err := NewServer(SchedulerOptions{
		Address:       net.JoinHostPort(n.gateway, "0"),
		StatusAddress: net.JoinHostPort(n.gateway, "0"),
		Security:      sec.ForRole(RoleScheduler),
		Logger:        slog.New(slog.NewTextHandler(schedLog, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if h, _, _ := net.SplitHostPort(srv.StatusAddr()); h != n.gateway {
		t.Errorf("status endpoint on %q, want host %s", srv.StatusAddr(), n.gateway)
	}

	secFlags := func(s Security, tokenFile string) []string {
		f := []string{"-tls-ca", s.CAFile, "-tls-cert", s.CertFile, "-tls-key", s.KeyFile, "-tls-server-name", s.ServerName}
		if tokenFile != "" {
			f = append(f, "-token-file", tokenFile)
		}
		return f
	}
	var workers []*nsWorker
	for _, h := range n.hosts {
		args := []string{"-scheduler", srv.Addr(), "-listen", net.JoinHostPort(h.addr, "0"),
			"-name", "host-" + h.letter, "-threads", "1", "-resources", h.resource + "=1", "-connect-timeout", "10s"}
		workers = append(workers, startNsWorker(t, h.ns, append(args, secFlags(sec.ForRole(RoleWorker), tokenFile)...)))
	}
	waitWorkers(t, srv, workers)

	c, err := Connect(context.Background(), srv.Addr(), ClientOptions{Security: sec, Name: "netns"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("tree", func(t *testing.T) {
		const leaves = 1024
		g, root := schedtest.AddTree(leaves)
		got, err := c.Get(ctx, g, []graph.Key{root})
		if err != nil {
			t.Fatal(err)
		}
		if want := leaves * (leaves + 1) / 2; got[0] != want {
			t.Errorf("AddTree(%d) = %v, want %d", leaves, got[0], want)
		}
	})

	t.Run("cross-host blocks", func(t *testing.T) {
		g, keys, want := netnsExchange(n.hosts, netnsBlocks, netnsBlockLen)
		got, err := c.Get(ctx, g, keys)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if got[i] != want[i] {
				t.Errorf("%s = %v, want %d", k, got[i], want[i])
			}
		}
	})

	t.Run("status", func(t *testing.T) {
		st := srv.Status()
		if len(st.Workers) != len(n.hosts) {
			t.Fatalf("%d workers registered, want %d: %+v", len(st.Workers), len(n.hosts), st.Workers)
		}
		for _, h := range n.hosts {
			var ws *WorkerStatus
			for i := range st.Workers {
				if st.Workers[i].Name == "host-"+h.letter {
					ws = &st.Workers[i]
				}
			}
			if ws == nil {
				t.Errorf("worker host-%s is not in the status: %+v", h.letter, st.Workers)
				continue
			}
			if host, _, err := net.SplitHostPort(ws.Address); err != nil || host != h.addr {
				t.Errorf("worker host-%s serves data on %q, want its own address %s", h.letter, ws.Address, h.addr)
			}
			if ws.TasksDone == 0 {
				t.Errorf("worker host-%s ran no task", h.letter)
			}
			if ws.Resources[h.resource] != 1 {
				t.Errorf("worker host-%s offers %v, want %s=1", h.letter, ws.Resources, h.resource)
			}
		}
	})

	// Intruders, both in namespace c: refused, they exit, and the scheduler
	// still has its three workers. They pass -insecure: without it a worker
	// lacking TLS or the token refuses to open its data plane beyond
	// loopback before it dials anything, and what is tested here is the
	// scheduler's refusal of a stranger who does not care.
	intruder := func(t *testing.T, name string, s Security, tokenFile, refusal string) {
		h := n.hosts[len(n.hosts)-1]
		logFrom := len(schedLog.String())
		args := []string{"-scheduler", srv.Addr(), "-listen", net.JoinHostPort(h.addr, "0"),
			"-name", name, "-threads", "1", "-connect-timeout", "20s", "-insecure"}
		w := startNsWorker(t, h.ns, append(args, secFlags(s, tokenFile)...))
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("worker %s was not refused within 30 s; its output:\n%s", name, w.out.String())
		}
		if w.err == nil {
			t.Errorf("worker %s exited with status 0; its output:\n%s", name, w.out.String())
		}
		if !strings.Contains(w.out.String(), "refused") {
			t.Errorf("worker %s's output does not say it was refused:\n%s", name, w.out.String())
		}
		st := srv.Status()
		if len(st.Workers) != len(n.hosts) {
			t.Errorf("%d workers registered after %s tried, want %d", len(st.Workers), name, len(n.hosts))
		}
		for _, ws := range st.Workers {
			if ws.Name == name {
				t.Errorf("the scheduler lists the refused worker: %+v", ws)
			}
		}
		// The scheduler logs the refusal with the peer's address, which is
		// namespace c's; a failed handshake may be logged just after the
		// worker gave up.
		for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
			found := false
			for _, line := range strings.Split(schedLog.String()[logFrom:], "\n") {
				if strings.Contains(line, refusal) && strings.Contains(line, "peer="+h.addr+":") {
					found = true
				}
			}
			if found {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the scheduler's log has no line %q for a peer at %s:\n%s", refusal, h.addr, schedLog.String()[logFrom:])
				break
			}
		}
	}
	t.Run("worker without token", func(t *testing.T) {
		intruder(t, "intruder-token", sec.ForRole(RoleWorker), "", "refused a call without the cluster token")
	})
	t.Run("client certificate registering as a worker", func(t *testing.T) {
		// Every client holds the token and a certificate of the cluster's
		// CA; only worker certificates may register as workers.
		intruder(t, "intruder-client", sec, tokenFile, "refused a peer whose certificate is for another role")
	})
	t.Run("worker with a foreign CA", func(t *testing.T) {
		foreign := filepath.Join(t.TempDir(), "foreign")
		if err := GenerateCerts(foreign, nil, time.Hour); err != nil {
			t.Fatal(err)
		}
		intruder(t, "intruder-ca", RoleSecurity(foreign, RoleWorker, token), tokenFile, "refused a connection at the TLS handshake")
	})

	// The cluster still computes after the intruders.
	g, root := schedtest.AddTree(64)
	if got, err := c.Get(ctx, g, []graph.Key{root}); err != nil || got[0] != 64*65/2 {
		t.Errorf("after the intruders: %v, %v; want %d", got, err, 64*65/2)
	}
	for _, w := range workers {
		select {
		case <-w.done:
			t.Errorf("worker %s exited: %v; its output:\n%s", w.ns, w.err, w.out.String())
		default:
		}
	}
}

// netnsBlocks blocks of netnsBlockLen ints (1 MiB) are made on each host.
const (
	netnsBlocks   = 8
	netnsBlockLen = 1 << 17
)

// netnsBlock returns block args[1] of host args[0]: n = args[2] ints,
// element j equal to 100·host + block + j.
var netnsBlock graph.Op = &graph.FuncOp{OpName: "distributed_test.netns_block", Fn: func(_ context.Context, args []any) (any, error) {
	base, n := 100*args[0].(int)+args[1].(int), args[2].(int)
	b := make([]int, n)
	for j := range b {
		b[j] = base + j
	}
	return b, nil
}}

// netnsWeigh returns Σ over its []int arguments of Σ_j (j+1)·x[j], which
// sees the order of a block's elements, not only their sum.
var netnsWeigh graph.Op = &graph.FuncOp{OpName: "distributed_test.netns_weigh", Fn: func(_ context.Context, args []any) (any, error) {
	s := 0
	for i, a := range args {
		b, ok := a.([]int)
		if !ok {
			return nil, fmt.Errorf("netns_weigh: argument %d is a %T, want []int", i, a)
		}
		for j, x := range b {
			s += (j + 1) * x
		}
	}
	return s, nil
}}

func init() {
	graph.Register(netnsBlock)
	graph.Register(netnsWeigh)
}

// netnsExchange is, for hosts h = 0..H-1 (each pinned to its worker by
// its resource),
//
//	block-h[i] = netnsBlock(h, i, n)    i < nblocks, on host h
//	weigh-h    = netnsWeigh(every block of the other hosts), on host h
//
// so that every weigh task fetches 2·nblocks blocks from two other hosts.
// want[h] is the closed form: with x[j] = base + j,
// Σ_j (j+1)(base+j) = base·n(n+1)/2 + (n-1)n(n+1)/3.
func netnsExchange(hosts []netnsHost, nblocks, n int) (*graph.Graph, []graph.Key, []int) {
	g := graph.New(len(hosts) * (nblocks + 1))
	blockSum := func(base int) int { return base*n*(n+1)/2 + (n-1)*n*(n+1)/3 }
	for h, host := range hosts {
		for i := 0; i < nblocks; i++ {
			node := graph.Task(netnsBlock, graph.Lit(h), graph.Lit(i), graph.Lit(n))
			node.Resources = map[string]float64{host.resource: 1}
			if err := g.Set(graph.BlockKey("block-"+host.letter, i), node); err != nil {
				panic(err)
			}
		}
	}
	var keys []graph.Key
	var want []int
	for h, host := range hosts {
		var args []graph.Arg
		w := 0
		for o, other := range hosts {
			if o == h {
				continue
			}
			for i := 0; i < nblocks; i++ {
				args = append(args, graph.Ref(graph.BlockKey("block-"+other.letter, i)))
				w += blockSum(100*o + i)
			}
		}
		node := graph.Task(netnsWeigh, args...)
		node.Resources = map[string]float64{host.resource: 1}
		k := graph.Key("weigh-" + host.letter)
		if err := g.Set(k, node); err != nil {
			panic(err)
		}
		keys = append(keys, k)
		want = append(want, w)
	}
	return g, keys, want
}

// netnsHost is one network namespace of a netnsNet.
type netnsHost struct {
	letter   string // a, b, c, ...
	ns       string // namespace name
	addr     string // its IPv4 address on the bridge
	resource string // HOSTA, HOSTB, ...: the resource its worker offers
}

// netnsNet is a bridge in the root namespace, with address gateway, and
// hosts: namespaces joined to it by veth pairs.
type netnsNet struct {
	gateway string
	hosts   []netnsHost
}

// newNetnsNet builds a bridge tsbr<pid%10000> holding 10.X.0.1/24 (X from
// the pid, so that concurrent runs do not clash) and n namespaces
// ts<pid>-a, -b, ... at 10.X.0.11, .12, ..., each with lo up and a veth
// pair whose root end is on the bridge. Everything is deleted when the
// test ends, failed or not. It skips the test unless it runs as root with
// a working `ip netns`.
func newNetnsNet(t *testing.T, n int) *netnsNet {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skipf("needs the ip command (iproute2) for network namespaces: %v", err)
	}
	pid := os.Getpid()
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
		return nil
	}
	must := func(args ...string) {
		t.Helper()
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	cleanup := func(args ...string) {
		t.Cleanup(func() { ip(args...) })
	}

	first := fmt.Sprintf("ts%d-a", pid)
	if err := ip("netns", "add", first); err != nil {
		t.Skipf("network namespaces do not work here: %v", err)
	}
	cleanup("netns", "del", first)

	removeStaleNetns(t)

	// 10.X.0.0/24 with X from the pid, or the next one free if a
	// concurrent run holds it.
	x := 200 + pid%50
	for k := 0; k < 50; k++ {
		out, err := exec.Command("ip", "-o", "-4", "addr", "show", "to", fmt.Sprintf("10.%d.0.0/24", 200+(pid+k)%50)).Output()
		if err == nil && len(bytes.TrimSpace(out)) == 0 {
			x = 200 + (pid+k)%50
			break
		}
	}
	tn := &netnsNet{gateway: fmt.Sprintf("10.%d.0.1", x)}
	br := fmt.Sprintf("tsbr%d", pid%10000)
	must("link", "add", br, "type", "bridge")
	cleanup("link", "del", br)
	must("addr", "add", tn.gateway+"/24", "dev", br)
	must("link", "set", br, "up")

	for i := 0; i < n; i++ {
		letter := string(rune('a' + i))
		h := netnsHost{
			letter:   letter,
			ns:       fmt.Sprintf("ts%d-%s", pid, letter),
			addr:     fmt.Sprintf("10.%d.0.%d", x, 11+i),
			resource: "HOST" + strings.ToUpper(letter),
		}
		if i > 0 {
			must("netns", "add", h.ns)
			cleanup("netns", "del", h.ns)
		}
		// Interface names are at most 15 bytes.
		outer := fmt.Sprintf("tsv%d%s", pid%1000000, letter)
		inner := fmt.Sprintf("tsp%d%s", pid%1000000, letter)
		must("link", "add", outer, "type", "veth", "peer", "name", inner)
		cleanup("link", "del", outer) // deletes inner too, if still there
		must("link", "set", inner, "netns", h.ns)
		must("link", "set", outer, "master", br)
		must("link", "set", outer, "up")
		must("-n", h.ns, "addr", "add", h.addr+"/24", "dev", inner)
		must("-n", h.ns, "link", "set", inner, "up")
		must("-n", h.ns, "link", "set", "lo", "up")
		tn.hosts = append(tn.hosts, h)
	}
	return tn
}

// removeStaleNetns deletes what runs of TestNetns that did not clean up
// (a test binary killed at its timeout) left: the namespaces ts<pid>-*
// of processes that are gone, which takes their veth pairs along, and
// their bridges tsbr<pid%10000> unless a live run's pid shares the
// number. A bridge left behind would keep its subnet's route.
func removeStaleNetns(t *testing.T) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	stale, live := map[int][]string{}, map[int]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "ts") {
			continue
		}
		num, _, ok := strings.Cut(strings.TrimPrefix(f[0], "ts"), "-")
		pid, err := strconv.Atoi(num)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			stale[pid] = append(stale[pid], f[0])
		} else {
			live[pid%10000] = true
		}
	}
	for pid, names := range stale {
		for _, ns := range names {
			if err := exec.Command("ip", "netns", "del", ns).Run(); err == nil {
				t.Logf("removed namespace %s, left by a run that is gone", ns)
			}
		}
		if !live[pid%10000] {
			exec.Command("ip", "link", "del", fmt.Sprintf("tsbr%d", pid%10000)).Run()
		}
	}
}

// nsWorker is a worker process running in a network namespace.
type nsWorker struct {
	ns   string
	cmd  *exec.Cmd
	out  *netnsBuffer  // its stdout and stderr
	done chan struct{} // closed when it exited
	err  error         // its exit, after done
}

// startNsWorker starts this test binary as `BINARY tessera-worker args`
// inside namespace ns (TestMain makes it a worker). It is killed when the
// test ends.
func startNsWorker(t *testing.T, ns string, args []string) *nsWorker {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := &nsWorker{ns: ns, out: &netnsBuffer{}, done: make(chan struct{})}
	w.cmd = exec.Command("ip", append([]string{"netns", "exec", ns, exe, "tessera-worker"}, args...)...)
	for _, kv := range os.Environ() {
		// Settings come from the flags only.
		if !strings.HasPrefix(kv, "TESSERA_WORKER") && !strings.HasPrefix(kv, tokenEnv+"=") {
			w.cmd.Env = append(w.cmd.Env, kv)
		}
	}
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("start a worker in %s: %v", ns, err)
	}
	go func() {
		w.err = w.cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		<-w.done
		if t.Failed() {
			t.Logf("worker in %s (%v) wrote:\n%s", ns, w.err, w.out.String())
		}
	})
	return w
}

// waitWorkers waits until the scheduler lists as many workers as ws; a
// worker that exits first fails the test with its output.
func waitWorkers(t *testing.T, srv *Server, ws []*nsWorker) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for len(srv.Status().Workers) < len(ws) {
		for _, w := range ws {
			select {
			case <-w.done:
				t.Fatalf("worker in %s exited before registering (%v); its output:\n%s", w.ns, w.err, w.out.String())
			default:
			}
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, w := range ws {
				fmt.Fprintf(&b, "--- %s:\n%s\n", w.ns, w.out.String())
			}
			t.Fatalf("%d of %d workers registered after 15 s; their output:\n%s", len(srv.Status().Workers), len(ws), b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// netnsBuffer is a bytes.Buffer safe for concurrent writers (a logger, a
// process's output) and readers.
type netnsBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *netnsBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *netnsBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
