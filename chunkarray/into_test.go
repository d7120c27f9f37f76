package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// blockOf returns block idx of the computed whole of a (the oracle:
// Compute, then the block's region sliced out).
func blockOf(t *testing.T, a *Array, idx []int) *nd.Array {
	t.Helper()
	whole, err := a.Compute(context.Background(), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	st, sh := a.blockStart(idx), a.blockShape(idx)
	sl := make([]nd.Slice1, len(st))
	for i := range sl {
		sl[i] = nd.Slice1{Start: st[i], Stop: st[i] + sh[i], Step: 1}
	}
	v, err := whole.Slice(sl...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sameValues reports the first element where got and want differ (NaN
// equals NaN; values compared as float64, exact for these arrays).
func sameValues(got, want *nd.Array) error {
	if got.DType() != want.DType() {
		return errors.New("dtype " + got.DType().String() + ", want " + want.DType().String())
	}
	g, err1 := got.AsType(nd.Float64)
	w, err2 := want.AsType(nd.Float64)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	gv, _ := nd.Values[float64](g)
	wv, _ := nd.Values[float64](w)
	if len(gv) != len(wv) {
		return errors.New("sizes differ")
	}
	for i := range gv {
		if gv[i] != wv[i] && !(math.IsNaN(gv[i]) && math.IsNaN(wv[i])) {
			return fmt.Errorf("element %d: got %v, want %v", i, gv[i], wv[i])
		}
	}
	return nil
}

// ComputeBlockInto writes every block exactly as Compute computes it, on
// the fused paths (random, elementwise over random and over computed
// blocks, constant) and on the generic one (a reduction, a rechunk),
// into a fresh and into a reused dirty buffer.
func TestComputeBlockIntoEqualsCompute(t *testing.T) {
	r := Random(11)
	x := r.Uniform(-1, 1, []int{9, 6, 5}, []int{4, 6, 3})
	lit, err := x.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fromND := FromNDArray(lit, []int{4, 3, 5})
	for _, tc := range []struct {
		name string
		a    *Array
	}{
		{"uniform float64", r.Uniform(0, 1, []int{9, 6, 5}, []int{4, 6, 3})},
		{"uniform as float32 (generated in float32)", r.Uniform(0, 1, []int{9, 6, 5}, []int{4, 6, 3}).AsType(nd.Float32)},
		{"normal", r.Normal(2, 3, []int{10, 7}, []int{3, 7})},
		{"integers", r.Integers(-5, 50, []int{10, 7}, []int{3, 4})},
		{"fused random expression", r.Uniform(0, 1, []int{9, 6, 5}, []int{4, 6, 3}).Mul(2).Sin().Add(0.5)},
		{"fused cast last", r.Normal(0, 1, []int{9, 6, 5}, []int{4, 6, 3}).Mul(3).AsType(nd.Int32)},
		{"fused over computed blocks", fromND.Mul(fromND).Sub(1)},
		{"fused broadcast", fromND.Add(FromNDArray(mustND(t, []float64{1, 2, 3, 4, 5}, 5), 5))},
		{"constant", Ones([]int{7, 5}, nd.Float32, []int{3, 5})},
		{"constant expression", Full([]int{7, 5}, 2.5, nd.Float64, []int{3, 2}).Mul(4)},
		{"literal blocks", fromND},
		{"reduction (not fusable)", fromND.Sum(1)},
		{"rechunk (not fusable)", fromND.Rechunk([]int{5, 6, 2})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			var reused *nd.Array
			forBlocks(a.NumBlocks(), func(idx []int) {
				if t.Failed() {
					return
				}
				want := blockOf(t, a, idx)
				dst, err := nd.Zeros(a.DType(), a.blockShape(idx)...)
				if err != nil {
					t.Fatal(err)
				}
				if err := a.ComputeBlockInto(context.Background(), idx, dst); err != nil {
					t.Fatalf("block %v: %v", idx, err)
				}
				if err := sameValues(dst, want); err != nil {
					t.Errorf("block %v: %v", idx, err)
				}
				// A dirty buffer of the largest block shape, re-viewed.
				if reused == nil {
					reused, _ = nd.Zeros(a.DType(), size(a.blockShape(make([]int, a.NDim()))))
				}
				v, _ := reused.Slice(nd.Slice1{Start: 0, Stop: size(a.blockShape(idx)), Step: 1})
				v, _ = v.Reshape(a.blockShape(idx)...)
				if err := a.ComputeBlockInto(context.Background(), idx, v); err != nil {
					t.Fatalf("block %v into a reused buffer: %v", idx, err)
				}
				if err := sameValues(v, want); err != nil {
					t.Errorf("block %v into a reused buffer: %v", idx, err)
				}
			})
		})
	}
}

func mustND(t *testing.T, v []float64, shape ...int) *nd.Array {
	t.Helper()
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A strided destination (a transposed view) takes the values too.
func TestComputeBlockIntoStridedDst(t *testing.T) {
	a := Random(3).Uniform(0, 1, []int{6, 4}, []int{3, 4}).Mul(2)
	want := blockOf(t, a, []int{1, 0})
	back, _ := nd.Zeros(nd.Float64, 4, 3)
	dst, err := back.Transpose()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ComputeBlockInto(context.Background(), []int{1, 0}, dst); err != nil {
		t.Fatal(err)
	}
	if err := sameValues(dst, want); err != nil {
		t.Error(err)
	}
	r := Random(3).Uniform(0, 1, []int{6, 4}, []int{3, 4})
	want = blockOf(t, r, []int{1, 0})
	if err := r.ComputeBlockInto(context.Background(), []int{1, 0}, dst); err != nil {
		t.Fatal(err)
	}
	if err := sameValues(dst, want); err != nil {
		t.Error(err)
	}
}

func TestComputeBlockIntoErrors(t *testing.T) {
	a := Random(1).Uniform(0, 1, []int{6, 4}, []int{3, 4})
	good, _ := nd.Zeros(nd.Float64, 3, 4)
	badShape, _ := nd.Zeros(nd.Float64, 4, 3)
	badType, _ := nd.Zeros(nd.Float32, 3, 4)
	for _, tc := range []struct {
		name string
		idx  []int
		dst  *nd.Array
	}{
		{"nil dst", []int{0, 0}, nil},
		{"wrong shape", []int{0, 0}, badShape},
		{"wrong dtype", []int{0, 0}, badType},
		{"index out of range", []int{2, 0}, good},
		{"negative index", []int{-1, 0}, good},
		{"index of wrong rank", []int{0}, good},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := a.ComputeBlockInto(context.Background(), tc.idx, tc.dst)
			var e *Error
			if !errors.As(err, &e) || e.Op != "ComputeBlockInto" {
				t.Errorf("got %v, want a *Error of ComputeBlockInto", err)
			}
		})
	}
}

// The fused paths write into dst with no block-sized allocation: what a
// call allocates (graph, evaluator, tile buffers when the pool is cold)
// is far below the block's bytes.
func TestComputeBlockIntoAllocatesLessThanBlock(t *testing.T) {
	r := Random(5)
	for _, tc := range []struct {
		name string
		a    *Array
	}{
		{"random float32", r.Uniform(0, 1, []int{64, 128, 128}, []int{32, 128, 128}).AsType(nd.Float32)},
		{"fused expression", r.Uniform(0, 1, []int{64, 128, 128}, []int{32, 128, 128}).Mul(2).Sin()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			dst, err := nd.Zeros(a.DType(), a.blockShape([]int{1, 0, 0})...)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := a.ComputeBlockInto(ctx, []int{1, 0, 0}, dst); err != nil { // warm the pools
				t.Fatal(err)
			}
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			const runs = 16
			for range runs {
				if err := a.ComputeBlockInto(ctx, []int{1, 0, 0}, dst); err != nil {
					t.Fatal(err)
				}
			}
			runtime.ReadMemStats(&m1)
			per := (m1.TotalAlloc - m0.TotalAlloc) / runs
			if block := uint64(dst.Nbytes()); per > block/4 {
				t.Errorf("%d bytes allocated per call, want < %d (block %d bytes)", per, block/4, block)
			} else {
				t.Logf("%d bytes allocated per call, block %d bytes", per, block)
			}
		})
	}
}
