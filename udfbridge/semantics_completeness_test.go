package udfbridge

// One named row per statement of docs/udf-semantics.md and of the
// issue's "Bad input" list, each checked against a formula over the raw
// data (sums with nd, counts, unravel_index, argwhere) or an error naming
// the UDF, buffer or file.

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// tProbe records what the engine shows a UDF: whether the valid nav mask
// is nil while processing ("vnil"), how many positions were merged before
// each partition ("prev"), the maximum of the frames seeded with -inf by
// Preprocess ("max"), and how often a result_only buffer was absent on a
// worker ("roabsent"); get_results sets the result_only "ro" = 2·max.
type tProbe struct{}

func (tProbe) Name() string            { return "test.probe" }
func (tProbe) Params() ([]byte, error) { return nil, nil }
func (tProbe) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{
		NavBuffer("vnil", nd.Int64), NavBuffer("prev", nd.Int64),
		SingleBuffer("max", nd.Float64), SingleBuffer("roabsent", nd.Int64),
		{Name: "ro", Kind: Single, DType: nd.Float64, Use: UseResultOnly},
	}, nil
}
func (tProbe) Preprocess(c *Ctx) error {
	return setAll(c.Buf("max"), nd.Scalar(math.Inf(-1)))
}
func (tProbe) ProcessFrame(c *Ctx, f *nd.Array) error {
	if c.Meta().ValidNavMask == nil {
		if err := setAll(c.Buf("vnil"), nd.Scalar[int64](1)); err != nil {
			return err
		}
	}
	if c.Buf("ro") == nil {
		if err := nd.BinaryInto(nd.Add, c.Buf("roabsent"), c.Buf("roabsent"), nd.Scalar[int64](1)); err != nil {
			return err
		}
	}
	mx, err := nd.Reduce(nd.Max, f, nil, false)
	if err != nil {
		return err
	}
	if mx, err = mx.AsType(nd.Float64); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Maximum, c.Buf("max"), c.Buf("max"), mx)
}
func (tProbe) Merge(c *MergeCtx, dest, src map[string]*nd.Array) error {
	k := 0
	for _, v := range c.Meta().ValidNavMask {
		if v {
			k++
		}
	}
	if err := nd.Assign(dest["vnil"], src["vnil"]); err != nil {
		return err
	}
	// prev = src's prev + positions merged before: summed over a tree or
	// a chain of merges, it is each partition's ROI origin.
	if err := nd.BinaryInto(nd.Add, dest["prev"], src["prev"], nd.Scalar(int64(k))); err != nil {
		return err
	}
	if err := nd.BinaryInto(nd.Maximum, dest["max"], dest["max"], src["max"]); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Add, dest["roabsent"], dest["roabsent"], src["roabsent"])
}
func (tProbe) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	ro, err := nd.Binary(nd.Mul, c.Buf("max"), nd.Scalar(2.0))
	return map[string]*nd.Array{"ro": ro}, err
}

// tMethods implements all three methods and records which ran.
type tMethods struct{}

func (tMethods) Name() string            { return "test.methods" }
func (tMethods) Params() ([]byte, error) { return nil, nil }
func (tMethods) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("m", nd.Int64)}, nil
}
func (tMethods) ProcessTile(c *Ctx, _ *nd.Array) error {
	return setAll(c.Buf("m"), nd.Scalar[int64](1))
}
func (tMethods) ProcessFrame(c *Ctx, _ *nd.Array) error {
	return setAll(c.Buf("m"), nd.Scalar[int64](2))
}
func (tMethods) ProcessPartition(c *Ctx, _ *nd.Array) error {
	return setAll(c.Buf("m"), nd.Scalar[int64](3))
}

// tFill writes 1 (true) into nav buffers of four dtypes, leaves "zero"
// untouched, and sets a custom valid mask on "f32": even flat positions.
type tFill struct{}

func (tFill) Name() string            { return "test.fill" }
func (tFill) Params() ([]byte, error) { return nil, nil }
func (tFill) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("f32", nd.Float32), NavBuffer("i32", nd.Int32), NavBuffer("b", nd.Bool),
		NavBuffer("c128", nd.Complex128), NavBuffer("zero", nd.Float64)}, nil
}
func (tFill) ProcessFrame(c *Ctx, _ *nd.Array) error {
	for _, k := range []string{"f32", "i32", "c128"} {
		if err := setAll(c.Buf(k), nd.Scalar[int64](1)); err != nil {
			return err
		}
	}
	return setAll(c.Buf("b"), nd.Scalar(true))
}
func (tFill) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	nav := c.Meta().NavShape
	v := make([]bool, shapeProd(nav))
	for i := range v {
		v[i] = i%2 == 0
	}
	m, _ := nd.FromSlice(v, nav...)
	return nil, c.WithMask("f32", m)
}

// tHalfAll has two sig buffers; its MergeAll returns only "a".
type tHalfAll struct{}

func (tHalfAll) Name() string            { return "test.halfall" }
func (tHalfAll) Params() ([]byte, error) { return nil, nil }
func (tHalfAll) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{SigBuffer("a", nd.Float64), SigBuffer("b", nd.Float64)}, nil
}
func (tHalfAll) ProcessFrame(c *Ctx, f *nd.Array) error {
	for _, k := range []string{"a", "b"} {
		if err := nd.BinaryInto(nd.Add, c.Buf(k), c.Buf(k), f); err != nil {
			return err
		}
	}
	return nil
}
func (tHalfAll) MergeAll(c *MergeCtx, o []map[string]*nd.Array) (map[string]*nd.Array, error) {
	a := o[0]["a"].Copy()
	for _, x := range o[1:] {
		if err := nd.BinaryInto(nd.Add, a, a, x["a"]); err != nil {
			return nil, err
		}
	}
	return map[string]*nd.Array{"a": a}, nil
}

func init() {
	RegisterUDF("test.probe", func([]byte) (UDF, error) { return tProbe{}, nil })
	RegisterUDF("test.methods", func([]byte) (UDF, error) { return tMethods{}, nil })
	RegisterUDF("test.fill", func([]byte) (UDF, error) { return tFill{}, nil })
	RegisterUDF("test.halfall", func([]byte) (UDF, error) { return tHalfAll{}, nil })
}

// semFixture: nav 4×6 × sig 5×3 uint16 data, a random ROI, the frames as
// float64 rows, and partition bounds for 7 partitions.
type semFixture struct {
	ds       *MemoryDataset
	nav, sig []int
	n, s     int
	frames   [][]float64
	roi      []bool
	roiArr   *nd.Array
}

func newSemFixture(t *testing.T) *semFixture {
	t.Helper()
	ds, nav, sig := coreMemDS(t, nd.Uint16)
	f := &semFixture{ds: ds, nav: nav, sig: sig, n: shapeProd(nav), s: shapeProd(sig)}
	all := c128(t, ds.Array())
	for i := 0; i < f.n; i++ {
		row := make([]float64, f.s)
		for j := range row {
			row[j] = real(all[i*f.s+j])
		}
		f.frames = append(f.frames, row)
	}
	f.roi = roiCases(f.n, nav[1], 5)["random"]
	f.roiArr, _ = nd.FromSlice(f.roi, nav...)
	return f
}

func semRun(t *testing.T, ds Dataset, udfs []UDF, opts ...RunOption) []*Results {
	t.Helper()
	res, err := Run(context.Background(), ds, udfs, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func semGet(t *testing.T, r *Results, name string, raw bool) []complex128 {
	t.Helper()
	var a *nd.Array
	var err error
	if raw {
		a, err = r.RawData(name)
	} else {
		a, err = r.Data(name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c128(t, a)
}

func wantErr(t *testing.T, err error, names ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %v", names)
	}
	for _, w := range names {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}

// countParts counts the partition tasks run under ctx's callbacks.
func countParts() (context.Context, *atomic.Int64) {
	var k atomic.Int64
	ctx := sched.WithCallbacks(context.Background(), &sched.Callbacks{Pretask: func(key graph.Key, _ int) {
		if strings.HasPrefix(key.Prefix(), "udf-partition") {
			k.Add(1)
		}
	}})
	return ctx, &k
}

func TestSemanticsCompleteness(t *testing.T) {
	f := newSemFixture(t)
	bg := context.Background()
	rowSums := func(roi []bool) []complex128 { // tNavSum's formula, ROI-compressed
		var out []complex128
		for i, fr := range f.frames {
			if roi == nil || roi[i] {
				s := 0.0
				for _, v := range fr {
					s += v
				}
				out = append(out, complex(s, 0))
			}
		}
		return out
	}
	sigSum := func(roi []bool) []complex128 {
		out := make([]complex128, f.s)
		for i, fr := range f.frames {
			if roi == nil || roi[i] {
				for j, v := range fr {
					out[j] += complex(v, 0)
				}
			}
		}
		return out
	}
	origins := func(P int, roi []bool) []int { // ROI frames before each partition
		b := Partitions(f.n, P)
		o := make([]int, P)
		for p := range o {
			for i := 0; i < b[p]; i++ {
				if roi == nil || roi[i] {
					o[p]++
				}
			}
		}
		return o
	}
	rows := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"partition boundaries floor(i*n/P)", func(t *testing.T) {
			for _, n := range []int{0, 1, 7, 24, 100} {
				for _, P := range []int{1, 2, 7} {
					b := Partitions(n, P)
					for i, x := range b {
						if x != i*n/P {
							t.Fatalf("Partitions(%d,%d)[%d] = %d, want %d", n, P, i, x, i*n/P)
						}
					}
				}
			}
		}},
		{"partition with no ROI frame gets no task", func(t *testing.T) {
			roi := make([]bool, f.n)
			roi[1], roi[f.n-1] = true, true // first and last of 4 partitions
			ra, _ := nd.FromSlice(roi, f.n)
			ctx, k := countParts()
			if _, err := Run(ctx, f.ds, []UDF{tNavSum{}}, WithROI(ra), WithPartitions(4), WithScheduler(sched.Sync{})); err != nil {
				t.Fatal(err)
			}
			if k.Load() != 2 {
				t.Fatalf("%d partition tasks, want 2", k.Load())
			}
		}},
		{"ROI flat or nav-shaped: same result", func(t *testing.T) {
			flat, _ := nd.FromSlice(f.roi, f.n)
			a := semGet(t, semRun(t, f.ds, []UDF{tNavSum{}}, WithROI(flat))[0], "intensity", false)
			b := semGet(t, semRun(t, f.ds, []UDF{tNavSum{}}, WithROI(f.roiArr))[0], "intensity", false)
			for i := range a {
				if !near(a[i], b[i]) {
					t.Fatalf("[%d] %v vs %v", i, a[i], b[i])
				}
			}
		}},
		{"ROI copied at the start of a run", func(t *testing.T) {
			roi := f.roiArr.Copy()
			lr, err := RunLazy(f.ds, []UDF{tNavSum{}}, WithROI(roi))
			if err != nil {
				t.Fatal(err)
			}
			if err := nd.BinaryInto(nd.LogicalOr, roi, roi, nd.Scalar(true)); err != nil {
				t.Fatal(err)
			}
			got, err := lr[0].Raw["intensity"].Compute(bg)
			if err != nil {
				t.Fatal(err)
			}
			checkVals(t, "raw", got, rowSums(f.roi), []int{len(rowSums(f.roi))})
		}},
		{"ROI size mismatch names both shapes", func(t *testing.T) {
			bad, _ := nd.Zeros(nd.Bool, 3, 8)
			_, err := Run(bg, f.ds, []UDF{tNavSum{}}, WithROI(bad))
			wantErr(t, err, "[3 8]", "[4 6]")
		}},
		{"non-bool ROI is an error (no silent cast)", func(t *testing.T) {
			bad, _ := nd.Zeros(nd.Uint8, f.nav...)
			_, err := Run(bg, f.ds, []UDF{tNavSum{}}, WithROI(bad))
			wantErr(t, err, "bool", "uint8")
		}},
		{"a run with no UDF is an error", func(t *testing.T) {
			_, err := Run(bg, f.ds, nil)
			if !errors.Is(err, ErrNoUDF) {
				t.Fatalf("err = %v, want ErrNoUDF", err)
			}
		}},
		{"method precedence tile > frame > partition", func(t *testing.T) {
			got := semGet(t, semRun(t, f.ds, []UDF{tMethods{}})[0], "m", true)
			for i, v := range got {
				if v != 1 {
					t.Fatalf("m[%d] = %v, want 1 (process_tile)", i, v)
				}
			}
		}},
		{"choosing an unimplemented method is an error", func(t *testing.T) {
			_, err := Run(bg, f.ds, []UDF{tBad{"method"}})
			wantErr(t, err, "test.bad", "process_tile")
		}},
		{"preprocess on main node seeds merge target", func(t *testing.T) {
			// All frame maxima are >= 0 here, so negate: max of -x is -min.
			neg, _ := nd.Binary(nd.Sub, nd.Scalar(-1.0), f.ds.Array())
			ds, _ := NewMemoryDataset(neg, 2)
			want := math.Inf(-1)
			for _, fr := range f.frames {
				for _, v := range fr {
					want = math.Max(want, -1-v)
				}
			}
			for _, m := range []MergeStrategy{MergeTree, MergeLinear, MergeAllNode} {
				r := semRun(t, ds, []UDF{tProbe{}}, WithPartitions(7), WithMerge(m))[0]
				if got := semGet(t, r, "max", true); real(got[0]) != want {
					t.Fatalf("merge %d: max = %v, want %v", m, got[0], want)
				}
				if got := semGet(t, r, "ro", true); real(got[0]) != 2*want {
					t.Fatalf("merge %d: ro = %v, want %v", m, got[0], 2*want)
				}
			}
		}},
		{"get_valid_nav_mask nil inside process_*", func(t *testing.T) {
			got := semGet(t, semRun(t, f.ds, []UDF{tProbe{}}, WithPartitions(3))[0], "vnil", true)
			for i, v := range got {
				if v != 1 {
					t.Fatalf("vnil[%d] = %v, want 1", i, v)
				}
			}
		}},
		{"valid nav mask in merge shows positions merged before", func(t *testing.T) {
			for _, P := range []int{1, 2, 7} {
				for _, m := range []MergeStrategy{MergeLinear, MergeTree} {
					r := semRun(t, f.ds, []UDF{tProbe{}}, WithPartitions(P), WithMerge(m), WithROI(f.roiArr))[0]
					got := semGet(t, r, "prev", true)
					b, o := Partitions(f.n, P), origins(P, f.roi)
					k := 0
					for p := 0; p < P; p++ {
						for i := b[p]; i < b[p+1]; i++ {
							if f.roi[i] {
								if int(real(got[k])) != o[p] {
									t.Fatalf("P=%d merge %d row %d: %v merged before, want %d", P, m, k, got[k], o[p])
								}
								k++
							}
						}
					}
				}
			}
		}},
		{"result_only never allocated on workers", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tProbe{}}, WithROI(f.roiArr), WithPartitions(7))[0]
			if got := semGet(t, r, "roabsent", true); int(real(got[0])) != len(rowSums(f.roi)) {
				t.Fatalf("roabsent = %v, want r = %d", got[0], len(rowSums(f.roi)))
			}
		}},
		{"result_only unset by get_results is an error naming the buffer", func(t *testing.T) {
			res, err := Run(bg, f.ds, []UDF{tBad{"unset"}})
			wantErr(t, err, "test.bad", `"ro"`, "result_only")
			if res != nil {
				t.Fatal("partial results with the error")
			}
		}},
		{"get_results returns a subset; the rest pass through; private dropped", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tSigSum{}, tCoords{}})
			if got := strings.Join(r[0].Names(), ","); got != "sum,count,mean" {
				t.Fatalf("names %s", got)
			}
			if got := strings.Join(r[1].Names(), ","); got != "coords,slice,aux" {
				t.Fatalf("names %s (private must be dropped)", got)
			}
			checkVals(t, "sum", mustRaw(t, r[0], "sum"), sigSum(nil), f.sig)
		}},
		{"get_results: undeclared, private, dtype kind mismatch are errors", func(t *testing.T) {
			for mode, buf := range map[string]string{"undeclared": `"nope"`, "private": `"priv"`, "kind": `"ro"`} {
				_, err := Run(bg, f.ds, []UDF{tBad{mode}})
				wantErr(t, err, "test.bad", buf)
			}
		}},
		{"default merge only when all non-result_only buffers are nav", func(t *testing.T) {
			semRun(t, f.ds, []UDF{tNavSum{}}, WithPartitions(7)) // nav only: no Merge needed
			_, err := Run(bg, f.ds, []UDF{tBad{"nomerge"}})
			wantErr(t, err, "test.bad", "no Merge")
		}},
		{"meta.slice: ROI-adjusted flat nav origin", func(t *testing.T) {
			for _, P := range []int{1, 2, 7} {
				got := semGet(t, semRun(t, f.ds, []UDF{tCoords{}}, WithPartitions(P), WithROI(f.roiArr))[0], "slice", true)
				for i, v := range got {
					if int(real(v)) != i {
						t.Fatalf("P=%d slice[%d] = %v, want %d", P, i, v, i)
					}
				}
			}
		}},
		{"meta.coordinates: argwhere(roi) with ROI, unravel_index without", func(t *testing.T) {
			for _, roi := range [][]bool{nil, f.roi} {
				var opts []RunOption
				if roi != nil {
					opts = append(opts, WithROI(f.roiArr))
				}
				got := semGet(t, semRun(t, f.ds, []UDF{tCoords{}}, append(opts, WithPartitions(7))...)[0], "coords", true)
				k := 0
				for i := 0; i < f.n; i++ {
					if roi != nil && !roi[i] {
						continue
					}
					if int(real(got[2*k])) != i/f.nav[1] || int(real(got[2*k+1])) != i%f.nav[1] {
						t.Fatalf("coords[%d] = %v,%v, want %d,%d", k, got[2*k], got[2*k+1], i/f.nav[1], i%f.nav[1])
					}
					k++
				}
			}
		}},
		{"fill value outside ROI: NaN/0/false; unprocessed inside ROI: zero", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tFill{}}, WithROI(f.roiArr), WithPartitions(7))[0]
			for _, k := range []string{"f32", "i32", "b", "c128", "zero"} {
				got := semGet(t, r, k, false)
				for i, v := range got {
					want := complex(1, 0)
					switch {
					case !f.roi[i] && (k == "f32" || k == "c128" || k == "zero"):
						if !cmplx.IsNaN(v) {
							t.Fatalf("%s[%d] = %v outside the ROI, want NaN", k, i, v)
						}
						continue
					case !f.roi[i]:
						want = 0
					case k == "zero":
						want = 0
					}
					if v != want {
						t.Fatalf("%s[%d] = %v, want %v", k, i, v, want)
					}
				}
			}
		}},
		{"valid masks: nav valid where merged, sig and single all valid", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tNavSum{}, tSigSum{}}, WithROI(f.roiArr))
			vm, _ := r[0].ValidMask("intensity")
			got, _ := nd.Values[bool](vm.Contiguous())
			for i := range got {
				if got[i] != f.roi[i] {
					t.Fatalf("valid[%d] = %v, want %v", i, got[i], f.roi[i])
				}
			}
			for _, k := range []string{"sum", "count"} {
				vm, _ := r[1].ValidMask(k)
				got, _ := nd.Values[bool](vm.Contiguous())
				for i := range got {
					if !got[i] {
						t.Fatalf("%s valid[%d] false", k, i)
					}
				}
			}
		}},
		{"with_mask broadcastable sets the mask; masked_data fills invalid", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tFill{}})[0]
			data, valid, err := r.MaskedData("f32")
			if err != nil {
				t.Fatal(err)
			}
			d := c128(t, data)
			v, _ := nd.Values[bool](valid.Contiguous())
			for i := range d {
				if v[i] != (i%2 == 0) || (v[i] && d[i] != 1) || (!v[i] && !cmplx.IsNaN(d[i])) {
					t.Fatalf("[%d]: valid %v data %v", i, v[i], d[i])
				}
			}
		}},
		{"with_mask not broadcastable is an error", func(t *testing.T) {
			_, err := Run(bg, f.ds, []UDF{tBad{"mask"}})
			wantErr(t, err, "test.bad", `"nav"`, "with_mask")
		}},
		{"input dtype: uint16→float32, int32→float64, int16 pref with uint16 → int32, native (np.result_type of all)", func(t *testing.T) {
			for _, c := range []struct {
				data nd.DType
				udfs []UDF
				want nd.DType
			}{
				{nd.Uint16, []UDF{tNavSum{}}, nd.Float32},
				{nd.Int32, []UDF{tNavSum{}}, nd.Float64},
				// np.result_type(uint16, int16, float32) is float32: numpy's
				// n-ary rule (nd.ResultType), not uint16·int16 → int32 first
				{nd.Uint16, []UDF{tPref{nd.Int16}, tNavSum{}}, nd.Float32},
				{nd.Uint16, []UDF{tPref{nd.Int16}}, nd.Int32},
				{nd.Uint16, []UDF{tPref{UseNativeDType}}, nd.Uint16},
			} {
				ds, err := NewMemoryDataset(coreData(t, c.data, f.nav, f.sig, 3), 2)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range semRun(t, ds, c.udfs) {
					if a := mustRaw(t, r, "intensity"); a.DType() != c.want {
						t.Fatalf("%v data, %d UDFs: input %v, want %v (same for every UDF)", c.data, len(c.udfs), a.DType(), c.want)
					}
				}
			}
		}},
		{"merge_all: wrong names, dtypes, shapes are errors", func(t *testing.T) {
			for mode, w := range map[string]string{"name": `"zzz"`, "dtype": "float64", "shape": "[2]"} {
				_, err := Run(bg, f.ds, []UDF{tBadAll{mode}}, WithMerge(MergeAllNode))
				wantErr(t, err, "test.badall", w)
			}
		}},
		{"merge_all: unreturned buffers stay zero", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tHalfAll{}}, WithMerge(MergeAllNode), WithPartitions(7))[0]
			checkVals(t, "a", mustRaw(t, r, "a"), sigSum(nil), f.sig)
			checkVals(t, "b", mustRaw(t, r, "b"), make([]complex128, f.s), f.sig)
		}},
		{"merge_all default concatenates nav buffers; ROI applied after merge_all", func(t *testing.T) {
			r := semRun(t, f.ds, []UDF{tNavSum{}}, WithMerge(MergeAllNode), WithPartitions(7), WithROI(f.roiArr))[0]
			want := rowSums(f.roi)
			checkVals(t, "raw", mustRaw(t, r, "intensity"), want, []int{len(want)})
			got := semGet(t, r, "intensity", false)
			k := 0
			for i, v := range got {
				if !f.roi[i] {
					if !cmplx.IsNaN(v) {
						t.Fatalf("[%d] = %v outside the ROI", i, v)
					}
					continue
				}
				if !near(v, want[k]) {
					t.Fatalf("[%d] = %v, want %v", i, v, want[k])
				}
				k++
			}
		}},
		{"tree, linear and merge_all agree; Sync and Threaded identical", func(t *testing.T) {
			want := sigSum(f.roi)
			for _, P := range []int{1, 2, 7} {
				for _, m := range []MergeStrategy{MergeTree, MergeLinear, MergeAllNode} {
					for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
						r := semRun(t, f.ds, []UDF{tSigSumAll{}}, WithPartitions(P), WithMerge(m), WithScheduler(s), WithROI(f.roiArr))[0]
						checkVals(t, "sum", mustRaw(t, r, "sum"), want, f.sig)
					}
				}
			}
		}},
		{"RunIter steps = non-empty partitions, one when none", func(t *testing.T) {
			for name, roi := range roiCases(f.n, f.nav[1], 9) {
				var opts []RunOption
				want := 0
				b := Partitions(f.n, 7)
				for p := 0; p < 7; p++ {
					for i := b[p]; i < b[p+1]; i++ {
						if roi == nil || roi[i] {
							want++
							break
						}
					}
				}
				if roi != nil {
					ra, _ := nd.FromSlice(roi, f.nav...)
					opts = append(opts, WithROI(ra))
				}
				it, err := RunIter(f.ds, []UDF{tNavSum{}}, append(opts, WithPartitions(7))...)
				if err != nil {
					t.Fatal(err)
				}
				steps := 0
				for it.Next(bg) {
					steps++
					// Each partial equals a run restricted to roi = damage.
					p := it.Partial()
					dmg, _ := nd.Values[bool](p.Damage.Contiguous())
					checkVals(t, name+" partial", mustRaw(t, p.Results[0], "intensity"), rowSums(dmg), []int{len(rowSums(dmg))})
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				if want == 0 {
					want = 1
				}
				if steps != want {
					t.Fatalf("%s: %d steps, want %d", name, steps, want)
				}
			}
		}},
		{"RunIter cancelled: error says how many partitions were done", func(t *testing.T) {
			it, err := RunIter(f.ds, []UDF{tNavSum{}}, WithPartitions(7))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(bg)
			it.Next(ctx)
			it.Next(ctx)
			cancel()
			if it.Next(ctx) {
				t.Fatal("step after cancel")
			}
			wantErr(t, it.Err(), "after 2 of 7 partitions")
		}},
		{"RunLazy: nav buffers chunked per partition (raw and data forms)", func(t *testing.T) {
			lr, err := RunLazy(f.ds, []UDF{tNavSum{}}, WithPartitions(7), WithROI(f.roiArr))
			if err != nil {
				t.Fatal(err)
			}
			raw := lr[0].Raw["intensity"]
			var wantChunks []int
			b, o := Partitions(f.n, 7), origins(7, f.roi)
			for p := 0; p < 7; p++ {
				next := len(rowSums(f.roi))
				if p < 6 {
					next = o[p+1]
				}
				if next > o[p] {
					wantChunks = append(wantChunks, next-o[p])
				}
			}
			if got := raw.Chunks()[0]; !slices.Equal(got, wantChunks) {
				t.Fatalf("raw chunks %v, want %v (one per non-empty partition)", got, wantChunks)
			}
			_ = b
			got, err := raw.Compute(bg)
			if err != nil {
				t.Fatal(err)
			}
			checkVals(t, "raw", got, rowSums(f.roi), []int{len(rowSums(f.roi))})
			data, err := lr[0].Arrays["intensity"].Compute(bg)
			if err != nil {
				t.Fatal(err)
			}
			r := semRun(t, f.ds, []UDF{tNavSum{}}, WithROI(f.roiArr))[0]
			want, _ := r.Data("intensity")
			coreSame(t, "data", data, want)
		}},
		{"RunLazy: several UDFs and buffers computed together in one pass", func(t *testing.T) {
			lr, err := RunLazy(f.ds, []UDF{tNavSum{}, tSigSum{}, tCoords{}}, WithPartitions(7), WithROI(f.roiArr))
			if err != nil {
				t.Fatal(err)
			}
			var arrs []*chunkarray.Array
			for _, l := range lr {
				for _, k := range l.Names {
					arrs = append(arrs, l.Arrays[k], l.Raw[k])
				}
			}
			ctx, k := countParts()
			vals, err := chunkarray.Compute(ctx, arrs, chunkarray.WithScheduler(sched.Threaded{Workers: 2}))
			if err != nil {
				t.Fatal(err)
			}
			nonEmpty := 0
			b := Partitions(f.n, 7)
			for p := 0; p < 7; p++ {
				for i := b[p]; i < b[p+1]; i++ {
					if f.roi[i] {
						nonEmpty++
						break
					}
				}
			}
			if k.Load() != int64(nonEmpty) {
				t.Fatalf("%d partition tasks for %d arrays, want %d (one per non-empty partition)", k.Load(), len(arrs), nonEmpty)
			}
			checkVals(t, "sigsum", vals[2], sigSum(f.roi), f.sig)
		}},
		// The statements issue 14 added; each row is a test of its own
		// file, named here so the table stays complete.
		{"get_valid_nav_mask in get_results, ROI-compressed and full_nav; aux in main-node preprocess; get_results shapes (mainstate_test.go)", TestMainNodeStateRun},
		{"RunIter: the valid nav mask in get_results is the damage (mainstate_test.go)", TestMainNodeStateIter},
		{"each partition merged once: P Merge calls on a chain, 2(P-1) on a tree (mergecount_test.go)", TestMergeCallCount},
		{"RunIter merges each partition once with the parameters in force (mergecount_test.go)", TestIterMergesOncePerPartition},
		{"object and 'S1' buffers refused with ErrUnsupportedDType (errors_core_test.go)", TestObjectAndBytesBuffersRefused},
		{"compute options apply to Run, RunIter and RunLazy (compute_config_test.go)", TestEveryPathUsesTheScheduler},
		{"bad input: raw file shorter than its shape names the file", func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "short.raw")
			if err := os.WriteFile(p, make([]byte, 10), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenRaw(p, nd.Uint16, []int{4, 6}, []int{5, 3}, 0)
			wantErr(t, err, p)
		}},
		{"bad input: unknown dataset path names the file", func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "missing.npy")
			_, err := OpenNPY(p, 2)
			wantErr(t, err, p)
			_, err = OpenRaw(p, nd.Uint16, []int{4, 6}, []int{5, 3}, 0)
			wantErr(t, err, p)
		}},
	}
	for _, r := range rows {
		t.Run(r.name, r.fn)
	}
}

func mustRaw(t *testing.T, r *Results, name string) *nd.Array {
	t.Helper()
	a, err := r.RawData(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// setAll sets every element of dst to the scalar v.
func setAll(dst, v *nd.Array) error {
	b, err := v.BroadcastTo(dst.Shape()...)
	if err != nil {
		return err
	}
	return nd.Assign(dst, b)
}
