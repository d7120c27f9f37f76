package udfbridge

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/nd"
)

// MaxUDF and MinUDF are the pixelwise maximum and minimum over the frames
// in the ROI (LiberTEM's documentation example of a max-UDF): a sig
// buffer "intensity" of the dataset's own dtype (USE_NATIVE_DTYPE).
// Preprocess fills it with -Inf (+Inf for Min; the smallest or largest
// value for integers, false or true for bools), in each task and on the
// main node, so that the merge target starts at the identity of
// maximum/minimum; partitions merge with nd.Maximum / nd.Minimum (NaN
// propagates, as numpy's). With no frame in the ROI the result stays
// ∓Inf. Complex values compare lexicographically, as numpy's.
type MaxUDF struct {
	scratch scratch // per-tile maxima, reused
}

// MinUDF: see MaxUDF.
type MinUDF struct {
	scratch scratch // per-tile minima, reused
}

var (
	_ Preprocessor    = (*MaxUDF)(nil)
	_ TileProcessor   = (*MaxUDF)(nil)
	_ Merger          = (*MaxUDF)(nil)
	_ PreferredDTyper = (*MaxUDF)(nil)
	_ Preprocessor    = (*MinUDF)(nil)
)

func init() {
	RegisterUDF("MaxUDF", func([]byte) (UDF, error) { return &MaxUDF{}, nil })
	RegisterUDF("MinUDF", func([]byte) (UDF, error) { return &MinUDF{}, nil })
}

func (*MaxUDF) Name() string                  { return "MaxUDF" }
func (*MaxUDF) Params() ([]byte, error)       { return nil, nil }
func (*MaxUDF) PreferredInputDType() nd.DType { return UseNativeDType }
func (*MaxUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{SigBuffer("intensity", m.InputDType)}, nil
}
func (*MaxUDF) Preprocess(c *Ctx) error { return fillExtreme("MaxUDF", c.Buf("intensity"), true) }
func (u *MaxUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	return reduceInto("MaxUDF", nd.Max, nd.Maximum, &u.scratch, c.Buf("intensity"), tile)
}
func (*MaxUDF) Merge(_ *MergeCtx, dest, src map[string]*nd.Array) error {
	return udfErr("MaxUDF", "merge", nd.BinaryInto(nd.Maximum, dest["intensity"], dest["intensity"], src["intensity"]))
}

func (*MinUDF) Name() string                  { return "MinUDF" }
func (*MinUDF) Params() ([]byte, error)       { return nil, nil }
func (*MinUDF) PreferredInputDType() nd.DType { return UseNativeDType }
func (*MinUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{SigBuffer("intensity", m.InputDType)}, nil
}
func (*MinUDF) Preprocess(c *Ctx) error { return fillExtreme("MinUDF", c.Buf("intensity"), false) }
func (u *MinUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	return reduceInto("MinUDF", nd.Min, nd.Minimum, &u.scratch, c.Buf("intensity"), tile)
}
func (*MinUDF) Merge(_ *MergeCtx, dest, src map[string]*nd.Array) error {
	return udfErr("MinUDF", "merge", nd.BinaryInto(nd.Minimum, dest["intensity"], dest["intensity"], src["intensity"]))
}

func reduceInto(udf string, r nd.ReduceOp, b nd.BinaryOp, s *scratch, dst, tile *nd.Array) error {
	x, err := reduceOpScratch(r, s, tile, axis0)
	if err == nil {
		err = nd.BinaryInto(b, dst, dst, x)
	}
	return udfErr(udf, "process_tile", err)
}

// fillExtreme fills buf with the identity of maximum (max) or minimum.
func fillExtreme(udf string, buf *nd.Array, max bool) error {
	if buf == nil {
		return fmt.Errorf("udfbridge: UDF %s: preprocess: no buffer \"intensity\"", udf)
	}
	d := buf.DType()
	sign := 1.0
	if max {
		sign = -1
	}
	var v any
	switch {
	case d.IsBool():
		v = !max
	case d.IsFloat():
		v = math.Inf(int(sign))
	case d.IsComplex():
		v = complex(math.Inf(int(sign)), 0)
	case d.IsUnsigned():
		if max {
			v = uint64(0)
		} else {
			v = uint64(math.MaxUint64) >> (64 - 8*d.Size())
		}
	default:
		lim := int64(math.MaxInt64) >> (64 - 8*d.Size())
		if max {
			v = -lim - 1
		} else {
			v = lim
		}
	}
	f, err := nd.Full(d, v, buf.Shape()...)
	if err == nil {
		err = nd.Assign(buf, f)
	}
	return udfErr(udf, "preprocess", err)
}
