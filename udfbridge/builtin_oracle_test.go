package udfbridge

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/tessera-go/tessera/nd"
)

// The oracles of the built-in UDFs' tests: plain loops over the whole raw
// data held as complex128 (exact for uint16 and float32 values), with none
// of the tiling, partitioning or merging of a run.

// rawFrames is a dataset's whole data as n frames of sigSize values.
type rawFrames struct {
	nav, sig []int
	n, size  int
	v        []complex128 // n*size, C order
	dtype    nd.DType
}

func (r *rawFrames) frame(i int) []complex128 { return r.v[i*r.size : (i+1)*r.size] }

// makeData draws a dataset's values: small non-negative integers for
// integer dtypes, values in [0, 100) (plus an imaginary part) otherwise.
func makeData(rng *rand.Rand, d nd.DType, nav, sig []int) (*nd.Array, *rawFrames, error) {
	n, size := prod(nav), prod(sig)
	shape := append(slices.Clone(nav), sig...)
	v := make([]complex128, n*size)
	for i := range v {
		switch {
		case d.IsInteger():
			v[i] = complex(float64(rng.IntN(1000)), 0)
		case d.IsComplex():
			v[i] = complex(float64(rng.IntN(400))/4, float64(rng.IntN(400))/4-50)
		default:
			// quarters: sums stay exact in float32, whatever the order
			v[i] = complex(float64(rng.IntN(400))/4, 0)
		}
	}
	c, err := nd.FromSlice(v, shape...)
	if err != nil {
		return nil, nil, err
	}
	a, err := c.AsType(d)
	if err != nil {
		return nil, nil, err
	}
	return a, &rawFrames{nav: nav, sig: sig, n: n, size: size, v: v, dtype: d}, nil
}

func prod(s []int) int {
	p := 1
	for _, x := range s {
		p *= x
	}
	return p
}

// testDS is a minimal in-memory Dataset for these tests, independent of
// memory.go: Read copies with plain index arithmetic.
type testDS struct {
	a        *nd.Array // nav+sig, C contiguous
	nav, sig []int
	id       int
}

func (t *testDS) NavShape() []int { return t.nav }
func (t *testDS) SigShape() []int { return t.sig }
func (t *testDS) DType() nd.DType { return t.a.DType() }

// Spec names the array in a process-local table (kind "builtin-test"):
// enough for in-process schedulers.
func (t *testDS) Spec() (DatasetSpec, error) {
	testDSs.Lock()
	defer testDSs.Unlock()
	if t.id == 0 {
		testDSs.next++
		t.id = testDSs.next
		testDSs.m[t.id] = t
	}
	return DatasetSpec{Kind: "builtin-test", Params: []byte(fmt.Sprint(t.id))}, nil
}

var testDSs = struct {
	sync.Mutex
	m    map[int]*testDS
	next int
}{m: map[int]*testDS{}}

func init() {
	RegisterDatasetKind("builtin-test", func(p []byte) (Dataset, error) {
		var id int
		if _, err := fmt.Sscan(string(p), &id); err != nil {
			return nil, err
		}
		testDSs.Lock()
		defer testDSs.Unlock()
		if t := testDSs.m[id]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("builtin-test dataset %d unknown", id)
	})
}

func (t *testDS) Read(_ context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	if sigStart == nil {
		sigStart = make([]int, len(t.sig))
		sigShape = t.sig
	}
	nf := prod(t.nav)
	if start < 0 || n < 0 || start+n > nf {
		return nil, fmt.Errorf("testDS: read [%d, %d) of %d frames", start, start+n, nf)
	}
	flat, err := t.a.Reshape(append([]int{nf}, t.sig...)...)
	if err != nil {
		return nil, err
	}
	s := []nd.Slice1{{Start: start, Stop: start + n, Step: 1}}
	for i := range t.sig {
		s = append(s, nd.Slice1{Start: sigStart[i], Stop: sigStart[i] + sigShape[i], Step: 1})
	}
	v, err := flat.Slice(s...)
	if err != nil {
		return nil, err
	}
	return v.Copy(), nil
}

// randomROI draws a flat ROI of the kind named: "none" (nil), "full",
// "empty", "one-row" (the last row of the nav grid), "random".
func randomROI(rng *rand.Rand, kind string, nav []int) []bool {
	n := prod(nav)
	roi := make([]bool, n)
	switch kind {
	case "none":
		return nil
	case "full":
		for i := range roi {
			roi[i] = true
		}
	case "empty":
	case "one-row":
		w := nav[len(nav)-1]
		for i := n - w; i < n; i++ {
			roi[i] = true
		}
	case "random":
		for i := range roi {
			roi[i] = rng.IntN(3) == 0
		}
	}
	return roi
}

func inROI(roi []bool, i int) bool { return roi == nil || roi[i] }

func oracleSum(r *rawFrames, roi []bool) []complex128 {
	out := make([]complex128, r.size)
	for i := 0; i < r.n; i++ {
		if !inROI(roi, i) {
			continue
		}
		for j, x := range r.frame(i) {
			out[j] += x
		}
	}
	return out
}

// oracleSumSig is the per-frame sum over sig, NaN outside the ROI.
func oracleSumSig(r *rawFrames, roi []bool) []complex128 {
	out := make([]complex128, r.n)
	for i := 0; i < r.n; i++ {
		if !inROI(roi, i) {
			out[i] = cmplx.NaN()
			continue
		}
		for _, x := range r.frame(i) {
			out[i] += x
		}
	}
	return out
}

// oracleMoments is the two-pass mean and population variance over the
// frames in the ROI, per sig pixel (variance as mean |x - mean|²).
func oracleMoments(r *rawFrames, roi []bool) (count int, mean []complex128, variance []float64) {
	mean = make([]complex128, r.size)
	variance = make([]float64, r.size)
	for i := 0; i < r.n; i++ {
		if inROI(roi, i) {
			count++
		}
	}
	sum := oracleSum(r, roi)
	for j := range mean {
		mean[j] = sum[j] / complex(float64(count), 0)
	}
	for i := 0; i < r.n; i++ {
		if !inROI(roi, i) {
			continue
		}
		for j, x := range r.frame(i) {
			d := x - mean[j]
			variance[j] += real(d)*real(d) + imag(d)*imag(d)
		}
	}
	for j := range variance {
		variance[j] /= float64(count)
	}
	return count, mean, variance
}

// oracleMasks is, per frame, the dot product of the frame with each of
// the k masks (k × size, row-major), NaN outside the ROI; result n × k.
func oracleMasks(r *rawFrames, roi []bool, masks []complex128, k int) []complex128 {
	out := make([]complex128, r.n*k)
	for i := 0; i < r.n; i++ {
		for m := 0; m < k; m++ {
			if !inROI(roi, i) {
				out[i*k+m] = cmplx.NaN()
				continue
			}
			var s complex128
			for j, x := range r.frame(i) {
				s += x * masks[m*r.size+j]
			}
			out[i*k+m] = s
		}
	}
	return out
}

// oracleExtreme is the per-pixel maximum (max) or minimum over the frames
// in the ROI of real data; ∓Inf where there is none.
func oracleExtreme(r *rawFrames, roi []bool, max bool) []complex128 {
	out := make([]complex128, r.size)
	for j := range out {
		if max {
			out[j] = complex(math.Inf(-1), 0)
		} else {
			out[j] = complex(math.Inf(1), 0)
		}
	}
	for i := 0; i < r.n; i++ {
		if !inROI(roi, i) {
			continue
		}
		for j, x := range r.frame(i) {
			if (max && real(x) > real(out[j])) || (!max && real(x) < real(out[j])) {
				out[j] = x
			}
		}
	}
	return out
}

// oracleLogSum is Σ log(frame - min(frame) + 1) over the frames in the ROI.
func oracleLogSum(r *rawFrames, roi []bool) []complex128 {
	out := make([]complex128, r.size)
	for i := 0; i < r.n; i++ {
		if !inROI(roi, i) {
			continue
		}
		f := r.frame(i)
		mn := math.Inf(1)
		for _, x := range f {
			mn = math.Min(mn, real(x))
		}
		for j, x := range f {
			out[j] += complex(math.Log(real(x)-mn+1), 0)
		}
	}
	return out
}

// closeTo compares got (any dtype) with want elementwise: NaN matches NaN
// and otherwise |got - want| ≤ tol·(1 + |want|).
func closeTo(name string, got *nd.Array, want []complex128, tol float64) error {
	if got == nil {
		return fmt.Errorf("%s: nil result", name)
	}
	c, err := got.AsType(nd.Complex128)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	g, err := nd.Values[complex128](c)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if len(g) != len(want) {
		return fmt.Errorf("%s: %d values (shape %v), want %d", name, len(g), got.Shape(), len(want))
	}
	for i := range g {
		gn, wn := cmplx.IsNaN(g[i]), cmplx.IsNaN(want[i])
		if gn || wn {
			if gn != wn {
				return fmt.Errorf("%s[%d] = %v, want %v", name, i, g[i], want[i])
			}
			continue
		}
		if cmplx.IsInf(want[i]) {
			if g[i] != want[i] {
				return fmt.Errorf("%s[%d] = %v, want %v", name, i, g[i], want[i])
			}
			continue
		}
		if cmplx.Abs(g[i]-want[i]) > tol*(1+cmplx.Abs(want[i])) {
			return fmt.Errorf("%s[%d] = %v, want %v (tol %g)", name, i, g[i], want[i], tol)
		}
	}
	return nil
}

func realsOf(x []float64) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = complex(v, 0)
	}
	return out
}
