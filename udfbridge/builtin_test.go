package udfbridge

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// The built-in UDFs against the oracles of builtin_oracle_test.go, over
// a 5×6 nav × 8×6 sig dataset:
//
//	dtypes     uint16, float32, complex128
//	partitions 1, 2, 7
//	ROI        none, full, empty, one row, random
//	tiles      default, 3 whole frames, 2 frames × 4×3 sig
//
// each run on Sync with the merge tree, then again on Threaded, with the
// linear chain and with one merge_all node: every one must match the
// oracle, and the exact buffers (sums of quarters, exact in float32 in
// any order) must be identical across schedulers and merges.

var (
	builtinNav = []int{5, 6}
	builtinSig = []int{8, 6}
)

type builtinCase struct {
	dtype nd.DType
	parts int
	roi   string
	tile  string
}

func (c builtinCase) String() string {
	return fmt.Sprintf("%v/P%d/roi-%s/tile-%s", c.dtype, c.parts, c.roi, c.tile)
}

func builtinCases() []builtinCase {
	var out []builtinCase
	for _, d := range []nd.DType{nd.Uint16, nd.Float32, nd.Complex128} {
		for _, p := range []int{1, 2, 7} {
			for _, r := range []string{"none", "full", "empty", "one-row", "random"} {
				for _, t := range []string{"default", "depth3", "sig-split"} {
					out = append(out, builtinCase{d, p, r, t})
				}
			}
		}
	}
	return out
}

// builtinMasks returns k=3 float32 masks (mostly zero, quarters) as a
// dense stack, the same as CSR, and flat for the oracle.
func builtinMasks(rng *rand.Rand) (dense, sparse *Masks, flat []complex128, err error) {
	k, size := 3, prodInts(builtinSig)
	v := make([]float32, k*size)
	var indptr, indices []int
	var vals []float32
	indptr = append(indptr, 0)
	flat = make([]complex128, k*size)
	for m := 0; m < k; m++ {
		for j := 0; j < size; j++ {
			if rng.IntN(10) < 3 {
				x := float32(rng.IntN(16)+1) / 4
				v[m*size+j] = x
				flat[m*size+j] = complex(float64(x), 0)
				indices = append(indices, j)
				vals = append(vals, x)
			}
		}
		indptr = append(indptr, len(indices))
	}
	da, err := nd.FromSlice(v, append([]int{k}, builtinSig...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	if dense, err = DenseMasks(da, builtinSig); err != nil {
		return nil, nil, nil, err
	}
	va, err := nd.FromSlice(vals, len(vals))
	if err != nil {
		return nil, nil, nil, err
	}
	sparse, err = SparseMasks(builtinSig, indptr, indices, va)
	return dense, sparse, flat, err
}

func autoFunc(frame *nd.Array) (*nd.Array, error) {
	s, err := nd.Reduce(nd.Sum, frame, nil, false)
	if err != nil {
		return nil, err
	}
	c, err := s.AsType(nd.Complex128)
	if err != nil {
		return nil, err
	}
	v, err := nd.Values[complex128](c)
	if err != nil {
		return nil, err
	}
	return nd.FromSlice([]complex128{v[0], 2 * v[0]}, 2)
}

type runVariant struct {
	name  string
	sched sched.Scheduler
	merge MergeStrategy
}

var runVariants = []runVariant{
	{"sync-tree", sched.Sync{}, MergeTree},
	{"threads-tree", sched.Threaded{}, MergeTree},
	{"sync-linear", sched.Sync{}, MergeLinear},
	{"sync-mergeall", sched.Sync{}, MergeAllNode},
}

// engineMissing reports whether err says the run engine is not there yet
// (the built-ins were written beside it).
func engineMissing(err error) bool {
	return err != nil && strings.Contains(err.Error(), "not yet")
}

func TestBuiltinsAgainstOracles(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 3))
	dense, sparse, maskFlat, err := builtinMasks(rng)
	if err != nil {
		t.Fatal(err)
	}
	auto := Map(autoFunc)
	pickFlat := 2*builtinNav[1] + 3
	for _, c := range builtinCases() {
		t.Run(c.String(), func(t *testing.T) {
			a, raw, err := makeData(rng, c.dtype, builtinNav, builtinSig)
			if err != nil {
				t.Fatal(err)
			}
			ds := &testDS{a: a, nav: builtinNav, sig: builtinSig}
			roi := randomROI(rng, c.roi, builtinNav)
			opts := []RunOption{WithPartitions(c.parts)}
			if roi != nil {
				ra, err := nd.FromSlice(roi, builtinNav...)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, WithROI(ra))
			}
			switch c.tile {
			case "depth3":
				opts = append(opts, WithTileShape(3, nil))
			case "sig-split":
				opts = append(opts, WithTileShape(2, []int{4, 3}))
			}
			real := !c.dtype.IsComplex()
			tileUDFs := func() []UDF {
				return []UDF{&SumUDF{}, &SumSigUDF{}, &StdDevUDF{}, ApplyMasks(dense), ApplyMasks(sparse)}
			}
			// every UDF of a run gets the same input dtype: the ones
			// preferring the native dtype run on their own
			nativeUDFs := func() []UDF {
				u := []UDF{Pick(2, 3)}
				if real {
					u = append(u, &MaxUDF{}, &MinUDF{})
				}
				return u
			}
			frameUDFs := func() []UDF {
				u := []UDF{auto}
				if real {
					u = append(u, &LogsumUDF{})
				}
				return u
			}
			var first map[string]*nd.Array
			for _, v := range runVariants {
				o := append(append([]RunOption(nil), opts...), WithScheduler(v.sched), WithMerge(v.merge))
				got := map[string]*nd.Array{}
				for _, pass := range [][]UDF{tileUDFs(), nativeUDFs(), frameUDFs()} {
					res, err := Run(context.Background(), ds, pass, o...)
					if engineMissing(err) {
						t.Skip(err)
					}
					if err != nil {
						t.Fatalf("%s: %v", v.name, err)
					}
					for i, r := range res {
						for _, name := range r.Names() {
							d, err := r.Data(name)
							if err != nil {
								t.Fatalf("%s: %s.%s: %v", v.name, pass[i].Name(), name, err)
							}
							key := fmt.Sprintf("%d:%s.%s", i, pass[i].Name(), name)
							if _, dup := got[key]; dup {
								key += "'"
							}
							got[key] = d
						}
					}
				}
				checkBuiltins(t, v.name, c, raw, roi, maskFlat, pickFlat, got)
				if first == nil {
					first = got
					continue
				}
				for k, g := range got {
					if (strings.Contains(k, "StdDev") && !strings.HasSuffix(k, ".sum") && !strings.HasSuffix(k, ".num_frames")) || strings.Contains(k, "Logsum") {
						continue // Chan's merge and sums of logs round by merge order
					}
					if err := identical(g, first[k]); err != nil {
						t.Errorf("%s vs %s: %s: %v", v.name, runVariants[0].name, k, err)
					}
				}
			}
		})
	}
}

func identical(a, b *nd.Array) error {
	if b == nil {
		return fmt.Errorf("missing in the first run")
	}
	if a.DType() != b.DType() || fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) {
		return fmt.Errorf("%v%v vs %v%v", a.DType(), a.Shape(), b.DType(), b.Shape())
	}
	x, y := a.AppendBytes(nil, false), b.AppendBytes(nil, false)
	if string(x) != string(y) {
		return fmt.Errorf("values differ")
	}
	return nil
}

func checkBuiltins(t *testing.T, variant string, c builtinCase, raw *rawFrames, roi []bool, maskFlat []complex128, pick int, got map[string]*nd.Array) {
	t.Helper()
	in := nd.ResultType(c.dtype, nd.Float32)
	tol := 1e-6
	if in == nd.Float32 {
		tol = 1e-5
	}
	check := func(key string, d nd.DType, want []complex128, tol float64) {
		t.Helper()
		g := got[key]
		if g == nil {
			t.Errorf("%s: no result %s (have %v)", variant, key, keysOf(got))
			return
		}
		if d != nd.Invalid && g.DType() != d {
			t.Errorf("%s: %s dtype %v, want %v", variant, key, g.DType(), d)
		}
		if err := closeTo(variant+": "+key, g, want, tol); err != nil {
			t.Error(err)
		}
	}
	check("0:SumUDF.intensity", in, oracleSum(raw, roi), 0)
	check("1:SumSigUDF.intensity", in, oracleSumSig(raw, roi), 0)

	count, mean, variance := oracleMoments(raw, roi)
	nf := []complex128{complex(float64(count), 0)}
	check("2:StdDevUDF.num_frames", nd.Int64, nf, 0)
	check("2:StdDevUDF.sum", in, oracleSum(raw, roi), 0)
	std := make([]float64, len(variance))
	for i, v := range variance {
		std[i] = math.Sqrt(v)
	}
	if count == 0 {
		for i := range mean {
			mean[i], variance[i], std[i] = cmplx.NaN(), math.NaN(), math.NaN()
		}
	}
	check("2:StdDevUDF.mean", in, mean, tol)
	check("2:StdDevUDF.var", realOf(in), realsOf(variance), tol)
	check("2:StdDevUDF.std", realOf(in), realsOf(std), tol)

	masks := oracleMasks(raw, roi, maskFlat, 3)
	check("3:ApplyMasksUDF.intensity", in, masks, 0)
	check("4:ApplyMasksUDF.intensity", in, masks, 0)

	pk := make([]complex128, raw.size)
	if inROI(roi, pick) {
		copy(pk, raw.frame(pick))
	}
	check("0:PickUDF.intensity", c.dtype, pk, 0)

	auto := oracleSumSig(raw, roi)
	a2 := make([]complex128, 0, 2*len(auto))
	for _, x := range auto {
		a2 = append(a2, x, 2*x)
	}
	check("0:AutoUDF.result", nd.Complex128, a2, 0)

	if c.dtype.IsComplex() {
		return
	}
	mx, mn := oracleExtreme(raw, roi, true), oracleExtreme(raw, roi, false)
	if count == 0 && c.dtype.IsInteger() {
		for i := range mx {
			mx[i], mn[i] = 0, math.MaxUint16
		}
	}
	check("1:MaxUDF.intensity", c.dtype, mx, 0)
	check("2:MinUDF.intensity", c.dtype, mn, 0)
	check("1:LogsumUDF.logsum", nd.Float32, oracleLogSum(raw, roi), 1e-5)
}

func keysOf(m map[string]*nd.Array) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
