package udfbridge

import (
	"fmt"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// The device paths of the built-in UDFs (device.go): SumUDF, SumSigUDF
// and ApplyMasksUDF (dense masks) declare the CPU and CUDA backends, their
// "intensity" buffer Where: Device, and process float32 and float64 tiles
// on the device with internal/cudaops's kernels (SumOverNav, SumOverSig,
// MaskDot), accumulating into the device buffer. Other dtypes (complex
// input, integer masks), sparse masks and partial-signal tiles take the CPU
// path on CUDA partitions too. The results agree with the CPU path within
// cudaops's stated tolerances (a float32 sum: 1e-5 of the sum of
// magnitudes), not bit for bit: the orders of summation differ.
//
// StdDevUDF stays CPU-only: its moments merge tile by tile with Chan's
// update into a per-pixel count, mean and M2 (and an int64 frame count),
// which would need kernels of their own.

var (
	_ DeviceTileProcessor = (*SumUDF)(nil)
	_ DeviceTileProcessor = (*SumMergeAllUDF)(nil)
	_ DeviceTileProcessor = (*SumSigUDF)(nil)
	_ DeviceTileProcessor = (*ApplyMasksUDF)(nil)
	_ Backender           = (*SumUDF)(nil)
	_ Backender           = (*SumSigUDF)(nil)
	_ Backender           = (*ApplyMasksUDF)(nil)
)

var cpuAndCUDA = []Backend{BackendCPU, BackendCUDA}

func (*SumUDF) Backends() []Backend    { return cpuAndCUDA }
func (*SumSigUDF) Backends() []Backend { return cpuAndCUDA }

func (*ApplyMasksUDF) Backends() []Backend { return cpuAndCUDA }

func (*SumUDF) DeviceTiles(*Meta) bool    { return true }
func (*SumSigUDF) DeviceTiles(*Meta) bool { return true }

// ProcessTileDevice adds the tile's sum over its frames to the device
// buffer: intensity += tile.sum(axis=0).
func (*SumUDF) ProcessTileDevice(c *Ctx, tile *DeviceArray) error {
	return cudaops.SumOverNav(c.DeviceBuf("intensity"), tile, len(c.Meta().SigShape), true)
}

// ProcessTileDevice adds each frame's sum to the tile's rows of the
// device buffer.
func (*SumSigUDF) ProcessTileDevice(c *Ctx, tile *DeviceArray) error {
	return cudaops.SumOverSig(c.DeviceBuf("intensity"), tile, len(c.Meta().SigShape), true)
}

// DeviceTiles: dense masks whose result dtype is the input dtype (the
// kernels take one dtype; float32 masks on float32 input, float64 on
// float64).
func (u *ApplyMasksUDF) DeviceTiles(m *Meta) bool {
	return u.Masks != nil && u.Masks.dense != nil && u.resultDType(m.InputDType) == m.InputDType
}

// ProcessTileDevice adds the tile's products with the masks to the tile's
// rows of the device buffer (cuBLAS in a cublas build); the masks are
// uploaded at the first tile, in the input dtype, and stay for the
// partition.
func (u *ApplyMasksUDF) ProcessTileDevice(c *Ctx, tile *DeviceArray) error {
	if u.device == nil {
		m, err := u.Masks.dense.Reshape(append([]int{u.Masks.k}, u.Masks.sig...)...)
		if err == nil && m.DType() != tile.DType() {
			m, err = m.AsType(tile.DType())
		}
		if err != nil {
			return fmt.Errorf("masks to %v: %w", tile.DType(), err)
		}
		if u.device, err = c.Upload(m); err != nil {
			return fmt.Errorf("uploading masks: %w", err)
		}
	}
	return cudaops.MaskDot(c.DeviceBuf("intensity"), tile, u.device, len(u.Masks.sig), true)
}

// deviceNav and deviceSig are the declarations of a device-capable UDF's
// buffers.
func deviceNav(name string, dt nd.DType, extra ...int) BufferDecl {
	d := NavBuffer(name, dt, extra...)
	d.Where = Device
	return d
}

func deviceSig(name string, dt nd.DType, extra ...int) BufferDecl {
	d := SigBuffer(name, dt, extra...)
	d.Where = Device
	return d
}
