package udfbridge

import (
	"encoding/json"
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// PickUDF is LiberTEM's PickUDF: one frame, picked by its nav index
// (nav coordinates, or one flat index), as a sig buffer "intensity" of the
// dataset's own dtype (USE_NATIVE_DTYPE). LiberTEM picks with a one-frame
// ROI; tessera takes the index as a parameter, so it combines with any
// ROI: a frame outside the ROI is never read and the result is zero.
// Partitions merge by addition (only one holds the frame).
type PickUDF struct {
	Index []int `json:"index"`
}

var (
	_ TileProcessor   = (*PickUDF)(nil)
	_ Merger          = (*PickUDF)(nil)
	_ PreferredDTyper = (*PickUDF)(nil)
)

// Pick returns the UDF picking the frame at nav index idx.
func Pick(idx ...int) *PickUDF { return &PickUDF{Index: append([]int(nil), idx...)} }

func init() {
	RegisterUDF("PickUDF", func(b []byte) (UDF, error) {
		var p PickUDF
		if err := decodeParams("PickUDF", b, &p); err != nil {
			return nil, err
		}
		return &p, nil
	})
}

func (*PickUDF) Name() string                  { return "PickUDF" }
func (u *PickUDF) Params() ([]byte, error)     { return json.Marshal(u) }
func (*PickUDF) PreferredInputDType() nd.DType { return UseNativeDType }

func (u *PickUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	if _, err := u.flat(m.NavShape); err != nil {
		return nil, err
	}
	return []BufferDecl{SigBuffer("intensity", m.InputDType)}, nil
}

// flat returns the flat nav index picked.
func (u *PickUDF) flat(nav []int) (int, error) {
	n := prodInts(nav)
	switch len(u.Index) {
	case 1:
		if u.Index[0] >= 0 && u.Index[0] < n {
			return u.Index[0], nil
		}
	case len(nav):
		f := 0
		ok := true
		for d, i := range u.Index {
			ok = ok && i >= 0 && i < nav[d]
			f = f*nav[d] + i
		}
		if ok {
			return f, nil
		}
	}
	return 0, fmt.Errorf("udfbridge: UDF PickUDF: index %v outside nav shape %v", u.Index, nav)
}

func (u *PickUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	m := c.Meta()
	want, err := u.flat(m.NavShape)
	if err != nil {
		return err
	}
	if m.Coordinates == nil {
		return fmt.Errorf("udfbridge: UDF PickUDF: process_tile: no coordinates in meta")
	}
	co, err := m.Coordinates.AsType(nd.Int64)
	if err != nil {
		return udfErr("PickUDF", "process_tile", err)
	}
	cv, err := nd.Values[int64](co)
	if err != nil {
		return udfErr("PickUDF", "process_tile", err)
	}
	nd_ := len(m.NavShape)
	for row := 0; row < tile.Shape()[0]; row++ {
		f := 0
		for d := 0; d < nd_; d++ {
			f = f*m.NavShape[d] + int(cv[row*nd_+d])
		}
		if f != want {
			continue
		}
		fr, err := tile.Index(0, row)
		if err == nil {
			err = nd.Assign(c.Buf("intensity"), fr)
		}
		return udfErr("PickUDF", "process_tile", err)
	}
	return nil
}

func (*PickUDF) Merge(_ *MergeCtx, dest, src map[string]*nd.Array) error {
	return udfErr("PickUDF", "merge", addInto(dest["intensity"], src["intensity"]))
}
