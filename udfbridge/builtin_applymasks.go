package udfbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/tessera-go/tessera/nd"
)

// ApplyMasksUDF is LiberTEM's ApplyMasksUDF: the dot product of each frame
// with each mask of a stack (Masks: dense, or sparse CSR), a nav buffer
// "intensity" of extra shape (k,). The preferred input dtype is the
// masks' dtype and the buffer's dtype nd.ResultType(input dtype, mask
// dtype), as LiberTEM's (float32 masks on uint16 data: float32). Dense
// masks with float32 results go through internal/kern's masked-dot
// kernels (uint16 tiles as read, float32 tiles; about 2.7 GB/s of a
// uint16 raw file for 16 masks of 256×256 against 0.2 before), other
// dense stacks through gonum's BLAS, sparse ones through a loop over the
// non-zero entries inside the tile's sig region (see Masks); tiles
// covering part of the signal add their part. Nav buffers only: the
// default merge applies.
type ApplyMasksUDF struct {
	Masks *Masks

	device *DeviceArray // the masks on the device, in a CUDA partition's task
}

var (
	_ TileProcessor    = (*ApplyMasksUDF)(nil)
	_ PreferredDTyper  = (*ApplyMasksUDF)(nil)
	_ rawTileProcessor = (*ApplyMasksUDF)(nil)
)

// ApplyMasks returns the UDF applying masks.
func ApplyMasks(m *Masks) *ApplyMasksUDF { return &ApplyMasksUDF{Masks: m} }

type masksParams struct {
	K       int           `json:"k"`
	Sig     []int         `json:"sig"`
	Dense   *EncodedArray `json:"dense,omitempty"`
	IndPtr  []int         `json:"indptr,omitempty"`
	Indices []int         `json:"indices,omitempty"`
	Values  *EncodedArray `json:"values,omitempty"`
}

func init() {
	RegisterUDF("ApplyMasksUDF", func(b []byte) (UDF, error) {
		m, err := decodeMasks(b)
		if err != nil {
			return nil, err
		}
		return &ApplyMasksUDF{Masks: m}, nil
	})
}

// decodedMasks keeps the last few mask stacks rebuilt from parameters:
// every task of a run rebuilds its UDFs from the run's parameters, and a
// stack of 16 masks of 256×256 is megabytes of JSON to decode, which cost
// more than applying it. Tasks with the same parameters share one stack
// (its caches are locked). At most decodedMasksMax stacks are kept.
var decodedMasks struct {
	mu      sync.Mutex
	entries []decodedMaskStack // newest last
}

type decodedMaskStack struct {
	params []byte
	m      *Masks
}

const decodedMasksMax = 4

func decodeMasks(b []byte) (*Masks, error) {
	decodedMasks.mu.Lock()
	for _, e := range decodedMasks.entries {
		if bytes.Equal(e.params, b) {
			decodedMasks.mu.Unlock()
			return e.m, nil
		}
	}
	decodedMasks.mu.Unlock()
	var p masksParams
	if err := decodeParams("ApplyMasksUDF", b, &p); err != nil {
		return nil, err
	}
	var m *Masks
	if p.Dense != nil {
		d, err := p.Dense.Decode()
		if err != nil {
			return nil, err
		}
		if m, err = DenseMasks(d, p.Sig); err != nil {
			return nil, err
		}
	} else {
		v, err := p.Values.Decode()
		if err != nil {
			return nil, err
		}
		if m, err = SparseMasks(p.Sig, p.IndPtr, p.Indices, v); err != nil {
			return nil, err
		}
	}
	decodedMasks.mu.Lock()
	defer decodedMasks.mu.Unlock()
	decodedMasks.entries = append(decodedMasks.entries, decodedMaskStack{params: bytes.Clone(b), m: m})
	if n := len(decodedMasks.entries); n > decodedMasksMax {
		decodedMasks.entries = slices.Delete(decodedMasks.entries, 0, n-decodedMasksMax)
	}
	return m, nil
}

func (*ApplyMasksUDF) Name() string { return "ApplyMasksUDF" }

func (u *ApplyMasksUDF) Params() ([]byte, error) {
	m := u.Masks
	if m == nil {
		return nil, fmt.Errorf("udfbridge: UDF ApplyMasksUDF: no masks")
	}
	// Masks do not change once made: encode them once (megabytes of JSON
	// for a stack of dense masks, made again by every run before).
	m.paramsOnce.Do(func() { m.params, m.paramsErr = m.encodeParams() })
	return m.params, m.paramsErr
}

// encodeParams is the masks as ApplyMasksUDF's parameters.
func (m *Masks) encodeParams() ([]byte, error) {
	p := masksParams{K: m.k, Sig: m.sig}
	if m.dense != nil {
		d, err := m.dense.Reshape(append([]int{m.k}, m.sig...)...)
		if err != nil {
			return nil, err
		}
		p.Dense = EncodeArray(d)
	} else {
		p.IndPtr, p.Indices, p.Values = m.indptr, m.indices, EncodeArray(m.values)
	}
	return json.Marshal(p)
}

func (u *ApplyMasksUDF) PreferredInputDType() nd.DType {
	if u.Masks == nil {
		return nd.Float32
	}
	return u.Masks.dt
}

func (u *ApplyMasksUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	if u.Masks == nil {
		return nil, fmt.Errorf("udfbridge: UDF ApplyMasksUDF: no masks")
	}
	if !slices.Equal(u.Masks.sig, m.SigShape) {
		return nil, fmt.Errorf("udfbridge: UDF ApplyMasksUDF: masks of sig shape %v on a dataset of sig shape %v", u.Masks.sig, m.SigShape)
	}
	return []BufferDecl{deviceNav("intensity", u.resultDType(m.InputDType), u.Masks.k)}, nil
}

func (u *ApplyMasksUDF) resultDType(in nd.DType) nd.DType {
	d := nd.ResultType(in, u.Masks.dt)
	if !d.IsFloat() && !d.IsComplex() {
		d = nd.ResultType(d, nd.Float32)
	}
	return d
}

func (u *ApplyMasksUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	var start, shape []int
	if s := c.Meta().Slice; s != nil {
		start, shape = s.SigOrigin, s.SigShape
	}
	if shape == nil {
		start, shape = nil, nil
	}
	dst := c.Buf("intensity")
	if u.Masks == nil {
		return udfErr("ApplyMasksUDF", "process_tile", fmt.Errorf("no masks"))
	}
	if done, err := u.Masks.applyKernel(dst, tile, start); done || err != nil {
		return udfErr("ApplyMasksUDF", "process_tile", err)
	}
	r, err := u.Masks.apply(tile, start, tile.Shape()[1:], dst.DType())
	if err == nil {
		err = addInto(dst, r)
	}
	return udfErr("ApplyMasksUDF", "process_tile", err)
}

// processRawTile applies dense masks to a uint16 tile as read when the
// run's input dtype is float32 or uint16 (so the converted tile holds the
// same values) and the buffer is float32: MaskDotU16 gives the bits
// MaskDotF32 gives on the converted tile in ProcessTile, without the
// conversion.
func (u *ApplyMasksUDF) processRawTile(c *Ctx, raw *nd.Array) (bool, error) {
	if u.Masks == nil || raw == nil || raw.DType() != nd.Uint16 {
		return false, nil
	}
	if in := c.Meta().InputDType; in != nd.Float32 && in != nd.Uint16 {
		return false, nil
	}
	var start []int
	if s := c.Meta().Slice; s != nil && s.SigShape != nil {
		start = s.SigOrigin
	}
	return u.Masks.applyKernel(c.Buf("intensity"), raw, start)
}
