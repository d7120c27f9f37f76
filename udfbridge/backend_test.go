package udfbridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// tCUDA is tNavSum declaring the CPU and CUDA backends; it records the
// backend and device class its partitions and its main node saw.
type tCUDA struct{ tNavSum }

var tCUDASeen struct {
	sync.Mutex
	part, main []string
}

func (tCUDA) Name() string        { return "test.cuda" }
func (tCUDA) Backends() []Backend { return []Backend{BackendCPU, BackendCUDA} }
func (u tCUDA) ProcessTile(c *Ctx, tile *nd.Array) error {
	m := c.Meta()
	tCUDASeen.Lock()
	tCUDASeen.part = append(tCUDASeen.part, string(m.Backend)+"/"+m.DeviceClass)
	tCUDASeen.Unlock()
	return u.tNavSum.ProcessTile(c, tile)
}

func init() {
	RegisterUDF("test.cuda", func([]byte) (UDF, error) { return tCUDA{}, nil })
}

var _ Backender = tCUDA{}

// fakeCUDA makes the run believe a device is there, for the duration of
// a test: only what udfbridge decides is tested, not the device.
func fakeCUDA(t *testing.T) {
	old := cudaDevices
	cudaDevices = func() (int, error) { return 1, nil }
	t.Cleanup(func() { cudaDevices = old })
}

func TestBackendNoCUDA(t *testing.T) {
	if _, err := cudaops.Count(); !errors.Is(err, cudaops.ErrNoCUDA) {
		t.Skip("a build with CUDA")
	}
	ds, _, _ := coreMemDS(t, nd.Float32)
	_, err := Run(context.Background(), ds, []UDF{tCUDA{}}, WithBackend(BackendCUDA))
	if !errors.Is(err, cudaops.ErrNoCUDA) {
		t.Fatalf("err = %v, want ErrNoCUDA", err)
	}
	for _, w := range []string{"test.cuda", "no CUDA in this build", "cupy"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
	// The CPU run of the same UDF works.
	if _, err := Run(context.Background(), ds, []UDF{tCUDA{}}, WithBackend(BackendCPU)); err != nil {
		t.Errorf("CPU run: %v", err)
	}
}

func TestBackendErrors(t *testing.T) {
	fakeCUDA(t)
	ds, _, _ := coreMemDS(t, nd.Float32)
	for _, c := range []struct {
		name string
		udfs []UDF
		b    Backend
		want []string
	}{
		{"unknown", []UDF{tCUDA{}}, "sparse", []string{"test.cuda", `unknown backend "sparse"`}},
		{"cpu-only-udf", []UDF{tCUDA{}, tNavSum{}}, BackendCUDA, []string{"test.navsum", "supports [numpy]", "cupy"}},
	} {
		_, err := Run(context.Background(), ds, c.udfs, WithBackend(c.b))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", c.name, err, w)
			}
		}
	}
}

// TestBackendCUDARun checks what a CUDA run changes, with a stand-in
// device: partition tasks ask for GPU=1 (and CPU runs ask for nothing),
// partitions see meta Backend cupy and DeviceClass cuda, and the results
// are the CPU run's.
func TestBackendCUDARun(t *testing.T) {
	fakeCUDA(t)
	ds, _, _ := coreMemDS(t, nd.Float32)
	for _, b := range []Backend{BackendCPU, BackendCUDA} {
		p, err := plan(ds, []UDF{tCUDA{}}, []RunOption{WithPartitions(3), WithBackend(b)})
		if err != nil {
			t.Fatal(err)
		}
		g := graph.New(0)
		if _, err := p.buildGraph(g, p.token(), p.nonEmpty()); err != nil {
			t.Fatal(err)
		}
		parts := 0
		for _, k := range g.Keys() {
			n, _ := g.Get(k)
			if _, ok := n.Op.(*partOp); !ok {
				if len(n.Resources) != 0 {
					t.Errorf("%s: merge node %v asks for %v", b, k, n.Resources)
				}
				continue
			}
			parts++
			want := 0.0
			if b == BackendCUDA {
				want = 1
			}
			if got := n.Resources[gpuResource]; got != want || (want == 0 && n.Resources != nil) {
				t.Errorf("%s: partition %v resources %v, want GPU=%v", b, k, n.Resources, want)
			}
		}
		if parts != 3 {
			t.Errorf("%s: %d partition tasks, want 3", b, parts)
		}
	}

	tCUDASeen.Lock()
	tCUDASeen.part = nil
	tCUDASeen.Unlock()
	cpu, err := Run(context.Background(), ds, []UDF{tNavSum{}}, WithScheduler(sched.Sync{}), WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), ds, []UDF{tCUDA{}}, WithScheduler(sched.Sync{}), WithPartitions(3), WithBackend(BackendCUDA))
	if err != nil {
		t.Fatal(err)
	}
	got, err := res[0].Data("intensity")
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu[0].Data("intensity")
	if err != nil {
		t.Fatal(err)
	}
	coreSame(t, "intensity", got, want)
	tCUDASeen.Lock()
	defer tCUDASeen.Unlock()
	if len(tCUDASeen.part) == 0 {
		t.Fatal("no tile processed")
	}
	for _, s := range tCUDASeen.part {
		if s != "cupy/cuda" {
			t.Errorf("partition meta backend/device class %q, want cupy/cuda", s)
		}
	}
}
