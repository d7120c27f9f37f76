package chunkarray

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// fakeCUDA makes graph building believe a device is there, for the
// duration of a test: only what chunkarray decides is tested here; the
// device itself in device_cuda_test.go.
func fakeCUDA(t *testing.T) {
	old := cudaDevices
	cudaDevices = func() (int, error) { return 1, nil }
	t.Cleanup(func() { cudaDevices = old })
}

// devData is a (6, 8, 10) array of dt in blocks of (4, 5, 10): uneven
// along the first two axes.
func devData(t testing.TB, dt nd.DType) (*nd.Array, *Array) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	v := make([]float64, 6*8*10)
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	x, err := nd.FromSlice(v, 6, 8, 10)
	if err == nil && dt != nd.Float64 {
		x, err = x.AsType(dt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return x, FromNDArray(x, []int{4, 5, 10})
}

func TestDeviceReduceErrors(t *testing.T) {
	_, a := devData(t, nd.Float32)
	cuda := ReduceOpts{Device: DeviceCUDA}
	// Without a device (no stand-in): the build has no CUDA.
	if _, err := cudaops.Count(); errors.Is(err, cudaops.ErrNoCUDA) {
		err := a.Reduce(nd.Sum, nil, cuda).Err()
		if !errors.Is(err, cudaops.ErrNoCUDA) {
			t.Fatalf("Sum on cuda without CUDA: err = %v, want ErrNoCUDA", err)
		}
		for _, w := range []string{"sum", `device "cuda"`, "no CUDA in this build"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not name %q", err, w)
			}
		}
	}
	fakeCUDA(t)
	_, ai := devData(t, nd.Int32)
	for _, c := range []struct {
		name string
		a    *Array
		op   nd.ReduceOp
		axes []int
		o    ReduceOpts
		want string // "" for no error
	}{
		{"sum-all", a, nd.Sum, nil, cuda, ""},
		{"max-all", a, nd.Max, nil, cuda, ""},
		{"min-all", a, nd.Min, nil, cuda, ""},
		{"sum-leading", a, nd.Sum, []int{0, 1}, cuda, ""},
		{"sum-trailing", a, nd.Sum, []int{2}, cuda, ""},
		{"sum-middle", a, nd.Sum, []int{1}, cuda, "only all, leading or trailing axes"},
		{"max-leading", a, nd.Max, []int{0}, cuda, "only over all axes"},
		{"mean", a, nd.Mean, nil, cuda, "not a device reduction"},
		{"prod", a, nd.Prod, nil, cuda, "not a device reduction"},
		{"int32", ai, nd.Sum, nil, cuda, "dtype int32"},
		{"unknown", a, nd.Sum, nil, ReduceOpts{Device: "tpu"}, `unknown device "tpu"`},
		{"cpu", a, nd.Sum, nil, ReduceOpts{Device: DeviceCPU}, ""},
	} {
		err := c.a.Reduce(c.op, c.axes, c.o).Err()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestDeviceReduceGraph: with a stand-in device, the chunk tasks of a
// device reduction (and only they) ask for GPU=1, are not fused with the
// expression making their input, and keys differ from the CPU
// reduction's; in a build without CUDA computing it fails in the chunk
// task with ErrNoCUDA.
func TestDeviceReduceGraph(t *testing.T) {
	fakeCUDA(t)
	_, a := devData(t, nd.Float32)
	expr := a.Mul(2) // fusable into a CPU reduction's chunk tasks
	for _, o := range []ReduceOpts{{}, {Device: DeviceCUDA}} {
		r := expr.Reduce(nd.Sum, nil, o)
		g, _, err := BuildGraph([]*Array{r})
		if err != nil {
			t.Fatal(err)
		}
		gpu, fused := 0, 0
		for _, k := range g.Keys() {
			n, _ := g.Get(k)
			if n.Op != nil && n.Op.Name() == opReduceFused {
				fused++
			}
			if len(n.Resources) == 0 {
				continue
			}
			if n.Op == nil || n.Op.Name() != opReduce || n.Resources[gpuResource] != 1 || len(n.Resources) != 1 {
				t.Errorf("%q: node %v asks for %v", o.Device, k, n.Resources)
			}
			gpu++
		}
		blocks := 2 * 2 // (6, 8) in (4, 5)
		switch o.Device {
		case "":
			if gpu != 0 || fused != blocks {
				t.Errorf("CPU: %d GPU tasks, %d fused chunk tasks; want 0, %d", gpu, fused, blocks)
			}
		default:
			if gpu != blocks || fused != 0 {
				t.Errorf("cuda: %d GPU tasks, %d fused chunk tasks; want %d, 0", gpu, fused, blocks)
			}
			if r.Name() == expr.Reduce(nd.Sum, nil, ReduceOpts{}).Name() {
				t.Error("the device reduction has the CPU reduction's keys")
			}
		}
	}
	if _, err := cudaops.Count(); errors.Is(err, cudaops.ErrNoCUDA) {
		_, err := a.Reduce(nd.Sum, nil, ReduceOpts{Device: DeviceCUDA}).Compute(context.Background())
		if !errors.Is(err, cudaops.ErrNoCUDA) {
			t.Errorf("computing a device reduction without CUDA: err = %v, want ErrNoCUDA", err)
		}
	}
}
