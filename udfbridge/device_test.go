package udfbridge

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// tHostDev declares CUDA and a Device buffer but processes on the host
// (no DeviceTileProcessor): on a CUDA partition it keeps host buffers.
type tHostDev struct{ tNavSum }

func (tHostDev) Name() string        { return "test.hostdev" }
func (tHostDev) Backends() []Backend { return []Backend{BackendCPU, BackendCUDA} }
func (tHostDev) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{deviceNav("intensity", m.InputDType)}, nil
}
func (u tHostDev) ProcessTile(c *Ctx, tile *nd.Array) error {
	if c.Buf("intensity") == nil || c.DeviceBuf("intensity") != nil {
		return errors.New("a host-processing UDF did not get its host buffer")
	}
	return u.tNavSum.ProcessTile(c, tile)
}

func init() {
	RegisterUDF("test.hostdev", func([]byte) (UDF, error) { return tHostDev{}, nil })
}

func denseMasksT(t *testing.T, dt nd.DType, sig []int) *Masks {
	t.Helper()
	m, err := nd.Full(dt, 1, append([]int{2}, sig...)...)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := DenseMasks(m, sig)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestDevicePlan checks which UDFs of a run process on the device and
// which of their buffers are device arrays there, with a stand-in device
// count: the built-ins on float32 and float64 input, not on complex input,
// not with sparse or complex masks, not on partial-signal
// tiles, never on a CPU run; host-processing UDFs keep host buffers.
func TestDevicePlan(t *testing.T) {
	fakeCUDA(t)
	sig := []int{5, 3}
	sparse, err := SparseMasks(sig, []int{0, 1}, []int{4}, mustT(nd.FromSlice([]float32{2}, 1)))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		on    bool
		names []string
	}
	for _, c := range []struct {
		name string
		dt   nd.DType
		udf  UDF
		opts []RunOption
		b    Backend
		want want
	}{
		{"sum-f32", nd.Float32, &SumUDF{}, nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"sum-u16", nd.Uint16, &SumUDF{}, nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"sum-f64", nd.Float64, &SumUDF{}, nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"sum-c64", nd.Complex64, &SumUDF{}, nil, BackendCUDA, want{}},
		{"sum-cpu", nd.Float32, &SumUDF{}, nil, BackendCPU, want{}},
		{"sum-partial-sig", nd.Float32, &SumUDF{}, []RunOption{WithTileShape(2, []int{2, 3})}, BackendCUDA, want{}},
		{"sum-whole-sig", nd.Float32, &SumUDF{}, []RunOption{WithTileShape(2, nil)}, BackendCUDA, want{true, []string{"intensity"}}},
		{"summergeall", nd.Float32, &SumMergeAllUDF{}, nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"sumsig", nd.Float32, &SumSigUDF{}, nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"masks-f32", nd.Float32, ApplyMasks(denseMasksT(t, nd.Float32, sig)), nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"masks-f64-on-f32", nd.Float32, ApplyMasks(denseMasksT(t, nd.Float64, sig)), nil, BackendCUDA, want{true, []string{"intensity"}}},
		{"masks-int", nd.Float32, ApplyMasks(denseMasksT(t, nd.Int64, sig)), nil, BackendCUDA, want{true, []string{"intensity"}}}, // float64 input
		{"masks-c64", nd.Float32, ApplyMasks(denseMasksT(t, nd.Complex64, sig)), nil, BackendCUDA, want{}},
		{"masks-sparse", nd.Float32, ApplyMasks(sparse), nil, BackendCUDA, want{}},
		{"hostdev", nd.Float32, tHostDev{}, nil, BackendCUDA, want{}},
	} {
		ds, _, _ := coreMemDS(t, c.dt)
		p, err := plan(ds, []UDF{c.udf}, append(c.opts, WithBackend(c.b)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := p.ri.mainMeta()
		bs, err := p.ri.build(m)
		if err != nil {
			t.Fatal(err)
		}
		on, names := p.ri.useDevice(bs[0], m)
		if on != c.want.on || !slices.Equal(names, c.want.names) {
			t.Errorf("%s: useDevice = %v %v, want %v %v", c.name, on, names, c.want.on, c.want.names)
		}
		if c.b == BackendCUDA && c.opts == nil {
			if _, isDev := c.udf.(DeviceTileProcessor); isDev {
				if !slices.Equal(p.ri.SigTile, p.ri.SigShape) || p.ri.Depth != DeviceTileBytes/(15*p.ri.Input.Size()) {
					t.Errorf("%s: CUDA run tiles %d x %v, want whole frames, %d deep", c.name, p.ri.Depth, p.ri.SigTile, DeviceTileBytes/(15*p.ri.Input.Size()))
				}
			}
		}
	}
}

// TestDeviceRunNoCUDA: with a stand-in device count, a CUDA run of a
// built-in gets past the plan, and its partition task reaches the device
// path, which in this build fails naming the UDF and ErrNoCUDA; a
// host-processing UDF's CUDA run never asks for the device and keeps its
// host buffers; CPU runs of the built-ins (whose buffers say Device) are
// unchanged.
func TestDeviceRunNoCUDA(t *testing.T) {
	if _, err := cudaops.Count(); !errors.Is(err, cudaops.ErrNoCUDA) {
		t.Skip("a build with CUDA: device_cuda_test.go")
	}
	fakeCUDA(t)
	var asked atomic.Int64
	old := cudaDevice
	cudaDevice = func() (*cudaops.Device, error) { asked.Add(1); return old() }
	t.Cleanup(func() { cudaDevice = old })

	ds, _, _ := coreMemDS(t, nd.Float32)
	for _, u := range []UDF{&SumUDF{}, &SumSigUDF{}, ApplyMasks(denseMasksT(t, nd.Float32, []int{5, 3}))} {
		_, err := Run(context.Background(), ds, []UDF{u}, WithBackend(BackendCUDA), WithScheduler(sched.Sync{}))
		if !errors.Is(err, cudaops.ErrNoCUDA) {
			t.Fatalf("%s: err = %v, want ErrNoCUDA", u.Name(), err)
		}
		for _, w := range []string{u.Name(), "device", "no CUDA in this build"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", u.Name(), err, w)
			}
		}
		cpu, err := Run(context.Background(), ds, []UDF{u}, WithScheduler(sched.Sync{}))
		if err != nil {
			t.Fatalf("%s CPU run: %v", u.Name(), err)
		}
		if got, err := cpu[0].Data("intensity"); err != nil || got == nil {
			t.Errorf("%s CPU run: intensity %v, %v", u.Name(), got, err)
		}
	}
	if asked.Load() == 0 {
		t.Error("the CUDA runs never asked for the device")
	}
	asked.Store(0)
	up, down := deviceCopies.up.Load(), deviceCopies.down.Load()
	res, err := Run(context.Background(), ds, []UDF{tHostDev{}}, WithBackend(BackendCUDA), WithScheduler(sched.Sync{}), WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(context.Background(), ds, []UDF{tNavSum{}}, WithScheduler(sched.Sync{}), WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	coreSame(t, "hostdev", mustT(res[0].Data("intensity")), mustT(want[0].Data("intensity")))
	if asked.Load() != 0 || deviceCopies.up.Load() != up || deviceCopies.down.Load() != down {
		t.Errorf("a host-processing UDF's CUDA run asked for the device %d times, copied %d up, %d down",
			asked.Load(), deviceCopies.up.Load()-up, deviceCopies.down.Load()-down)
	}
}

func mustT(a *nd.Array, err error) *nd.Array {
	if err != nil {
		panic(err)
	}
	return a
}
