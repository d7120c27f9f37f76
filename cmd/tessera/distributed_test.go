package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed"
	"github.com/tessera-go/tessera/udfbridge"
)

func TestCerts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"certs", "-dir", dir, "-hosts", "sched.example.org,10.0.0.2", "-days", "30"}, &out, &errb); code != 0 {
		t.Fatalf("certs exit %d: %s", code, errb.String())
	}
	// Loadable: the pair parses, and the CA verifies the scheduler's
	// certificate for the names asked for.
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "scheduler.pem"), filepath.Join(dir, "scheduler-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tessera", "sched.example.org", "10.0.0.2", "127.0.0.1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("scheduler.pem for %s: %v", name, err)
		}
	}
	for _, k := range []string{"ca-key.pem", "scheduler-key.pem", "worker-key.pem", "client-key.pem"} {
		if fi, err := os.Stat(filepath.Join(dir, k)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v (%v), want 0600", k, fi.Mode().Perm(), err)
		}
	}
	// The flags it prints are the files it wrote.
	for _, f := range []string{"-tls-ca " + filepath.Join(dir, "ca.pem"), "-tls-cert " + filepath.Join(dir, "scheduler.pem"), "-tls-key " + filepath.Join(dir, "worker-key.pem"), "-tls-server-name tessera"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("output lacks %q:\n%s", f, out.String())
		}
	}
	// Never overwrites.
	errb.Reset()
	if code := run(context.Background(), []string{"certs", "-dir", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "exists") {
		t.Errorf("certs again: exit %d, stderr %q; want 1 and a refusal to overwrite", code, errb.String())
	}
}

// TestBenchDistributed runs one small array workload on a local cluster
// of two worker processes (this test binary, see TestMain); the bench
// checks the result against the workload's formula.
func TestBenchDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"bench", "-json", "-reps", "1", "-schedulers", "distributed", "normalize_3x1000x1000"}, &out, &errb)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errb.String())
	}
	var r map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &r); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if r["workload"] != "normalize_3x1000x1000" || r["scheduler"] != "distributed" {
		t.Errorf("got workload %v scheduler %v", r["workload"], r["scheduler"])
	}
}

// TestWorkloadsDistributed runs every built-in workload (delayed,
// chunkarray, udfbridge) on a local cluster of two worker processes and
// on Threaded, from the same optimized graph: the values must be
// identical, bit for bit in the value codec, and pass the workload's own
// check.
func TestWorkloadsDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c, err := distributed.StartCluster(context.Background(), distributed.ClusterOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, w := range workloads.All() {
		if w.BuildOnly || w.Build == nil {
			continue
		}
		// The scale group's larger sizes run the code of smaller
		// workloads here (delayed-tree, array-randint-sum-50) at up to
		// 15 times their time; the stream sum runs at 8 MiB.
		if w.Tasks > workloads.TreeLeaves*2 || w.NChunks > 1000 {
			continue
		}
		if w.Memory != nil {
			if w, err = workloads.StreamSum(8<<20, 1<<20); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(w.Name, func(t *testing.T) {
			g, keys, err := w.Build()
			if err != nil {
				t.Fatal(err)
			}
			og, _, err := optimize.Optimize(g, keys)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sched.Threaded{}.Get(context.Background(), og, keys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Get(context.Background(), og, keys)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !sameValue(got[i], want[i]) {
					t.Errorf("%s: distributed %v, threaded %v", keys[i], got[i], want[i])
				}
			}
			if w.Check != nil {
				if err := w.Check(got); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// sameValue compares two values through the value codec. Arrays are made
// contiguous first: the codec writes a broadcast constant (zero strides)
// compactly, and one side may hold it materialised.
func sameValue(a, b any) bool {
	if x, ok := a.(*nd.Array); ok {
		a = x.Copy()
	}
	if x, ok := b.(*nd.Array); ok {
		b = x.Copy()
	}
	ea, erra := graph.Marshal(a)
	eb, errb := graph.Marshal(b)
	if erra != nil || errb != nil {
		return reflect.DeepEqual(a, b)
	}
	return bytes.Equal(ea, eb)
}

// A cluster whose worker processes are confined to one data directory
// reads and writes files there, and refuses any other path with an error
// for which errors.Is finds graph.ErrPathRefused and that names the path:
// a client cannot make a worker read /etc/passwd or overwrite a file
// elsewhere.
func TestDataDirsConfineWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	root := t.TempDir()
	data, other := filepath.Join(root, "data"), filepath.Join(root, "other")
	for _, d := range []string{data, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	src := chunkarray.Arange(0, 1000, 1, nd.Float64, 100)
	for _, d := range []string{data, other} {
		if err := src.ToNPY(ctx, filepath.Join(d, "x.npy")); err != nil {
			t.Fatal(err)
		}
	}
	c, err := distributed.StartCluster(ctx, distributed.ClusterOptions{Workers: 1, DataDirs: []string{data}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	on := chunkarray.WithScheduler(c)
	got, err := chunkarray.FromNPY(filepath.Join(data, "x.npy"), 100).Sum().Compute(ctx, on)
	if err != nil {
		t.Fatalf("reading inside the data directory: %v", err)
	}
	if v, _ := nd.Values[float64](got); len(v) != 1 || v[0] != 999*1000/2 {
		t.Errorf("sum = %v, want %d", v, 999*1000/2)
	}
	for _, d := range []string{data, other} {
		if err := os.WriteFile(filepath.Join(d, "scan.raw"), make([]byte, 4*4*8*8*2), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runRawSum(ctx, filepath.Join(data, "scan.raw"), c); err != nil {
		t.Errorf("a UDF over a raw file inside the data directory: %v", err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		path string
	}{
		{"read outside", func() error {
			_, err := chunkarray.FromNPY(filepath.Join(other, "x.npy"), 100).Sum().Compute(ctx, on)
			return err
		}, filepath.Join(other, "x.npy")},
		{"write outside", func() error {
			return src.ToZarr(ctx, filepath.Join(other, "y.zarr"), chunkarray.ZarrOptions{}, on)
		}, filepath.Join(other, "y.zarr")},
		{"UDF over a raw file outside", func() error {
			_, err := runRawSum(ctx, filepath.Join(other, "scan.raw"), c)
			return err
		}, filepath.Join(other, "scan.raw")},
	} {
		err := tc.run()
		if !errors.Is(err, graph.ErrPathRefused) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: %v, want graph.ErrPathRefused naming %s", tc.name, err, tc.path)
		}
	}
}

// runRawSum runs SumUDF over a 4×4 nav × 8×8 sig uint16 raw file on s.
func runRawSum(ctx context.Context, path string, s sched.Scheduler) ([]*udfbridge.Results, error) {
	ds, err := udfbridge.OpenRaw(path, nd.Uint16, []int{4, 4}, []int{8, 8}, 0)
	if err != nil {
		return nil, err
	}
	return udfbridge.Run(ctx, ds, []udfbridge.UDF{&udfbridge.SumUDF{}}, udfbridge.WithScheduler(s), udfbridge.WithPartitions(2))
}

// An array persisted on a cluster and reduced there again: 144 MiB in
// blocks of 24 MiB travel back to the workers as literals of the next
// graph, several to a worker at once (more than one gRPC message holds;
// the scheduler used to send them in one message, fail, and report the
// tasks as running on workers that died). Persisted blocks stay on the
// workers (held values), so a block larger than one message is summed
// too: it never travels.
func TestPersistLargeBlocksOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	ctx := context.Background()
	var logs lockedBuffer
	c, err := distributed.StartCluster(ctx, distributed.ClusterOptions{Workers: 2, ThreadsPerWorker: 2,
		Scheduler: distributed.SchedulerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	on := chunkarray.WithScheduler(c)
	const n, chunk = 6 * 3145728, 3145728 // 6 blocks of 24 MiB of float64
	p, err := chunkarray.Arange(0, n, 1, nd.Float64, chunk).Persist(ctx, on)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := p.Sum().Compute(ctx, on)
		if err != nil {
			t.Fatalf("sum of the persisted array: %v", err)
		}
		// Every partial sum is an integer below 2^53: exact.
		if v, _ := nd.Values[float64](got); len(v) != 1 || v[0] != float64(n)*float64(n-1)/2 {
			t.Fatalf("sum = %v, want %v", v, float64(n)*float64(n-1)/2)
		}
	}
	if strings.Contains(logs.String(), "worker lost") {
		t.Fatalf("a worker was lost while the persisted blocks were sent:\n%s", logs.String())
	}

	big, err := chunkarray.Arange(0, 9<<20, 1, nd.Float64, 9<<20).Persist(ctx, on) // one block of 72 MiB
	if err != nil {
		t.Fatal(err)
	}
	// The block stays on the worker that computed it (a held value): no
	// message carries it, whatever its size.
	got, err := big.Sum().Compute(ctx, on)
	if err != nil {
		t.Fatalf("sum over a 72 MiB persisted block: %v", err)
	}
	const m = 9 << 20
	if v, _ := nd.Values[float64](got); len(v) != 1 || v[0] != float64(m)*float64(m-1)/2 {
		t.Fatalf("sum over a 72 MiB persisted block = %v, want %v", v, float64(m)*float64(m-1)/2)
	}
}

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
