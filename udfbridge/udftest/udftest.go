// Package udftest is the conformance suite of udfbridge datasets, as
// sched/schedtest is for schedulers: a user who writes a Dataset (a new
// detector format) checks it in one line,
//
//	udftest.CheckDataset(t, ds, data)
//
// where data is the dataset's whole content as one nd.Array (nav
// dimensions, then sig dimensions), read by an independent path (the
// generator's own array, or numpy's read of the file).
//
// The suite checks shapes and dtype; whole-frame, random and tiled reads
// (partitions × tile shapes, through Read and through the task reader a
// partition task uses) against data, byte for byte; that reads out of
// range fail; the Spec round trip (a dataset whose Spec fails runs
// in-process only, which the suite logs); and udfbridge runs of SumUDF
// and SumSigUDF on sched.Sync and sched.Threaded, with partitions of
// several sizes, with and without a ROI, against sums computed from data
// in float64.
package udftest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/udfbridge"
)

// CheckDataset runs the conformance suite on ds, whose content must be
// data (nav dimensions then sig dimensions). It reports failures on t.
func CheckDataset(t testing.TB, ds udfbridge.Dataset, data *nd.Array) {
	t.Helper()
	nav, sig := ds.NavShape(), ds.SigShape()
	sh := data.Shape()
	if len(sh) != len(nav)+len(sig) || !slices.Equal(sh[:len(nav)], nav) || !slices.Equal(sh[len(nav):], sig) || ds.DType() != data.DType() {
		t.Fatalf("udftest: dataset is nav %v sig %v %v, data %v %v", nav, sig, ds.DType(), sh, data.DType())
	}
	c := &checker{t: t, ds: ds, nav: nav, sig: sig, n: prod(nav)}
	flat, err := data.Contiguous().Reshape(append([]int{c.n}, sig...)...)
	if err != nil {
		t.Fatalf("udftest: %v", err)
	}
	c.data = flat
	c.reads()
	c.outOfRange()
	c.spec()
	c.runs()
}

type checker struct {
	t    testing.TB
	ds   udfbridge.Dataset
	nav  []int
	sig  []int
	n    int
	data *nd.Array // (n,)+sig
}

func prod(s []int) int {
	p := 1
	for _, x := range s {
		p *= x
	}
	return p
}

// want cuts frames [start, start+n) and a sig region out of the data.
func (c *checker) want(start, n int, st, ss []int) *nd.Array {
	sl := []nd.Slice1{{Start: start, Stop: start + n, Step: 1}}
	for i := range c.sig {
		sl = append(sl, nd.Slice1{Start: st[i], Stop: st[i] + ss[i], Step: 1})
	}
	v, err := c.data.Slice(sl...)
	if err != nil {
		c.t.Fatalf("udftest: oracle slice: %v", err)
	}
	return v.Contiguous()
}

func same(a, b *nd.Array) error {
	if a.DType() != b.DType() || !slices.Equal(a.Shape(), b.Shape()) {
		return fmt.Errorf("got %v %v, want %v %v", a.DType(), a.Shape(), b.DType(), b.Shape())
	}
	if !bytes.Equal(a.AppendBytes(nil, false), b.AppendBytes(nil, false)) {
		return fmt.Errorf("values differ")
	}
	return nil
}

func (c *checker) read(rd udfbridge.TileReader, what string, start, n int, st, ss []int) {
	c.t.Helper()
	got, err := rd.Read(context.Background(), start, n, st, ss)
	if err != nil {
		c.t.Fatalf("udftest: %s Read(%d, %d, %v, %v): %v", what, start, n, st, ss, err)
	}
	if st == nil {
		st, ss = make([]int, len(c.sig)), c.sig
	}
	if err := same(got, c.want(start, n, st, ss)); err != nil {
		c.t.Fatalf("udftest: %s Read(%d, %d, %v, %v): %v", what, start, n, st, ss, err)
	}
}

// reads: whole frames, random ranges and regions, and every tile of
// partitions of several counts and tile shapes, as a task reads them.
func (c *checker) reads() {
	c.t.Helper()
	c.read(c.ds, "dataset", 0, c.n, nil, nil)
	rng := rand.New(rand.NewPCG(1, uint64(c.n)))
	for range 25 {
		start := rng.IntN(c.n + 1)
		n := rng.IntN(c.n - start + 1)
		st, ss := make([]int, len(c.sig)), make([]int, len(c.sig))
		for i, s := range c.sig {
			st[i] = rng.IntN(s + 1)
			ss[i] = rng.IntN(s - st[i] + 1)
		}
		c.read(c.ds, "dataset", start, n, st, ss)
	}
	for _, p := range []int{1, 2, 7} {
		b := udfbridge.Partitions(c.n, p)
		for _, target := range []int{1, 64, 1000, 1 << 20} {
			ts, depth := udfbridge.TileShape(c.sig, c.ds.DType(), target, 0)
			for i := range p {
				tiles, err := udfbridge.TileRegions(b[i], b[i+1], c.sig, ts, depth)
				if err != nil {
					c.t.Fatalf("udftest: %v", err)
				}
				rd := udfbridge.NewTaskReader(c.ds, b[i+1])
				for _, tl := range tiles {
					c.read(c.ds, "dataset", tl.Start, tl.N, tl.SigStart, tl.SigShape)
					c.read(rd, "task reader", tl.Start, tl.N, tl.SigStart, tl.SigShape)
				}
				if cl, ok := rd.(io.Closer); ok && rd != udfbridge.TileReader(c.ds) {
					cl.Close()
				}
			}
		}
	}
}

func (c *checker) outOfRange() {
	c.t.Helper()
	for _, r := range []struct {
		start, n int
		st, ss   []int
	}{
		{-1, 1, nil, nil}, {c.n, 1, nil, nil}, {0, c.n + 1, nil, nil},
		{0, 1, make([]int, len(c.sig)+1), nil},
		{0, 1, make([]int, len(c.sig)), append([]int{c.sig[0] + 1}, c.sig[1:]...)},
	} {
		if _, err := c.ds.Read(context.Background(), r.start, r.n, r.st, r.ss); err == nil {
			c.t.Errorf("udftest: Read(%d, %d, %v, %v) out of range: no error", r.start, r.n, r.st, r.ss)
		}
	}
}

// spec: the dataset reopened from its Spec reads the same and gives the
// same Spec.
func (c *checker) spec() {
	c.t.Helper()
	spec, err := c.ds.Spec()
	if err != nil {
		c.t.Logf("udftest: Spec: %v: the dataset runs in-process only", err)
		return
	}
	ds2, err := udfbridge.OpenSpec(spec)
	if err != nil {
		c.t.Fatalf("udftest: OpenSpec(%s): %v", spec.Kind, err)
	}
	spec2, err := ds2.Spec()
	if err != nil || spec2.Kind != spec.Kind || !bytes.Equal(spec2.Params, spec.Params) {
		c.t.Fatalf("udftest: Spec round trip: %s %q, want %s %q (%v)", spec2.Kind, spec2.Params, spec.Kind, spec.Params, err)
	}
	c.read(ds2, "reopened dataset", c.n/3, c.n-c.n/3, nil, nil)
}

// runs: SumUDF (sum over frames, sig-shaped) and SumSigUDF (sum over
// each frame, nav-shaped) against float64 sums of the data.
func (c *checker) runs() {
	c.t.Helper()
	vals := c.values()
	s := prod(c.sig)
	rng := rand.New(rand.NewPCG(2, uint64(c.n)))
	roi := make([]bool, c.n)
	for i := range roi {
		roi[i] = rng.IntN(3) != 0
	}
	roi[0] = true
	for _, useROI := range []bool{false, true} {
		sum := make([]complex128, s)
		sumSig := make([]complex128, c.n)
		in := func(i int) bool { return !useROI || roi[i] }
		for i := 0; i < c.n; i++ {
			if !in(i) {
				continue
			}
			for j := 0; j < s; j++ {
				sum[j] += vals[i*s+j]
				sumSig[i] += vals[i*s+j]
			}
		}
		for _, sc := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 3}} {
			for _, p := range []int{1, 3, 7} {
				opts := []udfbridge.RunOption{udfbridge.WithPartitions(min(p, max(c.n, 1))), udfbridge.WithScheduler(sc)}
				if useROI {
					r, _ := nd.FromSlice(slices.Clone(roi), c.nav...)
					opts = append(opts, udfbridge.WithROI(r))
				}
				what := fmt.Sprintf("udftest: roi=%v %T partitions=%d", useROI, sc, p)
				res, err := udfbridge.Run(context.Background(), c.ds, []udfbridge.UDF{&udfbridge.SumUDF{}, &udfbridge.SumSigUDF{}}, opts...)
				if err != nil {
					c.t.Fatalf("%s: %v", what, err)
				}
				c.close(what+" SumUDF", res[0], sum, nil)
				c.close(what+" SumSigUDF", res[1], sumSig, func(i int) bool { return in(i) })
			}
		}
	}
}

// values returns the data as complex128, flat.
func (c *checker) values() []complex128 {
	a, err := c.data.AsType(nd.Complex128)
	if err != nil {
		c.t.Fatalf("udftest: %v", err)
	}
	v, err := nd.Values[complex128](a.Contiguous())
	if err != nil {
		c.t.Fatalf("udftest: %v", err)
	}
	return v
}

// close compares a result's "intensity" with want: relative tolerance
// 1e-4 of the largest magnitude for float32 input (sums rounded at every
// step), 1e-10 otherwise; positions where in is false are the fill value.
func (c *checker) close(what string, r *udfbridge.Results, want []complex128, in func(int) bool) {
	c.t.Helper()
	a, err := r.Data("intensity")
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	b, err := a.AsType(nd.Complex128)
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	got, _ := nd.Values[complex128](b.Contiguous())
	if len(got) != len(want) {
		c.t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale := 1.0
	for _, w := range want {
		scale = max(scale, cmplx.Abs(w))
	}
	tol := 1e-10
	if a.DType() == nd.Float32 || a.DType() == nd.Complex64 {
		tol = 1e-4
	}
	for i, w := range want {
		if in != nil && !in(i) {
			if !cmplx.IsNaN(got[i]) && !math.IsNaN(real(got[i])) {
				c.t.Fatalf("%s: [%d] outside the ROI is %v, want NaN", what, i, got[i])
			}
			continue
		}
		if cmplx.Abs(got[i]-w) > tol*scale {
			c.t.Fatalf("%s: [%d] = %v, want %v (tolerance %g of %g)", what, i, got[i], w, tol, scale)
		}
	}
}
