package udfbridge

// What the main node shows a UDF, checked as LiberTEM's own tests check
// it (test_valid_mask, test_aux in preprocess, the shapes of what
// get_results returns): the valid nav mask inside GetResults, in both of
// its forms; aux data in the main-node Preprocess; a 0-d single result
// reshaped to its declaration; a nav result returned nav-shaped kept as
// it is. Oracles are formulas over the nav index and the ROI.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// tMainState: aux "w" = flat nav index i; main-node Preprocess sets the
// single "mainaux" to sum(w+1) over the aux rows it sees (0 on workers);
// GetResults returns the valid nav mask in both forms, a 0-d "zerod" and
// a nav-shaped "fullnav" = i at every position, inside the ROI or not.
type tMainState struct{ N int }

func (u tMainState) Name() string            { return "test.mainstate" }
func (u tMainState) Params() ([]byte, error) { return json.Marshal(u) }
func (u tMainState) Buffers(m *Meta) ([]BufferDecl, error) {
	n := shapeProd(m.NavShape)
	return []BufferDecl{
		NavBuffer("seen", nd.Int64),
		SingleBuffer("mainaux", nd.Float64),
		{Name: "valid", Kind: Nav, DType: nd.Bool, Use: UseResultOnly},
		{Name: "validfull", Kind: Single, DType: nd.Bool, Extra: []int{n}, Use: UseResultOnly},
		{Name: "zerod", Kind: Single, DType: nd.Float64, Use: UseResultOnly},
		{Name: "fullnav", Kind: Nav, DType: nd.Float64, Use: UseResultOnly},
	}, nil
}
func (u tMainState) AuxData() (map[string]*nd.Array, error) {
	w := make([]float64, u.N)
	for i := range w {
		w[i] = float64(i)
	}
	a, err := nd.FromSlice(w, u.N)
	return map[string]*nd.Array{"w": a}, err
}
func (u tMainState) Preprocess(c *Ctx) error {
	if c.Meta().Partition >= 0 {
		return nil
	}
	w := c.Aux("w")
	if w == nil {
		return nil // the deviation: no aux on the main node
	}
	if w.Shape()[0] != c.Buf("seen").Shape()[0] {
		return fmt.Errorf("main-node aux has %d rows, buffers %d", w.Shape()[0], c.Buf("seen").Shape()[0])
	}
	vals, err := nd.Values[float64](w.Contiguous())
	if err != nil {
		return err
	}
	s := 0.0
	for _, v := range vals {
		s += v + 1
	}
	return setAll(c.Buf("mainaux"), nd.Scalar(s))
}
func (u tMainState) ProcessFrame(c *Ctx, _ *nd.Array) error {
	return setAll(c.Buf("seen"), nd.Scalar[int64](1))
}
func (u tMainState) Merge(c *MergeCtx, dest, src map[string]*nd.Array) error {
	return nd.Assign(dest["seen"], src["seen"])
}
func (u tMainState) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	m := c.Meta()
	if m.ValidNavMask == nil {
		return nil, fmt.Errorf("no valid nav mask in get_results")
	}
	comp := m.ValidNav(false)
	valid, err := nd.FromSlice(slices.Clone(comp), len(comp))
	if err != nil {
		return nil, err
	}
	vf, err := nd.FromSlice(slices.Clone(m.ValidNav(true)), len(m.ValidNavMask))
	if err != nil {
		return nil, err
	}
	n := shapeProd(m.NavShape)
	fv := make([]float64, n)
	for i := range fv {
		fv[i] = float64(i)
	}
	full, err := nd.FromSlice(fv, m.NavShape...)
	if err != nil {
		return nil, err
	}
	return map[string]*nd.Array{"valid": valid, "validfull": vf, "zerod": nd.Scalar(42.0), "fullnav": full}, nil
}

func init() {
	RegisterUDF("test.mainstate", func(p []byte) (UDF, error) {
		var u tMainState
		return u, json.Unmarshal(p, &u)
	})
}

// mainStateWant checks one UDF's results against the formulas for a run
// (or step) whose merged positions are valid (flat over nav) under roi.
// The main-node Preprocess runs once over the whole run's ROI rows
// (auxROI), in RunIter too, as LiberTEM's does.
func mainStateWant(t *testing.T, what string, r *Results, nav []int, roi, valid, auxROI []bool) {
	t.Helper()
	n := shapeProd(nav)
	in := func(i int) bool { return roi == nil || roi[i] }
	nr, sum := 0, 0.0
	for i := 0; i < n; i++ {
		if in(i) {
			nr++
		}
		if auxROI == nil || auxROI[i] {
			sum += float64(i + 1)
		}
	}
	get := func(name string, data bool) *nd.Array {
		t.Helper()
		var a *nd.Array
		var err error
		if data {
			a, err = r.Data(name)
		} else {
			a, err = r.RawData(name)
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", what, name, err)
		}
		return a
	}
	// Valid nav mask, ROI-compressed: one element per merged row, all true.
	v := get("valid", false)
	if vals, _ := nd.Values[bool](v.Contiguous()); v.Shape()[0] != nr || slices.Contains(vals, false) {
		t.Errorf("%s: ValidNav(false) = %v, want %d trues", what, vals, nr)
	}
	// Full nav: exactly the merged positions.
	vf, _ := nd.Values[bool](get("validfull", true).Contiguous())
	if !slices.Equal(vf, valid) {
		t.Errorf("%s: ValidNav(true) = %v, want %v", what, vf, valid)
	}
	// Main-node preprocess saw the ROI-compressed aux rows.
	ma, _ := nd.Values[float64](get("mainaux", true).Contiguous())
	if len(ma) != 1 || ma[0] != sum {
		t.Errorf("%s: main-node preprocess saw aux sum %v, want %v (sum of i+1 over the ROI)", what, ma, sum)
	}
	// A 0-d single result takes its declared shape (1,).
	z := get("zerod", true)
	if zv, _ := nd.Values[float64](z.Contiguous()); !slices.Equal(z.Shape(), []int{1}) || zv[0] != 42 {
		t.Errorf("%s: 0-d single result is %v %v, want [42] of shape (1,)", what, z.Shape(), zv)
	}
	// A nav-shaped nav result: Data as returned (i everywhere, the ROI
	// not applied), RawData compressed to the ROI.
	fd := get("fullnav", true)
	fdv, _ := nd.Values[float64](fd.Contiguous())
	if !slices.Equal(fd.Shape(), nav) {
		t.Fatalf("%s: fullnav Data shape %v, want %v", what, fd.Shape(), nav)
	}
	var wantRaw []float64
	for i := 0; i < n; i++ {
		if fdv[i] != float64(i) {
			t.Fatalf("%s: fullnav Data[%d] = %v, want %d (kept as returned)", what, i, fdv[i], i)
		}
		if in(i) {
			wantRaw = append(wantRaw, float64(i))
		}
	}
	if rv, _ := nd.Values[float64](get("fullnav", false).Contiguous()); !slices.Equal(rv, wantRaw) && len(rv)+len(wantRaw) > 0 {
		t.Errorf("%s: fullnav RawData %v, want %v", what, rv, wantRaw)
	}
}

func TestMainNodeStateRun(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	for roiName, roi := range roiCases(n, nav[1], 21) {
		for _, P := range []int{1, 3, 5} {
			for _, ms := range []MergeStrategy{MergeTree, MergeLinear, MergeAllNode} {
				for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 3}} {
					what := fmt.Sprintf("roi=%s P=%d merge=%d %T", roiName, P, ms, s)
					opts := []RunOption{WithPartitions(P), WithMerge(ms), WithScheduler(s)}
					if roi != nil {
						r, _ := nd.FromSlice(roi, nav...)
						opts = append(opts, WithROI(r))
					}
					res, err := Run(context.Background(), ds, []UDF{tMainState{N: n}}, opts...)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					valid := make([]bool, n)
					for i := range valid {
						valid[i] = roi == nil || roi[i]
					}
					mainStateWant(t, what, res[0], nav, roi, valid, roi)
				}
			}
		}
	}
}

func TestMainNodeStateIter(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	roi := roiCases(n, nav[1], 22)["random"]
	r, _ := nd.FromSlice(roi, nav...)
	it, err := RunIter(ds, []UDF{tMainState{N: n}}, WithPartitions(4), WithROI(r), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for it.Next(context.Background()) {
		p := it.Partial()
		damage, _ := nd.Values[bool](p.Damage.Contiguous())
		// A step equals a run with roi = damage: the valid mask is the damage.
		mainStateWant(t, fmt.Sprintf("step %d", p.Done), p.Results[0], nav, damage, damage, roi)
		steps++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if steps == 0 {
		t.Fatal("no step")
	}
}

func TestMainNodeStateLazy(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	roi := roiCases(n, nav[1], 23)["random"]
	r, _ := nd.FromSlice(roi, nav...)
	lazy, err := RunLazy(ds, []UDF{tMainState{N: n}}, WithPartitions(3), WithROI(r))
	if err != nil {
		t.Fatal(err)
	}
	got, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{lazy[0].Arrays["validfull"], lazy[0].Arrays["zerod"], lazy[0].Arrays["mainaux"], lazy[0].Arrays["fullnav"], lazy[0].Raw["fullnav"]}, chunkarray.WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	vf, _ := nd.Values[bool](got[0].Contiguous())
	if !slices.Equal(vf, roi) {
		t.Errorf("lazy ValidNav(true) = %v, want the ROI %v", vf, roi)
	}
	if z, _ := nd.Values[float64](got[1].Contiguous()); !slices.Equal(got[1].Shape(), []int{1}) || z[0] != 42 {
		t.Errorf("lazy 0-d single: %v %v", got[1].Shape(), z)
	}
	sum := 0.0
	for i, in := range roi {
		if in {
			sum += float64(i + 1)
		}
	}
	if ma, _ := nd.Values[float64](got[2].Contiguous()); ma[0] != sum {
		t.Errorf("lazy main-node aux sum %v, want %v", ma, sum)
	}
	// The nav-shaped result: Data as returned, RawData ROI-compressed.
	fd, _ := nd.Values[float64](got[3].Contiguous())
	fr, _ := nd.Values[float64](got[4].Contiguous())
	if !slices.Equal(got[3].Shape(), nav) {
		t.Fatalf("lazy fullnav Data shape %v", got[3].Shape())
	}
	var wantRaw []float64
	for i := range fd {
		if fd[i] != float64(i) {
			t.Fatalf("lazy fullnav Data[%d] = %v, want %d", i, fd[i], i)
		}
		if roi[i] {
			wantRaw = append(wantRaw, float64(i))
		}
	}
	if !slices.Equal(fr, wantRaw) {
		t.Errorf("lazy fullnav RawData %v, want %v", fr, wantRaw)
	}
}

// A nav result of neither form is refused, naming the buffer.
type tBadNavShape struct{ tMainState }

func (tBadNavShape) Name() string { return "test.badnavshape" }
func (tBadNavShape) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	a, err := nd.Zeros(nd.Float64, 3, 3, 3)
	return map[string]*nd.Array{"fullnav": a}, err
}

func init() {
	RegisterUDF("test.badnavshape", func(p []byte) (UDF, error) {
		var u tBadNavShape
		return u, json.Unmarshal(p, &u.tMainState)
	})
}

func TestGetResultsShapeRefused(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	_, err := Run(context.Background(), ds, []UDF{tBadNavShape{tMainState{N: shapeProd(nav)}}}, WithScheduler(sched.Sync{}))
	var be *BufferError
	if !errors.As(err, &be) || be.Buffer != "fullnav" {
		t.Fatalf("got %v, want a *BufferError naming fullnav", err)
	}
}

// tF32Acc keeps float32 buffers and adds the float64 frame sums to them
// in place (numpy: buf[:] += frame.sum() with casting='same_kind').
type tF32Acc struct{}

func (tF32Acc) Name() string                  { return "test.f32acc" }
func (tF32Acc) Params() ([]byte, error)       { return nil, nil }
func (tF32Acc) PreferredInputDType() nd.DType { return nd.Float64 }
func (tF32Acc) Buffers(*Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("s", nd.Float32), SingleBuffer("tot", nd.Float32)}, nil
}
func (tF32Acc) ProcessFrame(c *Ctx, f *nd.Array) error {
	s, err := nd.Reduce(nd.Sum, f, nil, false)
	if err != nil {
		return err
	}
	// (1,), not 0-d: a 0-d float64 is cast by value to float32 first
	// (numpy 1.x), an array goes through the same-kind output cast.
	if s, err = s.Reshape(1); err != nil {
		return err
	}
	if err := nd.BinaryInto(nd.Add, c.Buf("s"), c.Buf("s"), s); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Add, c.Buf("tot"), c.Buf("tot"), s)
}
func (tF32Acc) Merge(c *MergeCtx, dest, src map[string]*nd.Array) error {
	if err := nd.Assign(dest["s"], src["s"]); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Add, dest["tot"], dest["tot"], src["tot"])
}

func init() { RegisterUDF("test.f32acc", func([]byte) (UDF, error) { return tF32Acc{}, nil }) }

// Buffer updates with numpy's same-kind in-place cast: float32 buffers
// take float64 sums, rounded to float32 as numpy rounds them.
func TestBufferUpdateSameKind(t *testing.T) {
	ds, nav, sig := coreMemDS(t, nd.Float64)
	res, err := Run(context.Background(), ds, []UDF{tF32Acc{}}, WithPartitions(3), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	vals := c128(t, coreData(t, nd.Float64, nav, sig, 11))
	s := shapeProd(sig)
	got, _ := res[0].RawData("s")
	gv, _ := nd.Values[float32](got.Contiguous())
	for i := range gv {
		w := 0.0
		for j := 0; j < s; j++ {
			w += real(vals[i*s+j])
		}
		if math.Abs(float64(gv[i])-w) > 1e-6*math.Abs(w)+1e-6 {
			t.Fatalf("s[%d] = %v, want float32(%v)", i, gv[i], w)
		}
	}
	tot, _ := res[0].Data("tot")
	if tot.DType() != nd.Float32 {
		t.Fatalf("tot is %v", tot.DType())
	}
}
