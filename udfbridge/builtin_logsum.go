package udfbridge

import (
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// LogsumUDF is LiberTEM's LogsumUDF: Σ log(frame - min(frame) + 1) over
// the frames in the ROI, a float32 sig buffer "logsum". Against the log of
// the sum it brings out regions a little brighter in many frames over
// very bright ones in a few. The offset uses each whole frame's minimum,
// so it processes frames (a tile covering part of the signal would see
// another minimum). Complex data is an error.
type LogsumUDF struct{}

var (
	_ FrameProcessor = (*LogsumUDF)(nil)
	_ Merger         = (*LogsumUDF)(nil)
)

func init() {
	RegisterUDF("LogsumUDF", func([]byte) (UDF, error) { return &LogsumUDF{}, nil })
}

func (*LogsumUDF) Name() string            { return "LogsumUDF" }
func (*LogsumUDF) Params() ([]byte, error) { return nil, nil }
func (*LogsumUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	if m.InputDType.IsComplex() {
		return nil, fmt.Errorf("udfbridge: UDF LogsumUDF: complex input dtype %v has no logarithm offset by its minimum", m.InputDType)
	}
	return []BufferDecl{SigBuffer("logsum", nd.Float32)}, nil
}

func (*LogsumUDF) ProcessFrame(c *Ctx, frame *nd.Array) error {
	mn, err := nd.Reduce(nd.Min, frame, nil, false)
	if err != nil {
		return udfErr("LogsumUDF", "process_frame", err)
	}
	x, err := nd.Binary(nd.Sub, frame, mn)
	if err == nil {
		one := nd.Scalar(float32(1))
		if x, err = nd.Binary(nd.Add, x, one); err == nil {
			if x, err = nd.Unary(nd.Log, x); err == nil {
				if x.DType() != nd.Float32 {
					x, err = x.AsType(nd.Float32)
				}
				if err == nil {
					err = addInto(c.Buf("logsum"), x)
				}
			}
		}
	}
	return udfErr("LogsumUDF", "process_frame", err)
}

func (*LogsumUDF) Merge(_ *MergeCtx, dest, src map[string]*nd.Array) error {
	return udfErr("LogsumUDF", "merge", addInto(dest["logsum"], src["logsum"]))
}
