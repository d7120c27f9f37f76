//go:build cuda && cgo

package udfbridge

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// These tests need a GPU (a cuda build exits in gorgonia.org/cu's init
// without one: internal/cudaops/doc.go). They run the built-in UDFs with
// BackendCUDA and compare with the CPU run within cudaops's tolerances:
// float32 sums 1e-5 of the sum of magnitudes (the data are non-negative,
// so of the result itself; cuBLAS's float32 mask product 1e-4), float64
// 1e-12.

// tDevSeed has a Device nav buffer that Preprocess seeds with 1 on the
// host: the device path must upload it after Preprocess, accumulate the
// frame sums into it, and download it once per partition.
type tDevSeed struct{}

func (tDevSeed) Name() string            { return "test.devseed" }
func (tDevSeed) Params() ([]byte, error) { return nil, nil }
func (tDevSeed) Backends() []Backend     { return []Backend{BackendCPU, BackendCUDA} }
func (tDevSeed) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{deviceNav("v", m.InputDType)}, nil
}
func (tDevSeed) Preprocess(c *Ctx) error {
	v := c.Buf("v")
	one, err := nd.Full(v.DType(), 1, v.Shape()...)
	if err != nil {
		return err
	}
	return nd.Assign(v, one)
}
func (tDevSeed) DeviceTiles(*Meta) bool { return true }
func (tDevSeed) ProcessTile(c *Ctx, tile *nd.Array) error {
	return (&SumSigUDF{}).ProcessTile(&Ctx{bufs: map[string]*nd.Array{"intensity": c.Buf("v")}, meta: c.meta}, tile)
}
func (tDevSeed) ProcessTileDevice(c *Ctx, tile *DeviceArray) error {
	if c.Buf("v") != nil {
		return fmt.Errorf("Ctx.Buf of a device buffer inside ProcessTileDevice is not nil")
	}
	return cudaops.SumOverSig(c.DeviceBuf("v"), tile, len(c.Meta().SigShape), true)
}

func init() {
	RegisterUDF("test.devseed", func([]byte) (UDF, error) { return tDevSeed{}, nil })
}

// devClose compares got with want (both read as float64): NaN where want
// is NaN, else |got - want| ≤ rtol·|want| + 1e-30.
func devClose(t *testing.T, what string, got, want *nd.Array, rtol float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) || got.DType() != want.DType() {
		t.Fatalf("%s: %v %v, want %v %v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, err := got.AsType(nd.Float64)
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.AsType(nd.Float64)
	if err != nil {
		t.Fatal(err)
	}
	gv, _ := nd.Values[float64](g.Contiguous())
	wv, _ := nd.Values[float64](w.Contiguous())
	bad := 0
	for i := range wv {
		ok := math.IsNaN(wv[i]) && math.IsNaN(gv[i]) || math.Abs(gv[i]-wv[i]) <= rtol*math.Abs(wv[i])+1e-30
		if !ok {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, want %g (rtol %g)", what, i, gv[i], wv[i], rtol)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements off", what, bad, len(wv))
	}
}

func TestDeviceBuiltins(t *testing.T) {
	sig := []int{5, 3}
	roi := roiCases(24, 6, 5)["random"]
	roiArr, err := nd.FromSlice(roi, 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	maskRTol := 1e-5
	if cudaops.HaveCUBLAS() {
		maskRTol = 1e-4
	}
	for _, dt := range []nd.DType{nd.Uint16, nd.Float32, nd.Float64} {
		ds, _, _ := coreMemDS(t, dt)
		rtol := 1e-5
		if dt == nd.Float64 {
			rtol = 1e-12
		}
		masksDT := nd.Float32
		if dt == nd.Float64 {
			masksDT = nd.Float64
		}
		for _, opts := range map[string][]RunOption{
			"default":     nil,
			"partitions3": {WithPartitions(3)},
			"tiles5-roi":  {WithPartitions(2), WithTileShape(5, nil), WithROI(roiArr)},
		} {
			udfs := func() []UDF {
				return []UDF{&SumUDF{}, &SumSigUDF{}, ApplyMasks(denseMasksT(t, masksDT, sig)), &SumMergeAllUDF{}}
			}
			base := append([]RunOption{WithScheduler(sched.Sync{})}, opts...)
			cpu, err := Run(context.Background(), ds, udfs(), base...)
			if err != nil {
				t.Fatal(err)
			}
			dev, err := Run(context.Background(), ds, udfs(), append(base, WithBackend(BackendCUDA))...)
			if err != nil {
				t.Fatalf("%v CUDA run: %v", dt, err)
			}
			for i := range cpu {
				tol := rtol
				if i == 2 && dt != nd.Float64 {
					tol = maskRTol
				}
				devClose(t, fmt.Sprintf("%v %s", dt, cpu[i].udf), mustT(dev[i].Data("intensity")), mustT(cpu[i].Data("intensity")), tol)
			}
		}
	}
}

// TestDeviceBuffers: Device buffers are uploaded after Preprocess and
// downloaded once per partition, and the result is the CPU run's.
func TestDeviceBuffers(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	opts := []RunOption{WithScheduler(sched.Sync{}), WithPartitions(4), WithTileShape(2, nil)}
	cpu, err := Run(context.Background(), ds, []UDF{tDevSeed{}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	up, down := deviceCopies.up.Load(), deviceCopies.down.Load()
	dev, err := Run(context.Background(), ds, []UDF{tDevSeed{}}, append(opts, WithBackend(BackendCUDA))...)
	if err != nil {
		t.Fatal(err)
	}
	if u, d := deviceCopies.up.Load()-up, deviceCopies.down.Load()-down; u != 4 || d != 4 {
		t.Errorf("4 partitions: %d uploads, %d downloads of the device buffer, want 4 and 4", u, d)
	}
	devClose(t, "devseed", mustT(dev[0].Data("v")), mustT(cpu[0].Data("v")), 1e-5)
}
