package chunkarray

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestDiffNumpy is a randomized differential test against numpy:
// testdata/gen_diff.py draws, from a fixed seed, thousands of random
// expressions over the chunkarray API (elementwise ufuncs, comparisons
// and logical ops, Where, AsType, reductions with axes, keepdims, ddof
// and dtype=, the NaN reductions, arg and cumulative reductions, Index
// with every kind of selection, Take, Compress, Transpose, Reshape,
// Squeeze, ExpandDims, Concatenate, Stack, Dot, Matmul, Tensordot,
// Einsum, Ptp, CountNonzero, Median, NanMedian, Sort, ArgSort, Argwhere,
// Flatnonzero, Unique, IsIn, SearchSorted, Digitize, Norm, Average, FFT,
// IFFT, RFFT) over inputs of 0 to 4 axes (size-0 and size-1 axes), every
// dtype, Python scalars and 0-d operands, with NaN, infinities,
// negatives, zeros and integer extremes among the values, and stores
// each AST, its inputs and numpy's result (or numpy's error) in
// testdata/diff. What it leaves out, and why (chunkarray's documented
// deviations, numpy's own bugs, order-dependent or ill-conditioned
// results), is listed in gen_diff.py's doc.
//
// This test interprets each AST with the chunkarray API over inputs
// chunked at random (seeded by the expression's index: irregular chunks,
// zero-length ones among them), and computes it four ways: two
// chunkings, each on Sync and on Threaded(2), one fused and one unfused
// (WithOptimize(false)), so that every combination of scheduler and
// fusion runs; one expression in seven also runs from its graph encoded
// to JSON and decoded. Intermediate results are rechunked at random one
// time in five, and reductions get a random split_every. An expression
// with an Index by a lone bool list runs a third time with it as Mask of
// a lazy bool array (an axis of Unknown length downstream, unknown.go),
// on Sync fused and Threaded unfused; where an op needs the sizes (an
// error wrapping ErrUnknownChunks) that layout is passed over. Argwhere,
// Flatnonzero and Unique, whose results have unknown chunks, get
// ComputeChunkSizes in the first two layouts, not in the third.
//
// It runs the first diffDefault expressions by default (a few seconds on
// two cores), all of them with TESSERA_DIFF_ALL=1; TESSERA_DIFF_DIR reads
// another corpus (gen_diff.py with GEN_DIFF_SEED, GEN_DIFF_N and
// CONFORMANCE_OUT).
//
// Agreement: dtype and shape exactly; bool and integer values exactly;
// where numpy raises, chunkarray must return an error (at build time or
// from Compute), never panic; except that an error of a value (numpy's
// "Integers to negative integer powers are not allowed") needs its
// element computed: an empty result of a lazy expression has none, and a
// selection (Index, Take, Compress, Where) may leave it out. Floating
// values agree when NaN meets NaN, an infinity the same infinity, or
//
//	|got - want| <= rtol * (|want| + S)
//
// part by part for complex ones, of which any two with a NaN part agree
// (numpy's isnan: which NaN or infinity the other part holds depends on
// the order of a reduction's or a product's operations; gen_diff.py
// draws no non-finite complex values, so this is a safety net). S is the
// largest finite magnitude of the result, for reductions at least 1 and
// M, the largest finite magnitude among the expression's inputs (a
// variance of equal values is 0 in one order and a few ulp of the mean
// squared in another; a mean of int32 extremes merges moments of size
// 2^31 where numpy sums them exactly in float64). rtol is the loosest of
// the expression's op classes below, in units of eps: that of float32
// (1.2e-7) when the expression computes any float32 or complex64 value
// on the way (an exp in float32 promoted to float64 later; a NaN
// reduction of such an input, since numpy's nanvar keeps the deviations
// in the input's dtype whatever dtype= says), of float64 (2.2e-16)
// otherwise; n is the number of input elements of the expression:
//
//	class                                          rtol             S
//	exact: indexing, shape ops, Where, AsType,     0                -
//	  comparisons, logical, min/max, negative,
//	  sort, argsort, count_nonzero
//	ieee: + - * / square sqrt ptp (correctly       4 eps            max|want|
//	  rounded; float32 may round twice through
//	  float64)
//	libm: exp log sin cos arctan2 floor_divide     16 eps           max|want|
//	  remainder, absolute (hypot for complex;
//	  libraries differ by a few ulp)
//	tan, power (Go's math.Tan is ~100 ulp off      256 eps          max|want|
//	  near the poles, tan(1.559) for one; complex
//	  power is exp(y log x) here, repeated
//	  multiplication in numpy for small integer y)
//	reduce: sum prod mean var std nan*, median,    max(16, 4n) eps  max(1, M, max|want|)
//	  cumsum, cumprod, dot, matmul, tensordot,
//	  einsum, norm, average, fft, ifft, rfft
//	  (other summation orders, moment merges)
//
// S is the result's largest finite magnitude, not the element's, because
// a difference of a few ulp upstream cancels to an arbitrarily small
// value downstream.
func TestDiffNumpy(t *testing.T) {
	c := loadDiffCorpus(t)
	n := diffDefault
	if testing.Short() {
		n = diffShort
	}
	if os.Getenv("TESSERA_DIFF_ALL") == "1" {
		n = len(c.Exprs)
	}
	n = min(n, len(c.Exprs))
	var fails []string
	byOp := map[string][2]int{}
	for i := range n {
		e := c.Exprs[i]
		f := runDiff(c, i)
		op := e.E.Op
		if e.E.F != "" {
			op += ":" + e.E.F
		}
		s := byOp[op]
		s[0]++
		if f != "" {
			s[1]++
			fails = append(fails, fmt.Sprintf("expr %d %s: %s", i, diffString(&e.E), f))
		}
		byOp[op] = s
	}
	t.Logf("%d expressions, %d agree (%.2f%%)", n, n-len(fails), 100*float64(n-len(fails))/float64(n))
	if len(fails) > 0 {
		keys := make([]string, 0, len(byOp))
		for k := range byOp {
			if byOp[k][1] > 0 {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			t.Logf("  %-24s %d of %d disagree", k, byOp[k][1], byOp[k][0])
		}
		for j, f := range fails {
			if j == 60 && os.Getenv("TESSERA_DIFF_VERBOSE") != "1" {
				t.Errorf("... and %d more (TESSERA_DIFF_VERBOSE=1 lists them all)", len(fails)-j)
				break
			}
			t.Error(f)
		}
	}
}

const (
	diffDir     = "testdata/diff"
	diffDefault = 5000
	diffShort   = 500
)

// diffNode is an AST node of gen_diff.py: an input ({"in": k}), a Python
// scalar ({"s": v, "k": "b"|"i"|"f"}) or an operation.
type diffNode struct {
	In     *int            `json:"in"`
	S      json.RawMessage `json:"s"`
	K      string          `json:"k"`
	Op     string          `json:"op"`
	F      string          `json:"f"`
	A      []*diffNode     `json:"a"`
	Axes   []int           `json:"axes"` // nil: None
	Axis   *int            `json:"axis"` // nil: None
	Keep   bool            `json:"keep"`
	Ddof   int             `json:"ddof"`
	DT     string          `json:"dt"`
	Method string          `json:"method"`
	Sel    [][]any         `json:"sel"`
	Idx    []int           `json:"idx"`
	Cond   []bool          `json:"cond"`
	Shape  []int           `json:"shape"`
	AxA    []int           `json:"axa"`
	AxB    []int           `json:"axb"`
	Sub    string          `json:"sub"`
	Inv    bool            `json:"inv"`
	Right  bool            `json:"right"`
	Ord    any             `json:"ord"`
	N      *int            `json:"n"`
	Norm   *string         `json:"norm"`
}

type diffExpr struct {
	E     diffNode `json:"e"`
	In    []int    `json:"in"`
	Out   *int     `json:"out"`
	Error string   `json:"error"`
}

type diffCorpus struct {
	Seed   int64      `json:"seed"`
	Numpy  string     `json:"numpy"`
	Exprs  []diffExpr `json:"exprs"`
	arrays []*nd.Array
}

func gunzipFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(z)
}

func loadDiffCorpus(t *testing.T) *diffCorpus {
	t.Helper()
	dir := diffDir
	if d := os.Getenv("TESSERA_DIFF_DIR"); d != "" {
		dir = d // a corpus drawn with other GEN_DIFF_SEED/GEN_DIFF_N
	}
	c, err := readDiffCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readDiffCorpus(dir string) (*diffCorpus, error) {
	js, err := gunzipFile(filepath.Join(dir, "corpus.json.gz"))
	if err != nil {
		return nil, err
	}
	var c diffCorpus
	if err := json.Unmarshal(js, &c); err != nil {
		return nil, fmt.Errorf("corpus.json.gz: %w", err)
	}
	bin, err := gunzipFile(filepath.Join(dir, "arrays.bin.gz"))
	if err != nil {
		return nil, err
	}
	for len(bin) > 0 {
		if len(bin) < 2 || int(bin[0]) >= len(nd.DTypes) {
			return nil, fmt.Errorf("arrays.bin.gz: bad header at array %d", len(c.arrays))
		}
		dt, ndim := nd.DTypes[bin[0]], int(bin[1])
		bin = bin[2:]
		if len(bin) < 4*ndim {
			return nil, fmt.Errorf("arrays.bin.gz: short shape at array %d", len(c.arrays))
		}
		shape := make([]int, ndim)
		size := 1
		for i := range shape {
			shape[i] = int(binary.LittleEndian.Uint32(bin[4*i:]))
			size *= shape[i]
		}
		bin = bin[4*ndim:]
		nb := size * dt.Size()
		if len(bin) < nb {
			return nil, fmt.Errorf("arrays.bin.gz: short data at array %d", len(c.arrays))
		}
		a, err := nd.FromBytes(dt, shape, bytes.Clone(bin[:nb]), false, false)
		if err != nil {
			return nil, fmt.Errorf("arrays.bin.gz: array %d: %w", len(c.arrays), err)
		}
		c.arrays = append(c.arrays, a)
		bin = bin[nb:]
	}
	return &c, nil
}

// diffString renders an AST compactly, numpy-like, for failure messages.
func diffString(n *diffNode) string {
	if n.In != nil {
		return fmt.Sprintf("in%d", *n.In)
	}
	if n.Op == "" {
		return string(n.S)
	}
	var args []string
	for _, a := range n.A {
		args = append(args, diffString(a))
	}
	var p []string
	if n.F != "" {
		p = append(p, n.F)
	}
	switch n.Op {
	case "reduce", "nanreduce", "ptp", "count_nonzero", "median":
		p = append(p, fmt.Sprintf("axes=%v keep=%v ddof=%d dt=%q", axesString(n.Axes), n.Keep, n.Ddof, n.DT))
	case "sort":
		p = append(p, fmt.Sprintf("axis=%v", intpString(n.Axis)))
	case "arg", "cum":
		p = append(p, fmt.Sprintf("axis=%v keep=%v method=%s", intpString(n.Axis), n.Keep, n.Method))
	case "astype":
		p = append(p, n.DT)
	case "index":
		p = append(p, fmt.Sprint(n.Sel))
	case "take":
		p = append(p, fmt.Sprintf("axis=%v idx=%v", intpString(n.Axis), n.Idx))
	case "compress":
		p = append(p, fmt.Sprintf("axis=%v cond=%v", intpString(n.Axis), n.Cond))
	case "transpose", "squeeze", "expand":
		p = append(p, axesString(n.Axes))
	case "reshape":
		p = append(p, fmt.Sprint(n.Shape))
	case "concat", "stack":
		p = append(p, fmt.Sprintf("axis=%v", intpString(n.Axis)))
	case "tensordot":
		p = append(p, fmt.Sprintf("%v,%v", n.AxA, n.AxB))
	case "norm":
		p = append(p, fmt.Sprintf("ord=%v axes=%v keep=%v", n.Ord, axesString(n.Axes), n.Keep))
	case "average":
		p = append(p, fmt.Sprintf("axes=%v keep=%v", axesString(n.Axes), n.Keep))
	case "fft":
		p = append(p, fmt.Sprintf("axis=%v n=%v norm=%v", intpString(n.Axis), intpString(n.N), n.Norm))
	case "isin":
		p = append(p, fmt.Sprintf("invert=%v", n.Inv))
	case "searchsorted", "digitize":
		p = append(p, fmt.Sprintf("right=%v", n.Right))
	case "einsum":
		p = append(p, n.Sub)
	}
	return fmt.Sprintf("%s[%s](%s)", n.Op, strings.Join(p, " "), strings.Join(args, ", "))
}

func axesString(a []int) string {
	if a == nil {
		return "None"
	}
	return fmt.Sprint(a)
}

func intpString(p *int) string {
	if p == nil {
		return "None"
	}
	return strconv.Itoa(*p)
}

// diffRun is one way of computing an expression; no options: through
// its graph encoded as JSON and decoded (computeThroughJSON), for one
// expression in seven.
type diffRun struct {
	name string
	opts []Option
}

var diffRuns = [2][2]diffRun{
	{{"sync-fused", []Option{WithScheduler(sched.Sync{})}},
		{"threaded-unfused", []Option{WithScheduler(sched.Threaded{Workers: 2}), WithOptimize(false)}}},
	{{"threaded-fused", []Option{WithScheduler(sched.Threaded{Workers: 2})}},
		{"sync-unfused", []Option{WithScheduler(sched.Sync{}), WithOptimize(false)}}},
}

// runDiff computes expression i and returns "" when it agrees with numpy.
func runDiff(c *diffCorpus, i int) string {
	e := &c.Exprs[i]
	var want *nd.Array
	if e.Out != nil {
		want = c.arrays[*e.Out]
	}
	for layout := range 3 {
		if layout == 2 && !hasMaskable(&e.E) {
			break
		}
		rng := rand.New(rand.NewPCG(uint64(c.Seed), uint64(i*3+layout)))
		in := &diffInputs{c: c, e: e, rng: rng, lazy: map[int]*Array{}, built: map[*diffNode]any{}, mask: layout == 2}
		x, err := protect(func() (*Array, error) {
			v, err := in.eval(&e.E)
			if err != nil {
				return nil, err
			}
			x, ok := v.(*Array)
			if !ok {
				return nil, fmt.Errorf("the expression is a scalar")
			}
			return x, nil
		})
		if err != nil {
			return fmt.Sprintf("layout %d: building: %v", layout, err)
		}
		if want == nil && x.Err() != nil {
			continue // refused at build time, as numpy refuses
		}
		if layout == 2 && errors.Is(x.Err(), ErrUnknownChunks) {
			continue // an op that needs the sizes (unknown.go's list)
		}
		runs := diffRuns[min(layout, 1)][:]
		if layout == 0 && i%7 == 0 {
			runs = append(runs, diffRun{name: "json-sync"})
		}
		for _, r := range runs {
			got, err := protect(func() (*nd.Array, error) {
				if r.opts == nil {
					return computeThroughJSON(x)
				}
				return x.Compute(context.Background(), r.opts...)
			})
			if want == nil {
				if err == nil && strings.Contains(e.Error, "negative integer powers") && (got.Size() == 0 || diffSelects(&e.E)) {
					continue // lazy: a value's error needs its element computed
				}
				if err == nil {
					return fmt.Sprintf("%s: got %s%v, want an error as numpy's %q", r.name, got.DType(), got.Shape(), e.Error)
				}
				if strings.Contains(err.Error(), "panic") {
					return fmt.Sprintf("%s: want a typed error as numpy's %q, got %v", r.name, e.Error, err)
				}
				continue
			}
			if layout == 2 && errors.Is(err, ErrUnknownChunks) {
				break
			}
			if err != nil {
				return fmt.Sprintf("%s (chunks %s): %v", r.name, in.chunkDesc(), err)
			}
			dt := want.DType()
			if in.f32 && dt == nd.Float64 {
				dt = nd.Float32
			} else if in.f32 && dt == nd.Complex128 {
				dt = nd.Complex64
			}
			rtol, floor := diffTolerance(&e.E, dt, c, e)
			d, err := protect(func() (string, error) { return compareDiff(got, want, rtol, floor), nil })
			if err != nil {
				d = "comparing: " + err.Error()
			}
			if d != "" {
				return fmt.Sprintf("%s (chunks %s): %s", r.name, in.chunkDesc(), d)
			}
		}
	}
	return ""
}

// diffInputs builds an expression's inputs: each leaf is FromNDArray with
// a random chunking, made once per layout.
type diffInputs struct {
	f32    bool // some node computes float32 or complex64
	mask   bool // a lone Bools selection becomes Mask of a lazy array
	c      *diffCorpus
	e      *diffExpr
	rng    *rand.Rand
	lazy   map[int]*Array
	built  map[*diffNode]any // each node is built once (ndim asks too)
	chunks []string
}

func (d *diffInputs) chunkDesc() string { return strings.Join(d.chunks, " ") }

func (d *diffInputs) leaf(k int) *nd.Array { return d.c.arrays[d.e.In[k]] }

// array returns input k as an *Array chunked at random.
func (d *diffInputs) array(k int) *Array {
	if x, ok := d.lazy[k]; ok {
		return x
	}
	a := d.leaf(k)
	spec := make([][]int, a.NDim())
	for ax, n := range a.Shape() {
		spec[ax] = diffRandomChunks(d.rng, n)
	}
	d.chunks = append(d.chunks, fmt.Sprintf("in%d=%v", k, spec))
	x := FromNDArray(a, spec)
	d.lazy[k] = x
	return x
}

// diffRandomChunks cuts n into random chunk lengths, sometimes with a
// zero-length chunk among them.
func diffRandomChunks(rng *rand.Rand, n int) []int {
	var out []int
	for left := n; left > 0; {
		c := 1 + rng.IntN(left)
		if rng.IntN(3) == 0 {
			c = left
		}
		out = append(out, c)
		left -= c
	}
	if len(out) == 0 {
		out = []int{0}
	}
	if rng.IntN(8) == 0 {
		out = slices.Insert(out, rng.IntN(len(out)+1), 0)
	}
	return out
}

func (d *diffInputs) arrays(ns []*diffNode) ([]*Array, error) {
	out := make([]*Array, len(ns))
	for i, n := range ns {
		v, err := d.eval(n)
		if err != nil {
			return nil, err
		}
		x, ok := v.(*Array)
		if !ok {
			return nil, fmt.Errorf("operand %d of an array op is a scalar", i)
		}
		out[i] = x
	}
	return out, nil
}

func (d *diffInputs) ndim(n *diffNode) int {
	if n.In != nil {
		return d.leaf(*n.In).NDim()
	}
	if n.Op == "" {
		return 0
	}
	v, err := d.eval(n)
	if err != nil {
		return 0
	}
	return v.(*Array).NDim()
}

// operands evaluates elementwise operands: a 0-d input beside an n-d
// operand is an *nd.Array (numpy's value-based casting of a 0-d array,
// which gen_diff.py keeps there); Python scalars are Go scalars.
func (d *diffInputs) operands(ns []*diffNode) ([]any, error) {
	maxND := 0
	for _, n := range ns {
		maxND = max(maxND, d.ndim(n))
	}
	out := make([]any, len(ns))
	for i, n := range ns {
		if n.In != nil && d.leaf(*n.In).NDim() == 0 && maxND > 0 {
			out[i] = d.leaf(*n.In)
			continue
		}
		v, err := d.eval(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (d *diffInputs) scalar(n *diffNode) (any, error) {
	switch n.K {
	case "b":
		var b bool
		err := json.Unmarshal(n.S, &b)
		return b, err
	case "i":
		var i int64
		err := json.Unmarshal(n.S, &i)
		return int(i), err
	case "c":
		var p [2]float64
		err := json.Unmarshal(n.S, &p)
		return complex(p[0], p[1]), err
	case "f":
		var s string
		if json.Unmarshal(n.S, &s) == nil {
			switch s {
			case "nan":
				return math.NaN(), nil
			case "inf":
				return math.Inf(1), nil
			case "-inf":
				return math.Inf(-1), nil
			}
			return nil, fmt.Errorf("bad float %q", s)
		}
		var f float64
		err := json.Unmarshal(n.S, &f)
		return f, err
	}
	return nil, fmt.Errorf("bad scalar kind %q", n.K)
}

func parseDiffDType(s string) (nd.DType, error) {
	if s == "" {
		return nd.Invalid, nil
	}
	for _, dt := range nd.DTypes {
		if dt.String() == s {
			return dt, nil
		}
	}
	return nd.Invalid, fmt.Errorf("unknown dtype %q", s)
}

// eval builds node n: an *Array, or a Go scalar for a Python scalar.
// Errors are the corpus's (an unknown op), not chunkarray's: those stay
// sticky in the Array.
//
// An operation's result is rechunked at random one time in five (chunks
// of its own, zero-length ones among them), which changes no value.
func (d *diffInputs) eval(n *diffNode) (any, error) {
	if v, ok := d.built[n]; ok {
		return v, nil
	}
	v, err := d.build(n)
	if err != nil {
		return nil, err
	}
	if x, ok := v.(*Array); ok && n.In == nil && x.Err() == nil {
		if dt := x.DType(); dt == nd.Float32 || dt == nd.Complex64 {
			d.f32 = true
		}
		if x.Known() && d.rng.IntN(5) == 0 {
			spec := make([][]int, x.NDim())
			for ax, l := range x.Shape() {
				spec[ax] = diffRandomChunks(d.rng, l)
			}
			d.chunks = append(d.chunks, fmt.Sprintf("%s->%v", n.Op, spec))
			v = x.Rechunk(spec)
		}
	}
	d.built[n] = v
	return v, nil
}

// build is eval without the bookkeeping.
func (d *diffInputs) build(n *diffNode) (any, error) {
	if n.In != nil {
		return d.array(*n.In), nil
	}
	if n.Op == "" {
		return d.scalar(n)
	}
	switch n.Op {
	case "unary":
		op, err := nd.ParseUnaryOp(n.F)
		if err != nil {
			return nil, err
		}
		a, err := d.operands(n.A)
		if err != nil {
			return nil, err
		}
		return Unary(op, a[0]), nil
	case "binary":
		op, err := nd.ParseBinaryOp(n.F)
		if err != nil {
			return nil, err
		}
		a, err := d.operands(n.A)
		if err != nil {
			return nil, err
		}
		return Binary(op, a[0], a[1]), nil
	case "where":
		a, err := d.operands(n.A)
		if err != nil {
			return nil, err
		}
		return Where(a[0], a[1], a[2]), nil
	}
	xs, err := d.arrays(n.A)
	if err != nil {
		return nil, err
	}
	dt, err := parseDiffDType(n.DT)
	if err != nil {
		return nil, err
	}
	x := xs[0]
	axis, flat := 0, n.Axis == nil
	if n.Axis != nil {
		axis = *n.Axis
	}
	switch n.Op {
	case "astype":
		return x.AsType(dt), nil
	case "reduce":
		op, err := nd.ParseReduceOp(n.F)
		if err != nil {
			return nil, err
		}
		return x.Reduce(op, n.Axes, ReduceOpts{Keepdims: n.Keep, Ddof: n.Ddof, DType: dt, SplitEvery: d.splitEvery()}), nil
	case "nanreduce":
		if dt := x.DType(); dt == nd.Float32 || dt == nd.Complex64 {
			d.f32 = true // numpy's nanvar keeps x - mean in x's dtype
		}
		o := ReduceOpts{Keepdims: n.Keep, Ddof: n.Ddof, SplitEvery: d.splitEvery(), DType: dt}
		switch n.F {
		case "nansum":
			return x.NanSum(n.Axes, o), nil
		case "nanprod":
			return x.NanProd(n.Axes, o), nil
		case "nanmin":
			return x.NanMin(n.Axes, o), nil
		case "nanmax":
			return x.NanMax(n.Axes, o), nil
		case "nanmean":
			return x.NanMean(n.Axes, o), nil
		case "nanvar":
			return x.NanVar(n.Axes, o), nil
		case "nanstd":
			return x.NanStd(n.Axes, o), nil
		}
	case "arg":
		o := ReduceOpts{Keepdims: n.Keep, SplitEvery: d.splitEvery()}
		switch n.F {
		case "argmin":
			return x.ArgReduce(nd.ArgMin, axis, flat, o), nil
		case "argmax":
			return x.ArgReduce(nd.ArgMax, axis, flat, o), nil
		case "nanargmin":
			return x.NanArgMin(axis, flat, o), nil
		case "nanargmax":
			return x.NanArgMax(axis, flat, o), nil
		}
	case "ptp":
		return x.Ptp(n.Axes, n.Keep), nil
	case "count_nonzero":
		return x.CountNonzero(n.Axes, n.Keep), nil
	case "median":
		if n.F == "nanmedian" {
			return x.NanMedian(n.Axes, n.Keep), nil
		}
		return x.Median(n.Axes, n.Keep), nil
	case "sort":
		// The axis must be one chunk (Sort's doc): rechunk it whole.
		if ax, err := nd.NormalizeAxes("sort", []int{axis}, x.NDim()); err == nil && x.Err() == nil {
			ch := slices.Clone(x.Chunks())
			ch[ax[0]] = []int{x.Shape()[ax[0]]}
			x = x.Rechunk(ch)
		}
		if n.F == "argsort" {
			return x.ArgSort(axis), nil
		}
		return x.Sort(axis), nil
	case "cum":
		o := CumOpts{Method: n.Method, DType: dt}
		switch n.F {
		case "cumsum":
			return x.Cumsum(axis, flat, o), nil
		case "cumprod":
			return x.Cumprod(axis, flat, o), nil
		case "nancumsum":
			return x.NanCumsum(axis, flat, o), nil
		case "nancumprod":
			return x.NanCumprod(axis, flat, o), nil
		}
	case "index":
		if d.mask && len(n.Sel) == 1 && n.Sel[0][0] == "bools" && x.Err() == nil && x.NDim() > 0 && x.Known() {
			l, _ := n.Sel[0][1].([]any)
			m := make([]bool, len(l))
			for i, v := range l {
				m[i], _ = v.(bool)
			}
			ma, err := nd.FromSlice(m, len(m))
			if err != nil {
				return nil, err
			}
			spec := [][]int{diffRandomChunks(d.rng, len(m))}
			d.chunks = append(d.chunks, fmt.Sprintf("mask=%v", spec))
			return x.Index(Mask(FromNDArray(ma, spec))), nil
		}
		sels := make([]Sel, len(n.Sel))
		for i, s := range n.Sel {
			sel, err := diffSel(s)
			if err != nil {
				return nil, err
			}
			sels[i] = sel
		}
		return x.Index(sels...), nil
	case "take":
		if flat {
			return x.TakeFlat(n.Idx), nil
		}
		return x.Take(axis, n.Idx), nil
	case "compress":
		cond := n.Cond
		if cond == nil {
			cond = []bool{}
		}
		if flat {
			return x.CompressFlat(cond), nil
		}
		return x.Compress(cond, axis), nil
	case "transpose":
		return x.Transpose(n.Axes...), nil
	case "reshape":
		return x.Reshape(n.Shape...), nil
	case "squeeze":
		if n.Axes == nil && !x.Known() && x.Err() == nil {
			// Squeeze() keeps an axis of unknown length (it may be 1),
			// where numpy drops it when it is: this layout's pass-over
			return errArray(unknownError("squeeze", x.Shape(), slices.Index(x.Shape(), Unknown))), nil
		}
		return x.Squeeze(n.Axes...), nil
	case "expand":
		return x.ExpandDims(n.Axes...), nil
	case "concat":
		return Concatenate(xs, axis), nil
	case "stack":
		return Stack(xs, axis), nil
	case "dot":
		return Dot(xs[0], xs[1]), nil
	case "matmul":
		return Matmul(xs[0], xs[1]), nil
	case "tensordot":
		return Tensordot(xs[0], xs[1], n.AxA, n.AxB), nil
	case "einsum":
		return Einsum(n.Sub, xs...), nil
	case "argwhere":
		return d.sizes(Argwhere(x)), nil
	case "flatnonzero":
		return d.sizes(Flatnonzero(x)), nil
	case "unique":
		return d.sizes(x.Unique(UniqueOpts{}).Values), nil
	case "isin":
		return IsIn(x, xs[1], n.Inv), nil
	case "searchsorted":
		return SearchSorted(x, xs[1], n.Right), nil
	case "digitize":
		if n.A[1].In == nil {
			return nil, fmt.Errorf("digitize: bins must be an input")
		}
		return Digitize(x, d.leaf(*n.A[1].In), n.Right), nil
	case "norm":
		var ord any
		switch o := n.Ord.(type) {
		case float64:
			ord = o
			if o == math.Trunc(o) {
				ord = int(o)
			}
		case string:
			ord = o
			switch o {
			case "inf":
				ord = math.Inf(1)
			case "-inf":
				ord = math.Inf(-1)
			}
		}
		return Norm(x, ord, n.Axes, n.Keep), nil
	case "average":
		o := AverageOpts{Keepdims: n.Keep}
		if len(xs) > 1 {
			o.Weights = xs[1]
		}
		avg, _ := x.Average(n.Axes, o)
		return avg, nil
	case "fft":
		// The axis must be one chunk (FFT's doc): rechunk it whole.
		if ax, err := nd.NormalizeAxes("fft", []int{axis}, x.NDim()); err == nil && x.Err() == nil {
			ch := slices.Clone(x.Chunks())
			ch[ax[0]] = []int{x.Shape()[ax[0]]}
			x = x.Rechunk(ch)
		}
		pts, norm := 0, ""
		if n.N != nil {
			pts = *n.N
		}
		if n.Norm != nil {
			norm = *n.Norm
		}
		switch n.F {
		case "fft":
			return FFT(x, pts, axis, norm), nil
		case "ifft":
			return IFFT(x, pts, axis, norm), nil
		case "rfft":
			return RFFT(x, pts, axis, norm), nil
		}
	}
	return nil, fmt.Errorf("unknown op %s %q", n.Op, n.F)
}

// sizes returns x, an array of unknown chunks, with its chunk sizes
// computed, except in the third layout (mask), which keeps them unknown.
func (d *diffInputs) sizes(x *Array) *Array {
	if d.mask || x.Err() != nil {
		return x
	}
	y, err := x.ComputeChunkSizes(context.Background())
	if err != nil {
		return errArray(err)
	}
	return y
}

// splitEvery is a random fan-in of a reduction tree: 0 (the default 4),
// 2, 3 or 5.
func (d *diffInputs) splitEvery() int { return []int{0, 2, 3, 5}[d.rng.IntN(4)] }

// diffSelects reports whether n selects elements (Index, Take, Compress,
// Where): lazily, the others are never computed.
func diffSelects(n *diffNode) bool {
	switch n.Op {
	case "index", "take", "compress", "where":
		return true
	}
	return slices.ContainsFunc(n.A, diffSelects)
}

// hasMaskable reports whether n has an Index by one Bools selection,
// which the third layout computes as Mask of a lazy bool array: an axis
// of unknown length downstream.
func hasMaskable(n *diffNode) bool {
	if n.Op == "index" && len(n.Sel) == 1 && len(n.Sel[0]) == 2 && n.Sel[0][0] == "bools" {
		return true
	}
	switch n.Op {
	case "argwhere", "flatnonzero", "unique":
		return true
	}
	return slices.ContainsFunc(n.A, hasMaskable)
}

// diffSel maps one of gen_diff.py's selections to a Sel.
func diffSel(s []any) (Sel, error) {
	if len(s) == 0 {
		return Sel{}, fmt.Errorf("empty selection")
	}
	num := func(v any) (int, bool) {
		f, ok := v.(float64)
		return int(f), ok
	}
	switch s[0] {
	case "all":
		return All(), nil
	case "new":
		return NewAxis(), nil
	case "ell":
		return Ellipsis(), nil
	case "at":
		i, _ := num(s[1])
		return At(i), nil
	case "slice":
		step, ok := num(s[3])
		if !ok {
			step = 1
		}
		start, hasStart := num(s[1])
		stop, hasStop := num(s[2])
		if !hasStart {
			start = 0
			if step < 0 {
				start = -1 // the last element; for an empty axis nothing, as numpy
			}
		}
		if !hasStop {
			return From(start, step), nil
		}
		return RangeStep(start, stop, step), nil
	case "ints":
		l, _ := s[1].([]any)
		idx := make([]int, len(l))
		for i, v := range l {
			idx[i], _ = num(v)
		}
		return Ints(idx...), nil
	case "bools":
		l, _ := s[1].([]any)
		m := make([]bool, len(l))
		for i, v := range l {
			m[i], _ = v.(bool)
		}
		return Bools(m...), nil
	}
	return Sel{}, fmt.Errorf("unknown selection %v", s)
}

// Op classes of the tolerance table (TestDiffNumpy's doc), bits of a
// set: an expression's tolerance is the loosest of its classes'.
const (
	classExact  = 0
	classIEEE   = 1 << iota
	classLibm   // 16 eps
	classTan    // 256 eps
	classReduce // max(16, 4n) eps
)

func diffClass(n *diffNode) int {
	c := classExact
	switch n.Op {
	case "unary":
		switch n.F {
		case "sqrt", "square":
			c = classIEEE
		case "exp", "log", "sin", "cos", "absolute":
			c = classLibm
		case "tan":
			c = classTan
		}
	case "binary":
		switch n.F {
		case "add", "subtract", "multiply", "divide":
			c = classIEEE
		case "arctan2", "floor_divide", "remainder":
			c = classLibm
		case "power":
			c = classTan
		}
	case "ptp":
		c = classIEEE
	case "reduce", "nanreduce", "cum", "dot", "matmul", "tensordot", "einsum", "median", "norm", "average", "fft":
		c = classReduce
	}
	for _, a := range n.A {
		c |= diffClass(a)
	}
	return c
}

// diffTolerance returns rtol and the floor of S (TestDiffNumpy's table):
// rtol < 0 means exact.
func diffTolerance(n *diffNode, dt nd.DType, c *diffCorpus, e *diffExpr) (rtol, floor float64) {
	eps := 0x1p-52
	if dt == nd.Float32 || dt == nd.Complex64 {
		eps = 0x1p-23
	}
	cl := diffClass(n)
	switch {
	case cl&classTan != 0:
		rtol = 256 * eps
	case cl&(classLibm|classReduce) != 0:
		rtol = 16 * eps
	case cl&classIEEE != 0:
		rtol = 4 * eps
	}
	if cl&classReduce == 0 {
		return rtol, 0
	}
	size, m := 0, 1.0
	for _, k := range e.In {
		a := c.arrays[k]
		size += a.Size()
		ac, _ := a.Contiguous().AsType(nd.Complex128)
		v, _ := nd.Values[complex128](ac)
		for _, z := range v {
			if x := cmplx.Abs(z); !math.IsInf(x, 0) && !math.IsNaN(x) {
				m = max(m, x)
			}
		}
	}
	return max(rtol, float64(max(16, 4*size))*eps), m
}

// compareDiff is compareGolden with the tolerance of TestDiffNumpy's
// table: exact for bools and integers, rtol*(|want|+S) for floats with S
// = max(floor, the largest finite magnitude of want) (0 when rtol is 0).
func compareDiff(got, want *nd.Array, rtol, floor float64) string {
	if got.DType() != want.DType() {
		return fmt.Sprintf("dtype: got %s, want %s", got.DType(), want.DType())
	}
	if !slices.Equal(got.Shape(), want.Shape()) {
		return fmt.Sprintf("shape: got %v, want %v", got.Shape(), want.Shape())
	}
	if !want.DType().IsFloat() && !want.DType().IsComplex() {
		return compareGolden(got, want)
	}
	gc, _ := got.Contiguous().AsType(nd.Complex128)
	wc, _ := want.Contiguous().AsType(nd.Complex128)
	gv, err := nd.Values[complex128](gc)
	if err != nil {
		return err.Error()
	}
	wv, err := nd.Values[complex128](wc)
	if err != nil {
		return err.Error()
	}
	scale := 0.0
	if rtol > 0 {
		scale = floor
		for _, x := range wv {
			if a := cmplx.Abs(x); !math.IsInf(a, 0) && !math.IsNaN(a) {
				scale = max(scale, a)
			}
		}
	}
	same := func(p, q float64) bool {
		if p == q || (math.IsNaN(p) && math.IsNaN(q)) {
			return true
		}
		if math.IsNaN(p) || math.IsNaN(q) || math.IsInf(p, 0) || math.IsInf(q, 0) {
			return false
		}
		return math.Abs(p-q) <= rtol*(math.Abs(q)+scale)
	}
	complexNaN := want.DType().IsComplex()
	for i := range wv {
		if complexNaN && partNaN(wv[i]) && partNaN(gv[i]) {
			continue
		}
		if !same(real(gv[i]), real(wv[i])) || !same(imag(gv[i]), imag(wv[i])) {
			return fmt.Sprintf("element %d (flat): got %v, want %v (rtol %.3g, S %.3g)", i, gv[i], wv[i], rtol, scale)
		}
	}
	return ""
}

// partNaN is numpy's isnan of a complex number: either part NaN.
func partNaN(z complex128) bool { return math.IsNaN(real(z)) || math.IsNaN(imag(z)) }

// TestDiffConcatenatePromotion is the regression of a disagreement
// TestDiffNumpy found: numpy promotes three or more dtypes as a sequence
// (nd.ResultType), so np.concatenate and np.stack of int16, uint16 and
// complex64 arrays are complex64, not the complex128 of a pairwise fold.
func TestDiffConcatenatePromotion(t *testing.T) {
	a := FromNDArray(must1(nd.FromSlice([]int16{5, -5}, 2)), 1)
	b := FromNDArray(must1(nd.FromSlice([]uint16{0, 1}, 2)), 2)
	c := FromNDArray(must1(nd.FromSlice([]complex64{1 + 2i, -3}, 2)), 1)
	want := []complex64{5, -5, 0, 1, 1 + 2i, -3}
	for name, x := range map[string]*Array{"concatenate": Concatenate([]*Array{a, b, c}, 0), "stack": Stack([]*Array{a, b, c}, 0)} {
		got, err := x.Compute(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.DType() != nd.Complex64 {
			t.Fatalf("%s: dtype %s, want complex64 (numpy's)", name, got.DType())
		}
		v, err := nd.Values[complex64](got.Contiguous())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(v, want) {
			t.Errorf("%s: got %v, want %v", name, v, want)
		}
	}
}

// TestDiffCumsumFlatUnknown is the regression of a disagreement
// TestDiffNumpy found: Cumsum over the flattened array (numpy's
// axis=None) of a 1-d array with unknown chunks (after a Mask) failed
// with "axis 0 is out of bounds for 0 axes", the error of the failed
// Reshape(-1) lost. A 1-d array is its own flattening; a 2-d one with
// unknown chunks must give an error wrapping ErrUnknownChunks.
func TestDiffCumsumFlatUnknown(t *testing.T) {
	x := FromNDArray(must1(nd.FromSlice([]int64{4, 7, 1, 2, 9}, 5)), 2)
	m := FromNDArray(must1(nd.FromSlice([]bool{true, false, true, true, false}, 5)), 3)
	got, err := x.Index(Mask(m)).Cumsum(0, true, CumOpts{}).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := nd.Values[int64](got.Contiguous()); !slices.Equal(v, []int64{4, 5, 7}) {
		t.Errorf("got %v, want [4 5 7] (numpy's cumsum of [4 1 2])", v)
	}
	y := FromNDArray(must1(nd.FromSlice([]int64{1, 2, 3, 4, 5, 6}, 3, 2)), 1)
	m2 := FromNDArray(must1(nd.FromSlice([]bool{true, false, true}, 3)), 2)
	if err := y.Index(Mask(m2)).Cumsum(0, true, CumOpts{}).Err(); !errors.Is(err, ErrUnknownChunks) {
		t.Errorf("2-d with unknown chunks: got %v, want an error wrapping ErrUnknownChunks", err)
	}
}

// TestDiffGoldensCurrent regenerates the corpus with /usr/bin/python3
// testdata/gen_diff.py into a temporary folder and checks that the
// committed one is what the script writes now: the same expressions and
// errors, the same arrays, integers and bools byte for byte, floats
// within compareGolden's tolerance (numpy's dot, matmul and tensordot go
// through the machine's BLAS, whose last bits depend on the CPU). It skips
// in -short mode, without numpy, and with another numpy version than the
// corpus's.
func TestDiffGoldensCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python")
	}
	py := "/usr/bin/python3"
	out, err := exec.Command(py, "-c", "import numpy; print(numpy.__version__)").Output()
	if err != nil {
		t.Skipf("%s with numpy is not available (apt install python3-numpy): %v", py, err)
	}
	committed := loadDiffCorpus(t)
	if v := strings.TrimSpace(string(out)); v != committed.Numpy {
		t.Skipf("numpy %s here, the corpus was written by %s", v, committed.Numpy)
	}
	tmp := t.TempDir()
	cmd := exec.Command(py, "testdata/gen_diff.py")
	cmd.Env = append(os.Environ(), "CONFORMANCE_OUT="+tmp)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_diff.py: %v\n%s", err, msg)
	}
	fresh, err := readDiffCorpus(tmp)
	if err != nil {
		t.Fatal(err)
	}
	const regen = "; regenerate with /usr/bin/python3 chunkarray/testdata/gen_diff.py"
	cj, _ := json.Marshal(committed.Exprs)
	fj, _ := json.Marshal(fresh.Exprs)
	if !bytes.Equal(cj, fj) {
		t.Fatalf("the expressions differ from what gen_diff.py writes now%s", regen)
	}
	if len(committed.arrays) != len(fresh.arrays) {
		t.Fatalf("%d arrays committed, gen_diff.py writes %d%s", len(committed.arrays), len(fresh.arrays), regen)
	}
	outs := map[int]bool{}
	for _, e := range fresh.Exprs {
		if e.Out != nil {
			outs[*e.Out] = true
		}
	}
	for i, w := range fresh.arrays {
		g := committed.arrays[i]
		if outs[i] && (w.DType().IsFloat() || w.DType().IsComplex()) {
			if d := compareGolden(g, w); d != "" {
				t.Errorf("array %d: %s%s", i, d, regen)
			}
			continue
		}
		if g.DType() != w.DType() || !slices.Equal(g.Shape(), w.Shape()) ||
			!bytes.Equal(g.Contiguous().AppendBytes(nil, false), w.Contiguous().AppendBytes(nil, false)) {
			t.Errorf("array %d differs (inputs and integer results must be equal byte for byte)%s", i, regen)
		}
	}
}

// TestDiffStdIntDTypeZeroD is the regression of a disagreement
// TestDiffNumpy found: Std (and NanStd) with an integer dtype= of a 0-d
// array with Keepdims has a 0-d result, which numpy's sqrt casts
// (np.std(np.array(5, np.int32), axis=(), keepdims=True, dtype=np.uint8)
// is 0); only a result with axes is numpy's UFuncTypeError.
func TestDiffStdIntDTypeZeroD(t *testing.T) {
	x := FromNDArray(nd.Scalar[int32](5), nil)
	o := ReduceOpts{Keepdims: true, DType: nd.Uint8}
	for name, s := range map[string]*Array{"std": x.Reduce(nd.Std, []int{}, o), "nanstd": x.NanStd([]int{}, o)} {
		got, err := s.Compute(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.DType() != nd.Uint8 || got.NDim() != 0 {
			t.Fatalf("%s: %s%v, want uint8[]", name, got.DType(), got.Shape())
		}
		if v, _ := nd.Values[uint8](got); v[0] != 0 {
			t.Errorf("%s: %d, want 0", name, v[0])
		}
	}
	y := FromNDArray(must1(nd.FromSlice([]int32{3, 7}, 2)), 1)
	if err := y.Reduce(nd.Std, []int{0}, o).Err(); err == nil {
		t.Error("std of a 1-d array with keepdims and dtype uint8: no error, want numpy's UFuncTypeError")
	}
	got, err := y.Reduce(nd.Std, []int{0}, ReduceOpts{DType: nd.Uint8}).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := nd.Values[uint8](got); v[0] != 2 {
		t.Errorf("std of [3 7] with dtype uint8: %d, want 2", v[0])
	}
}
