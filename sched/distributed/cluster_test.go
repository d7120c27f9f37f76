package distributed

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// TestStartClusterGuard starts workers from a binary that does not call
// MaybeWorker (this test binary with TestMain told to skip it, running
// TestGuardChild): the worker must not start a cluster of its own but
// exit, and the start fails quoting why.
func TestStartClusterGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envNoMaybeWorker, "1")
	var out bytes.Buffer
	c, err := StartCluster(context.Background(), ClusterOptions{
		Workers: 1, WorkerCommand: []string{exe, "-test.run=^TestGuardChild$"}, Stderr: &out, StartTimeout: 30 * time.Second,
	})
	if err == nil {
		c.Close()
		t.Fatal("StartCluster succeeded with a worker binary that does not call MaybeWorker")
	}
	if !strings.Contains(err.Error(), notWorkerMsg) {
		t.Errorf("StartCluster error does not quote the worker:\n%v", err)
	}
	if !strings.Contains(out.String(), "[worker-0] "+notWorkerMsg) {
		t.Errorf("the worker's output, prefixed, lacks the message:\n%s", out.String())
	}
}

// TestGuardChild is the worker side of TestStartClusterGuard.
func TestGuardChild(t *testing.T) {
	if os.Getenv(envWorker) == "" {
		t.Skip("run by TestStartClusterGuard only")
	}
	StartCluster(context.Background(), ClusterOptions{Workers: 1})
	t.Fatal("StartCluster returned in a worker process")
}

// TestTesseraWorkerArgument starts this test binary as
// `binary tessera-worker -scheduler ADDR -name N`, the way a user's binary
// serves on another machine, and runs a graph on it.
func TestTesseraWorkerArgument(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 0, InProcess: true})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(exe, "tessera-worker", "-scheduler", c.Server().Addr(), "-name", "by-argument", "-threads", "2", "-resources", "GPU=1")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), tokenEnv+"="+c.ClientSecurity().Token) // the cluster's own token
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-waited:
			if err != nil {
				t.Errorf("the worker exited with %v after SIGINT, want status 0:\n%s", err, out.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("the worker did not stop within 10 s of SIGINT")
		}
	}()
	// A task that needs the GPU the worker offers.
	g, root := schedtest.AddTree(8)
	nd, _ := g.Get(root)
	nd.Resources = map[string]float64{"GPU": 1}
	got, err := c.Get(context.Background(), g, []graph.Key{root})
	if err != nil || got[0] != 36 {
		t.Fatalf("Get = %v, %v; want 36", got, err)
	}
	found := false
	for _, w := range c.Server().Status().Workers {
		if w.Name == "by-argument" {
			found = true
			if w.Threads != 2 || w.Resources["GPU"] != 1 {
				t.Errorf("worker registered with %d threads, resources %v; want 2, GPU=1", w.Threads, w.Resources)
			}
		}
	}
	if !found {
		t.Errorf("no worker named by-argument in %+v", c.Server().Status().Workers)
	}
}

func TestTesseraWorkerBadFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, "tessera-worker", "-threads", "2").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "-scheduler") {
		t.Errorf("tessera-worker without -scheduler: %v, output %q; want exit 2 naming -scheduler", err, out)
	}
}

func TestPrefixWriter(t *testing.T) {
	var dst bytes.Buffer
	tail := &tailBuffer{max: 8}
	p := &prefixWriter{dst: &dst, prefix: "[w] ", tail: tail}
	for _, s := range []string{"one\ntw", "o\n", "", "three\nfour"} {
		p.Write([]byte(s))
	}
	p.flush()
	if want := "[w] one\n[w] two\n[w] three\n[w] four\n"; dst.String() != want {
		t.Errorf("got %q, want %q", dst.String(), want)
	}
	if tail.String() != "ree\nfour" {
		t.Errorf("tail %q, want the last 8 bytes %q", tail.String(), "ree\nfour")
	}
}

// A cluster given no Security makes a token of its own: a client without
// it is refused (other users of a shared machine reach loopback too), one
// with ClientSecurity gets in, and the printed dashboard URL carries it.
func TestClusterMakesToken(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, InProcess: true, Quiet: true})
	tok := c.ClientSecurity().Token
	if len(tok) != 64 {
		t.Fatalf("token %q, want 64 hex digits", tok)
	}
	g, root := schedtest.AddTree(4)
	if anon, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{}); !errors.Is(err, ErrUnauthenticated) {
		if anon != nil {
			anon.Close()
		}
		t.Fatalf("Connect without the token = %v, want ErrUnauthenticated", err)
	}
	cl, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{Security: c.ClientSecurity()})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if got, err := cl.Get(context.Background(), g, []graph.Key{root}); err != nil || got[0] != 10 {
		t.Fatalf("Get with the token = %v, %v; want 10", got, err)
	}
	if u := c.Server().DashboardURL(); !strings.HasSuffix(u, "/?token="+tok) {
		t.Errorf("dashboard URL %q does not carry the token", u)
	}
	other := startCluster(t, ClusterOptions{Workers: 0, InProcess: true, Quiet: true})
	if other.ClientSecurity().Token == tok {
		t.Error("two clusters made the same token")
	}
}
