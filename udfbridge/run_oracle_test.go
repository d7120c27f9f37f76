package udfbridge

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Test UDFs of the engine's own tests (the built-ins live in builtin_*.go).

// tNavSum: per-frame sum over sig into a nav buffer, by tile (sig tiles
// add up). Nav buffers only, no merge: the default merge and merge_all.
type tNavSum struct{}

func (tNavSum) Name() string            { return "test.navsum" }
func (tNavSum) Params() ([]byte, error) { return nil, nil }
func (tNavSum) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("intensity", m.InputDType)}, nil
}
func (tNavSum) ProcessTile(c *Ctx, tile *nd.Array) error {
	axes := make([]int, tile.NDim()-1)
	for i := range axes {
		axes[i] = i + 1
	}
	s, err := nd.Reduce(nd.Sum, tile, axes, false)
	if err != nil {
		return err
	}
	dst := c.Buf("intensity")
	if s, err = s.AsType(dst.DType()); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Add, dst, dst, s)
}

// tSigSum: sum of frames into a sig buffer and a frame count into a single
// buffer, by frame, with a merge; get_results adds a result_only mean.
type tSigSum struct{}

func (tSigSum) Name() string            { return "test.sigsum" }
func (tSigSum) Params() ([]byte, error) { return nil, nil }
func (tSigSum) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{
		SigBuffer("sum", m.InputDType),
		SingleBuffer("count", nd.Int64),
		{Name: "mean", Kind: Sig, DType: m.InputDType, Use: UseResultOnly},
	}, nil
}
func (tSigSum) ProcessFrame(c *Ctx, f *nd.Array) error {
	dst := c.Buf("sum")
	if err := nd.BinaryInto(nd.Add, dst, dst, f); err != nil {
		return err
	}
	one := nd.Scalar[int64](1)
	return nd.BinaryInto(nd.Add, c.Buf("count"), c.Buf("count"), one)
}
func (tSigSum) Merge(c *MergeCtx, dest, src map[string]*nd.Array) error {
	for _, k := range []string{"sum", "count"} {
		if err := nd.BinaryInto(nd.Add, dest[k], dest[k], src[k]); err != nil {
			return err
		}
	}
	return nil
}
func (tSigSum) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	cnt, err := c.Buf("count").AsType(c.Buf("sum").DType())
	if err != nil {
		return nil, err
	}
	mean, err := nd.Binary(nd.Div, c.Buf("sum"), cnt)
	if err != nil {
		return nil, err
	}
	if mean, err = mean.AsType(c.Buf("sum").DType()); err != nil {
		return nil, err
	}
	return map[string]*nd.Array{"mean": mean}, nil
}

// tSigSumAll is tSigSum with a MergeAll.
type tSigSumAll struct{ tSigSum }

func (tSigSumAll) Name() string { return "test.sigsumall" }
func (tSigSumAll) MergeAll(c *MergeCtx, ordered []map[string]*nd.Array) (map[string]*nd.Array, error) {
	var sum, cnt *nd.Array
	for _, o := range ordered {
		if sum == nil {
			sum, cnt = o["sum"].Copy(), o["count"].Copy()
			continue
		}
		if err := nd.BinaryInto(nd.Add, sum, sum, o["sum"]); err != nil {
			return nil, err
		}
		if err := nd.BinaryInto(nd.Add, cnt, cnt, o["count"]); err != nil {
			return nil, err
		}
	}
	if sum == nil {
		return map[string]*nd.Array{}, nil
	}
	return map[string]*nd.Array{"sum": sum, "count": cnt}, nil
}

// tCoords: per partition, the coordinates and the ROI slice index of every
// frame, and a private buffer; an aux echo.
type tCoords struct{ aux *nd.Array }

func (tCoords) Name() string { return "test.coords" }
func (u tCoords) Params() ([]byte, error) {
	if u.aux == nil {
		return nil, nil
	}
	return u.aux.AppendBytes(nil, false), nil
}
func (tCoords) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{
		NavBuffer("coords", nd.Int64, len(m.NavShape)),
		NavBuffer("slice", nd.Int64),
		NavBuffer("aux", nd.Float64),
		{Name: "secret", Kind: Nav, DType: nd.Int64, Use: UsePrivate},
	}, nil
}
func (u tCoords) AuxData() (map[string]*nd.Array, error) {
	if u.aux == nil {
		return nil, nil
	}
	return map[string]*nd.Array{"a": u.aux}, nil
}
func (tCoords) ProcessPartition(c *Ctx, p *nd.Array) error {
	m := c.Meta()
	if err := nd.Assign(c.Buf("coords"), m.Coordinates); err != nil {
		return err
	}
	n := p.Shape()[0]
	sl := make([]int64, n)
	for i := range sl {
		sl[i] = int64(m.Slice.NavOrigin + i)
	}
	a, _ := nd.FromSlice(sl, n)
	if err := nd.Assign(c.Buf("slice"), a); err != nil {
		return err
	}
	if x := c.Aux("a"); x != nil {
		return nd.Assign(c.Buf("aux"), x)
	}
	return nil
}

func init() {
	RegisterUDF("test.navsum", func([]byte) (UDF, error) { return tNavSum{}, nil })
	RegisterUDF("test.sigsum", func([]byte) (UDF, error) { return tSigSum{}, nil })
	RegisterUDF("test.sigsumall", func([]byte) (UDF, error) { return tSigSumAll{}, nil })
	RegisterUDF("test.coords", func(b []byte) (UDF, error) {
		if len(b) == 0 {
			return tCoords{}, nil
		}
		a, err := nd.FromBytes(nd.Float64, []int{len(b) / 8}, b, false, false)
		return tCoords{aux: a}, err
	})
}

// coreData builds a seeded nav×sig array of dtype dt.
func coreData(t testing.TB, dt nd.DType, nav, sig []int, seed uint64) *nd.Array {
	r := rand.New(rand.NewPCG(seed, 1))
	n := shapeProd(nav) * shapeProd(sig)
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(r.IntN(1000))
	}
	a, err := nd.FromSlice(v, append(append([]int(nil), nav...), sig...)...)
	if err != nil {
		t.Fatal(err)
	}
	if dt.IsComplex() {
		im := make([]complex128, n)
		for i := range im {
			im[i] = complex(v[i], float64(r.IntN(100)))
		}
		a, _ = nd.FromSlice(im, a.Shape()...)
	}
	if a, err = a.AsType(dt); err != nil {
		t.Fatal(err)
	}
	return a
}

func c128(t testing.TB, a *nd.Array) []complex128 {
	t.Helper()
	b, err := a.AsType(nd.Complex128)
	if err != nil {
		t.Fatal(err)
	}
	v, err := nd.Values[complex128](b.Contiguous())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func near(a, b complex128) bool {
	if cmplx.IsNaN(a) || cmplx.IsNaN(b) {
		return cmplx.IsNaN(a) && cmplx.IsNaN(b)
	}
	return cmplx.Abs(a-b) <= 1e-5*math.Max(1, cmplx.Abs(b))
}

func checkVals(t *testing.T, what string, got *nd.Array, want []complex128, shape []int) {
	t.Helper()
	if !slices.Equal(got.Shape(), shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), shape)
	}
	g := c128(t, got)
	for i := range want {
		if !near(g[i], want[i]) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, g[i], want[i])
		}
	}
}

func roiCases(n, rowLen int, seed uint64) map[string][]bool {
	r := rand.New(rand.NewPCG(seed, 2))
	rnd := make([]bool, n)
	for i := range rnd {
		rnd[i] = r.IntN(3) == 0
	}
	full := make([]bool, n)
	for i := range full {
		full[i] = true
	}
	row := make([]bool, n)
	for i := rowLen; i < 2*rowLen && i < n; i++ {
		row[i] = true
	}
	return map[string][]bool{"none": nil, "random": rnd, "empty": make([]bool, n), "full": full, "onerow": row}
}

func TestRunAgainstOracles(t *testing.T) {
	nav, sig := []int{5, 7}, []int{6, 4}
	n, s := shapeProd(nav), shapeProd(sig)
	ctx := context.Background()
	for _, dt := range []nd.DType{nd.Uint16, nd.Float32, nd.Complex128} {
		data := coreData(t, dt, nav, sig, 7)
		raw := c128(t, data)
		in := nd.ResultType(dt, nd.Float32)
		ds, err := NewMemoryDataset(data, len(nav))
		if err != nil {
			t.Fatal(err)
		}
		for roiName, roi := range roiCases(n, nav[1], 3) {
			// Oracles.
			inROI := func(i int) bool { return roi == nil || roi[i] }
			navSum := make([]complex128, n)
			sigSum := make([]complex128, s)
			var idx []int
			cnt := 0
			for i := 0; i < n; i++ {
				if !inROI(i) {
					navSum[i] = cmplx.NaN()
					continue
				}
				idx = append(idx, i)
				cnt++
				for j := 0; j < s; j++ {
					navSum[i] += raw[i*s+j]
					sigSum[j] += raw[i*s+j]
				}
			}
			if !in.IsFloat() && !in.IsComplex() {
				t.Fatalf("input dtype %v", in)
			}
			if !in.IsComplex() {
				for i := range navSum {
					if !inROI(i) {
						navSum[i] = complex(math.NaN(), 0)
					}
				}
			}
			mean := make([]complex128, s)
			for j := range mean {
				mean[j] = sigSum[j] / complex(float64(cnt), 0)
			}
			var roiArr *nd.Array
			if roi != nil {
				roiArr, _ = nd.FromSlice(roi, nav...)
			}
			for _, P := range []int{1, 2, 7} {
				for ti, tile := range []struct {
					depth int
					sig   []int
				}{{0, nil}, {3, []int{4, 3}}, {1, []int{1, 4}}} {
					for si, sc := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 3}} {
						for _, ms := range []MergeStrategy{MergeTree, MergeLinear, MergeAllNode} {
							name := fmt.Sprintf("%v/%s/P%d/tile%d/sched%d/merge%d", dt, roiName, P, ti, si, ms)
							opts := []RunOption{WithPartitions(P), WithScheduler(sc), WithMerge(ms)}
							if roiArr != nil {
								opts = append(opts, WithROI(roiArr))
							}
							if tile.depth > 0 {
								opts = append(opts, WithTileShape(tile.depth, tile.sig))
							}
							res, err := Run(ctx, ds, []UDF{tNavSum{}, tSigSum{}, tSigSumAll{}}, opts...)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							d, err := res[0].Data("intensity")
							if err != nil {
								t.Fatal(err)
							}
							if d.DType() != in {
								t.Fatalf("%s: dtype %v, want %v", name, d.DType(), in)
							}
							checkVals(t, name+" intensity", d, navSum, nav)
							rd, _ := res[0].RawData("intensity")
							var rawWant []complex128
							for _, i := range idx {
								rawWant = append(rawWant, navSum[i])
							}
							checkVals(t, name+" raw intensity", rd, rawWant, []int{len(idx)})
							for k := 1; k <= 2; k++ {
								sum, _ := res[k].Data("sum")
								checkVals(t, name+" sum", sum, sigSum, sig)
								c, _ := res[k].Data("count")
								checkVals(t, name+" count", c, []complex128{complex(float64(cnt), 0)}, []int{1})
								if cnt > 0 {
									m, err := res[k].Data("mean")
									if err != nil {
										t.Fatal(err)
									}
									checkVals(t, name+" mean", m, mean, sig)
								}
							}
							_ = idx
						}
					}
				}
			}
		}
	}
}
