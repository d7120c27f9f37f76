package udfbridge

import (
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// StdDevUDF is LiberTEM's StdDevUDF: per sig pixel, over the frames in
// the ROI, "sum" (input dtype), "mean" (input dtype), "var" and "std"
// (population variance and standard deviation, |x - mean|² for complex
// data; float32 for float32/complex64 input, float64 otherwise) and
// "num_frames" (a single int64). With no frame, mean, var and std are NaN.
//
// The buffers behind them are the moments of each pixel, merged with Chan,
// Golub and LeVeque's pairwise update (nd.CombineMoments): "count" and
// "varsum" (M2, float64) and "mean_acc" (float64, complex128 for complex
// input), private. Accumulating Σx and Σx² instead was rejected: var =
// Σx²/n - mean² cancels catastrophically when the mean is large against
// the spread (detector frames with an offset). Tiles are merged into the
// partition's moments the same way, so a tile covering part of the signal
// is fine; count is per pixel for that reason.
type StdDevUDF struct{}

var (
	_ TileProcessor = (*StdDevUDF)(nil)
	_ Merger        = (*StdDevUDF)(nil)
	_ ResultGetter  = (*StdDevUDF)(nil)
)

func init() {
	RegisterUDF("StdDevUDF", func([]byte) (UDF, error) { return &StdDevUDF{}, nil })
}

func (*StdDevUDF) Name() string            { return "StdDevUDF" }
func (*StdDevUDF) Params() ([]byte, error) { return nil, nil }

func realOf(d nd.DType) nd.DType {
	switch d {
	case nd.Float32, nd.Complex64:
		return nd.Float32
	}
	return nd.Float64
}

func meanAccDType(d nd.DType) nd.DType {
	if d.IsComplex() {
		return nd.Complex128
	}
	return nd.Float64
}

func (*StdDevUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	in := m.InputDType
	if in.IsBool() {
		return nil, fmt.Errorf("udfbridge: UDF StdDevUDF: input dtype %v has no variance", in)
	}
	private := func(d BufferDecl) BufferDecl { d.Use = UsePrivate; return d }
	resultOnly := func(d BufferDecl) BufferDecl { d.Use = UseResultOnly; return d }
	return []BufferDecl{
		SigBuffer("sum", in),
		SingleBuffer("num_frames", nd.Int64),
		private(SigBuffer("count", nd.Float64)),
		private(SigBuffer("mean_acc", meanAccDType(in))),
		private(SigBuffer("varsum", nd.Float64)),
		resultOnly(SigBuffer("mean", in)),
		resultOnly(SigBuffer("var", realOf(in))),
		resultOnly(SigBuffer("std", realOf(in))),
	}, nil
}

func (u *StdDevUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	s, err := sumFrames(tile)
	if err == nil {
		err = addInto(c.Buf("sum"), s)
	}
	if err != nil {
		return udfErr("StdDevUDF", "process_tile", err)
	}
	// num_frames counts each frame once: in the tile holding its first pixel.
	sl := c.Meta().Slice
	first := true
	if sl != nil {
		for _, o := range sl.SigOrigin {
			first = first && o == 0
		}
	}
	if first {
		nf := c.Buf("num_frames")
		one, _ := nd.FromSlice([]int64{int64(tile.Shape()[0])}, 1)
		if err := addInto(nf, one); err != nil {
			return udfErr("StdDevUDF", "process_tile", err)
		}
	}
	cnt, mean, m2, err := nd.Moments(tile, []int{0})
	if err != nil {
		return udfErr("StdDevUDF", "process_tile", err)
	}
	region := tile.Shape()[1:]
	if cnt, err = cnt.Reshape(region...); err == nil {
		if mean, err = mean.Reshape(region...); err == nil {
			m2, err = m2.Reshape(region...)
		}
	}
	if err != nil {
		return udfErr("StdDevUDF", "process_tile", err)
	}
	return udfErr("StdDevUDF", "process_tile", combineInto(c.Bufs(), map[string]*nd.Array{"count": cnt, "mean_acc": mean, "varsum": m2}))
}

// combineInto merges the moments src into the buffer views dst.
func combineInto(dst, src map[string]*nd.Array) error {
	cnt, mean, m2, err := nd.CombineMoments(
		[]*nd.Array{dst["count"], src["count"]},
		[]*nd.Array{dst["mean_acc"], src["mean_acc"]},
		[]*nd.Array{dst["varsum"], src["varsum"]})
	if err != nil {
		return err
	}
	if err := nd.Assign(dst["count"], cnt); err != nil {
		return err
	}
	if err := nd.Assign(dst["mean_acc"], mean); err != nil {
		return err
	}
	return nd.Assign(dst["varsum"], m2)
}

func (*StdDevUDF) Merge(_ *MergeCtx, dest, src map[string]*nd.Array) error {
	if err := addInto(dest["sum"], src["sum"]); err != nil {
		return udfErr("StdDevUDF", "merge", err)
	}
	if err := addInto(dest["num_frames"], src["num_frames"]); err != nil {
		return udfErr("StdDevUDF", "merge", err)
	}
	return udfErr("StdDevUDF", "merge", combineInto(dest, src))
}

func (*StdDevUDF) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	in := c.Meta().InputDType
	cnt, mean, m2 := c.Buf("count"), c.Buf("mean_acc"), c.Buf("varsum")
	if cnt == nil || mean == nil || m2 == nil {
		return nil, fmt.Errorf("udfbridge: UDF StdDevUDF: get_results: moment buffers missing")
	}
	out := map[string]*nd.Array{}
	sig := cnt.Shape()
	v, err := nd.Binary(nd.Div, m2, cnt) // M2/n; 0/0 is NaN
	if err != nil {
		return nil, udfErr("StdDevUDF", "get_results", err)
	}
	// the mean of no frame is NaN, as numpy's
	nan, _ := nd.Binary(nd.Div, cnt, cnt) // 1 where count > 0, NaN where 0
	meanOut, err := nd.Binary(nd.Mul, mean, nan)
	if err != nil {
		return nil, udfErr("StdDevUDF", "get_results", err)
	}
	std, err := nd.Unary(nd.Sqrt, v)
	if err != nil {
		return nil, udfErr("StdDevUDF", "get_results", err)
	}
	for name, a := range map[string]*nd.Array{"mean": meanOut, "var": v, "std": std} {
		d := in
		if name != "mean" {
			d = realOf(in)
		}
		r, err := a.AsType(d)
		if err != nil {
			return nil, udfErr("StdDevUDF", "get_results", err)
		}
		if r, err = r.Reshape(sig...); err != nil {
			return nil, udfErr("StdDevUDF", "get_results", err)
		}
		out[name] = r
	}
	return out, nil
}
