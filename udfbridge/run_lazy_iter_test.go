package udfbridge

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

func coreMemDS(t *testing.T, dt nd.DType) (*MemoryDataset, []int, []int) {
	nav, sig := []int{4, 6}, []int{5, 3}
	ds, err := NewMemoryDataset(coreData(t, dt, nav, sig, 11), len(nav))
	if err != nil {
		t.Fatal(err)
	}
	return ds, nav, sig
}

func coreSame(t *testing.T, what string, a, b *nd.Array) {
	t.Helper()
	if !slices.Equal(a.Shape(), b.Shape()) || a.DType() != b.DType() {
		t.Fatalf("%s: %v %v vs %v %v", what, a.DType(), a.Shape(), b.DType(), b.Shape())
	}
	checkVals(t, what, a, c128(t, b), b.Shape())
}

func TestRunLazyMatchesRun(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Uint16)
	roi := roiCases(shapeProd(nav), nav[1], 5)["random"]
	r, _ := nd.FromSlice(roi, nav...)
	opts := []RunOption{WithPartitions(3), WithROI(r), WithScheduler(sched.Sync{})}
	want, err := Run(context.Background(), ds, []UDF{tNavSum{}, tSigSum{}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := RunLazy(ds, []UDF{tNavSum{}, tSigSum{}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	arrs := []*chunkarray.Array{lazy[0].Arrays["intensity"], lazy[1].Arrays["sum"], lazy[1].Arrays["mean"]}
	g, _, err := chunkarray.BuildGraph(arrs)
	if err != nil {
		t.Fatal(err)
	}
	nparts := 0
	for _, k := range g.Keys() {
		if strings.HasPrefix(string(k), "udf-partition-") {
			nparts++
		}
	}
	if nparts != 3 {
		t.Errorf("graph of three buffers has %d partition tasks, want 3 (one pass)", nparts)
	}
	got, err := chunkarray.Compute(context.Background(), arrs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range []struct {
		r    *Results
		name string
	}{{want[0], "intensity"}, {want[1], "sum"}, {want[1], "mean"}} {
		w, _ := x.r.Data(x.name)
		coreSame(t, x.name, got[i], w)
	}
}

func TestGraphRoundTripJSON(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	p, err := plan(ds, []UDF{tNavSum{}, tSigSum{}}, []RunOption{WithPartitions(3)})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New(0)
	root, err := p.buildGraph(g, p.token(), p.nonEmpty())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	g2, err := graph.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := sched.Sync{}.Get(context.Background(), g2, []graph.Key{root})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := graph.EncodeValue(nil, vals[0])
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := graph.DecodeValue(enc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.finish(v.(*chunk), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := got[1].Data("sum")
	b, _ := want[1].Data("sum")
	coreSame(t, "sum", a, b)
}

// tScale multiplies each frame's sum by its parameter, for RunIter.
type tScale struct{ k byte }

func (tScale) Name() string              { return "test.scale" }
func (u tScale) Params() ([]byte, error) { return []byte{u.k}, nil }
func (tScale) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("v", nd.Float64)}, nil
}
func (u tScale) ProcessFrame(c *Ctx, f *nd.Array) error {
	s, err := nd.Reduce(nd.Sum, f, nil, false)
	if err != nil {
		return err
	}
	s, _ = s.AsType(nd.Float64)
	k := nd.Scalar(float64(c.Params()[0]))
	s, _ = nd.Binary(nd.Mul, s, k)
	s, err = s.Contiguous().Reshape(1)
	if err != nil {
		return err
	}
	return nd.Assign(c.Buf("v"), s)
}

func init() {
	RegisterUDF("test.scale", func(b []byte) (UDF, error) {
		if len(b) != 1 {
			return nil, errors.New("want one byte")
		}
		return tScale{b[0]}, nil
	})
}

func TestRunIter(t *testing.T) {
	ds, nav, sig := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	it, err := RunIter(ds, []UDF{tNavSum{}, tScale{1}}, WithPartitions(4), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	bounds := Partitions(n, 4)
	raw := c128(t, ds.Array())
	s := shapeProd(sig)
	for it.Next(context.Background()) {
		p := it.Partial()
		steps++
		dm, _ := nd.Values[bool](p.Damage)
		for i := 0; i < n; i++ {
			if dm[i] != (i < bounds[steps]) {
				t.Fatalf("step %d: damage[%d] = %v", steps, i, dm[i])
			}
		}
		// Equal to a run restricted to roi = damage.
		want, err := Run(context.Background(), ds, []UDF{tNavSum{}}, WithPartitions(4), WithROI(p.Damage))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := p.Results[0].Data("intensity")
		b, _ := want[0].Data("intensity")
		coreSame(t, "partial intensity", a, b)
		v, _ := p.Results[1].Data("v")
		vv := c128(t, v)
		for i := 0; i < bounds[steps]; i++ {
			var sum complex128
			for j := 0; j < s; j++ {
				sum += raw[i*s+j]
			}
			k := 1
			for q := 1; q <= 4; q++ {
				if i >= bounds[q-1] && i < bounds[q] && q >= 3 {
					k = 5
				}
			}
			if !near(vv[i], sum*complex(float64(k), 0)) {
				t.Fatalf("step %d: v[%d] = %v, want %v×%d", steps, i, vv[i], sum, k)
			}
		}
		if steps == 2 {
			if err := it.UpdateUDF(1, tScale{5}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if it.Err() != nil || steps != 4 {
		t.Fatalf("steps %d, err %v", steps, it.Err())
	}
	// Cancellation.
	it, _ = RunIter(ds, []UDF{tNavSum{}}, WithPartitions(4))
	ctx, cancel := context.WithCancel(context.Background())
	it.Next(ctx)
	cancel()
	if it.Next(ctx) || it.Err() == nil || !strings.Contains(it.Err().Error(), "after 1 of 4 partitions") || !errors.Is(it.Err(), context.Canceled) {
		t.Fatalf("cancel: %v", it.Err())
	}
	// Empty ROI: one step.
	empty, _ := nd.Zeros(nd.Bool, n)
	it, _ = RunIter(ds, []UDF{tNavSum{}}, WithROI(empty))
	steps = 0
	for it.Next(context.Background()) {
		steps++
	}
	if steps != 1 || it.Err() != nil {
		t.Fatalf("empty ROI: %d steps, %v", steps, it.Err())
	}
}
