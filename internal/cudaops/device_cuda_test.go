//go:build cuda && cgo

package cudaops

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// These tests need a GPU: a cuda build exits in gorgonia.org/cu's init
// without one (see doc.go), so they never run anywhere else.

func openT(t testing.TB) *Device {
	t.Helper()
	d, err := Open(0)
	if err != nil {
		t.Fatalf("Open(0): %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestOpenBadOrdinal(t *testing.T) {
	n, err := Count()
	if err != nil || n < 1 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	for _, o := range []int{-1, n} {
		if _, err := Open(o); err == nil {
			t.Errorf("Open(%d) of %d devices: no error", o, n)
		}
	}
}

func TestLifecycle(t *testing.T) {
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	free, total, err := d.MemInfo()
	t.Logf("%s: %d of %d MiB free, cuBLAS %v", d.Name(), free>>20, total>>20, HaveCUBLAS())
	if err != nil || free <= 0 || total < free {
		t.Errorf("MemInfo = %d, %d, %v", free, total, err)
	}
	a, err := d.Alloc(nd.Float64, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Download()
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(got, must(nd.Zeros(nd.Float64, 3, 4)), nil, 0); err != nil {
		t.Errorf("Alloc is not zeroed: %v", err)
	}
	x := randFrames(t, nd.Float64, 1, 3, 4)
	if err := a.CopyFrom(x); err != nil {
		t.Fatal(err)
	}
	if got, err = a.Download(); err != nil {
		t.Fatal(err)
	}
	if err := compare(got, x, nil, 0); err != nil {
		t.Errorf("CopyFrom then Download: %v", err)
	}
	if err := a.Free(); err != nil {
		t.Errorf("Free: %v", err)
	}
	if err := a.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if _, err := a.Download(); err == nil {
		t.Error("Download after Free: no error")
	}
	b, err := d.Alloc(nd.Float32, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := b.Download(); err == nil {
		t.Error("Download after Close: no error")
	}
	if err := b.Free(); err != nil {
		t.Errorf("Free after Close (which freed it): %v", err)
	}
	if _, err := d.Alloc(nd.Float32, 1); err == nil {
		t.Error("Alloc after Close: no error")
	}
}

func TestUploadStrided(t *testing.T) {
	d := openT(t)
	x := randFrames(t, nd.Float32, 3, 6, 5)
	xt := must(x.Transpose(1, 0))
	a, err := d.Upload(xt)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	got, err := a.Download()
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(got, xt.Contiguous(), nil, 0); err != nil {
		t.Error(err)
	}
}

func TestErrors(t *testing.T) {
	d := openT(t)
	f32 := func(shape ...int) *Array {
		a, err := d.Alloc(nd.Float32, shape...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Free() })
		return a
	}
	f64 := func(shape ...int) *Array {
		a, err := d.Alloc(nd.Float64, shape...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Free() })
		return a
	}
	x := f32(2, 3, 4, 5)
	tests := []struct {
		name string
		call func() error
	}{
		{"alloc-int32", func() error { _, err := d.Alloc(nd.Int32, 3); return err }},
		{"upload-int16", func() error { _, err := d.Upload(must(nd.Zeros(nd.Int16, 2))); return err }},
		{"copyfrom-shape", func() error { return f32(3).CopyFrom(must(nd.Zeros(nd.Float32, 4))) }},
		{"copyfrom-dtype", func() error { return f32(3).CopyFrom(must(nd.Zeros(nd.Float64, 3))) }},
		{"binary-shape", func() error { return Binary(nd.Add, f32(3), f32(3), f32(4)) }},
		{"binary-dtypes", func() error { return Binary(nd.Add, f32(3), f32(3), f64(3)) }},
		{"binary-pow", func() error { return Binary(nd.Pow, f32(3), f32(3), f32(3)) }},
		{"scalar-nil", func() error { return BinaryScalar(nd.Add, f32(3), nil, 1) }},
		{"sumnav-dst", func() error { return SumOverNav(f32(5, 4), x, 2, false) }},
		{"sumsig-dst", func() error { return SumOverSig(f32(3, 2), x, 2, false) }},
		{"sigdims-0", func() error { return SumOverSig(f32(2, 3, 4, 5), x, 0, false) }},
		{"sigdims-5", func() error { return SumOverSig(f32(1), x, 5, false) }},
		{"masks-shape", func() error { return MaskDot(f32(2, 3, 7), x, f32(7, 5, 4), 2, false) }},
		{"masks-ndim", func() error { return MaskDotKernel(f32(2, 3, 7), x, f32(7, 20), 2, false) }},
		{"maskdot-dst", func() error { return MaskDot(f32(2, 3, 6), x, f32(7, 4, 5), 2, false) }},
		{"reduce-prod", func() error { _, err := Reduce(nd.Prod, x); return err }},
		{"reduce-max-empty", func() error { _, err := Reduce(nd.Max, f32(0)); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want a *cudaops.Error", err, err)
			}
			t.Log(err)
		})
	}
	if s, err := Reduce(nd.Sum, f32(0)); s != 0 || err != nil {
		t.Errorf("sum of nothing = %v, %v; want 0, nil", s, err)
	}
	if err := d.Synchronize(); err != nil {
		t.Errorf("Synchronize after the bad calls: %v", err)
	}
}

// TestConcurrent runs SumOverSig from several goroutines on one Device.
func TestConcurrent(t *testing.T) {
	d := openT(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			x := randFrames(t, nd.Float64, uint64(g), 16, 33, 31)
			want := must(nd.Reduce(nd.Sum, x, []int{1, 2}, false))
			got, err := onDevice(d, nd.Float64, []int{16}, nil, []*nd.Array{x}, func(o *Array, in []*Array) error {
				return SumOverSig(o, in[0], 2, false)
			})
			if err == nil {
				err = compare(got, want, must(nd.Reduce(nd.Sum, must(abs(x)), []int{1, 2}, false)), 1e-12)
			}
			if err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", g, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestLargeIndex runs the kernels over more than 2^31 elements (8 GiB of
// float32, built on the device: no host copy), where a 32-bit index would
// wrap: ones everywhere, so every sum is exact.
func TestLargeIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("8 GiB of device memory")
	}
	d := openT(t)
	const n, m = 1<<15 + 3, 1 << 16 // 2^31 + 3·2^16 elements
	free, _, err := d.MemInfo()
	if err != nil || free < 9<<30 {
		t.Skipf("%d MiB free on the device, %v", free>>20, err)
	}
	x, err := d.Alloc(nd.Float32, n, m)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	if err := BinaryScalar(nd.Add, x, x, 1); err != nil {
		t.Fatal(err)
	}
	if s, err := Reduce(nd.Sum, x); err != nil || s != n*m {
		t.Errorf("Reduce sum = %v, %v; want %d", s, err, n*m)
	}
	if s, err := Reduce(nd.Max, x); err != nil || s != 1 {
		t.Errorf("Reduce max = %v, %v; want 1", s, err)
	}
	check := func(name string, shape []int, f func(dst *Array) error, want float64) {
		dst, err := d.Alloc(nd.Float32, shape...)
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Free()
		if err := f(dst); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := dst.Download()
		if err != nil {
			t.Fatal(err)
		}
		if err := compare(got, must(nd.Full(nd.Float32, want, shape...)), nil, 0); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	check("SumOverSig", []int{n}, func(dst *Array) error { return SumOverSig(dst, x, 1, false) }, m)
	check("SumOverNav", []int{m}, func(dst *Array) error { return SumOverNav(dst, x, 1, false) }, n)
	masks, err := d.Alloc(nd.Float32, 2, m)
	if err != nil {
		t.Fatal(err)
	}
	defer masks.Free()
	if err := BinaryScalar(nd.Add, masks, masks, 1); err != nil {
		t.Fatal(err)
	}
	check("MaskDotKernel", []int{n, 2}, func(dst *Array) error { return MaskDotKernel(dst, x, masks, 1, false) }, m)
	check("MaskDot", []int{n, 2}, func(dst *Array) error { return MaskDot(dst, x, masks, 1, false) }, m)
}

// TestRows checks views of rows: kernels write into a view at the right
// place, reading through a view reads the right rows, freeing a view
// leaves the base alone, and bad ranges are errors.
func TestRows(t *testing.T) {
	d := openT(t)
	x := randFrames(t, nd.Float32, 7, 5, 3, 4)
	f, err := d.Upload(x)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := d.Alloc(nd.Float32, 5)
	if err != nil {
		t.Fatal(err)
	}
	fv, err := f.Rows(1, 3)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := dst.Rows(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := SumOverSig(dv, fv, 2, true); err != nil {
		t.Fatal(err)
	}
	if err := fv.Free(); err != nil {
		t.Fatal(err)
	}
	if err := dv.Free(); err != nil {
		t.Fatal(err)
	}
	got, err := dst.Download()
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := nd.Values[float32](x)
	want := make([]float32, 5)
	scale := make([]float32, 5)
	for j := 0; j < 3; j++ {
		for _, v := range xs[(1+j)*12 : (2+j)*12] {
			want[2+j] += v
			scale[2+j] += max(v, -v)
		}
	}
	if err := compare(got, must(nd.FromSlice(want, 5)), must(nd.FromSlice(scale, 5)), rtolFor(nd.Float32)); err != nil {
		t.Errorf("SumOverSig through views: %v", err)
	}
	// The base is still there after freeing the views.
	if back, err := f.Download(); err != nil || compare(back, x, nil, 0) != nil {
		t.Errorf("base after freeing a view: %v", err)
	}
	for _, r := range [][2]int{{-1, 1}, {4, 2}, {0, 6}, {2, -1}} {
		if _, err := f.Rows(r[0], r[1]); err == nil {
			t.Errorf("Rows(%d, %d) of 5: no error", r[0], r[1])
		}
	}
}
