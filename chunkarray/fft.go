package chunkarray

import (
	"context"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Fourier transforms (dask.array.fft): as dask's fft_wrap, every axis a
// transform runs along must be one chunk (rechunk first: Rechunk with -1
// for the axis); each block is then transformed in its own task by
// nd.FFTN, with numpy's s (n), axes and norm, and the transformed axes of
// the result are one chunk of the output length. Results are complex128
// (float64 for irfft, irfft2, irfftn and hfft) whatever the input's
// precision, as numpy 1.24's. A length n (or an entry of s) of 0 means
// numpy's None (a negative one is an error, as numpy's): the axis's length (2·(m-1) for the last axis of the
// inverse real transforms and for hfft).

const opFFT = "chunkarray.fft"

func init() { register[fftP](opFFT) }

// fftP transforms one block. N and Axes are resolved (nd.FFTShape).
type fftP struct {
	Kind nd.FFTKind `json:"kind"`
	N    []int      `json:"n"`
	Axes []int      `json:"axes"`
	Norm string     `json:"norm,omitempty"`
}

func (p fftP) run(_ context.Context, args []any) (any, error) {
	a, err := argArray(args[0], opFFT)
	if err != nil {
		return nil, err
	}
	return nd.FFTN(a, p.Kind, p.N, p.Axes, p.Norm)
}

// fftWrap checks and builds a transform of kind over axes with lengths s
// (nil: numpy's None).
func fftWrap(name string, a *Array, kind nd.FFTKind, s, axes []int, norm string) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	shapes := [][]int{a.shape}
	if norm != "" && norm != "backward" && norm != "ortho" && norm != "forward" {
		return errorf(name, shapes, "invalid norm value %q; should be \"backward\", \"ortho\" or \"forward\"", norm)
	}
	if a.dtype == nd.Invalid {
		return errorf(name, shapes, "invalid dtype")
	}
	if s != nil {
		// an entry < 1 is numpy's None for that axis
		s = slices.Clone(s)
		if axes == nil {
			axes = lastAxes(len(s))
		}
		if len(s) != len(axes) {
			return errorf(name, shapes, "shape and axes have different lengths")
		}
		for i := range s {
			if s[i] < 0 {
				return errorf(name, shapes, "invalid number of FFT data points (%d) specified", s[i])
			}
			if s[i] > 0 {
				continue
			}
			x := axes[i]
			if x < -a.NDim() || x >= a.NDim() {
				return errArray(&Error{Op: name, Shapes: shapes, Err: &nd.AxisError{Op: name, Axis: x, NDim: a.NDim()}})
			}
			if x < 0 {
				x += a.NDim()
			}
			s[i] = a.shape[x]
			if i == len(s)-1 && (kind == nd.FFTRealInv || kind == nd.FFTHerm) {
				s[i] = 2 * (a.shape[x] - 1)
			}
		}
	}
	check := axes // an unknown length transformed: unknown.go's error
	if check == nil {
		check = lastAxes(a.NDim())
	}
	for _, x := range check {
		if x >= -a.NDim() && x < a.NDim() && a.shape[(x+a.NDim())%a.NDim()] == Unknown {
			return errArray(unknownError(name, a.shape, (x+a.NDim())%a.NDim()))
		}
	}
	ax, n, err := nd.FFTShape(kind, a.shape, s, axes)
	if err != nil {
		return errArray(&Error{Op: name, Shapes: shapes, Err: err})
	}
	if (kind == nd.FFTHerm || kind == nd.FFTHermInv) && len(ax) != 1 {
		return errorf(name, shapes, "takes one axis")
	}
	for _, x := range ax {
		if len(a.chunks[x]) != 1 {
			return errorf(name, shapes, "only an axis of one chunk can be transformed (as dask.array.fft): axis %d has chunks %v; rechunk it to one chunk", x, a.chunks[x])
		}
	}
	shape := nd.FFTOutShape(kind, a.shape, ax, n)
	chunks := slices.Clone(a.chunks)
	for _, x := range ax {
		chunks[x] = []int{shape[x]}
	}
	p := fftP{Kind: kind, N: n, Axes: ax, Norm: norm}
	return newArray(name, shape, chunks, nd.FFTOutType(kind),
		&funcLayer{ins: []*Array{a}, op: newOp(opFFT, p), args: func(idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(a.Key(idx...))}
		}}, a.name, kind, n, ax, norm)
}

func lastAxes(k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = i - k
	}
	return out
}

func fft1(name string, a *Array, kind nd.FFTKind, n, axis int, norm string) *Array {
	var s []int
	if n > 0 {
		s = []int{n}
	} else if n < 0 {
		return errorf(name, [][]int{a.Shape()}, "invalid number of FFT data points (%d) specified", n)
	}
	return fftWrap(name, a, kind, s, []int{axis}, norm)
}

// FFT is numpy.fft.fft / dask.array.fft.fft along axis (one chunk), with
// n points (0: the axis's length) and norm ("", "backward", "ortho",
// "forward").
func FFT(a *Array, n, axis int, norm string) *Array {
	return fft1("fft", a, nd.FFTForward, n, axis, norm)
}

// IFFT is numpy.fft.ifft along axis (one chunk).
func IFFT(a *Array, n, axis int, norm string) *Array {
	return fft1("ifft", a, nd.FFTInverse, n, axis, norm)
}

// RFFT is numpy.fft.rfft along axis (one chunk): the n/2+1 non-negative
// frequencies of a real signal (a complex input loses its imaginary part).
func RFFT(a *Array, n, axis int, norm string) *Array {
	return fft1("rfft", a, nd.FFTReal, n, axis, norm)
}

// IRFFT is numpy.fft.irfft along axis (one chunk): n real points (0: 2·(m-1)).
func IRFFT(a *Array, n, axis int, norm string) *Array {
	return fft1("irfft", a, nd.FFTRealInv, n, axis, norm)
}

// HFFT is numpy.fft.hfft along axis (one chunk): the real spectrum of a
// signal with Hermitian symmetry, n points (0: 2·(m-1)).
func HFFT(a *Array, n, axis int, norm string) *Array {
	return fft1("hfft", a, nd.FFTHerm, n, axis, norm)
}

// IHFFT is numpy.fft.ihfft along axis (one chunk).
func IHFFT(a *Array, n, axis int, norm string) *Array {
	return fft1("ihfft", a, nd.FFTHermInv, n, axis, norm)
}

func axes2(axes []int) []int {
	if axes == nil {
		return []int{-2, -1}
	}
	return axes
}

// FFT2 is numpy.fft.fft2: FFTN over axes (nil: the last two).
func FFT2(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("fft2", a, nd.FFTForward, s, axes2(axes), norm)
}

// IFFT2 is numpy.fft.ifft2.
func IFFT2(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("ifft2", a, nd.FFTInverse, s, axes2(axes), norm)
}

// RFFT2 is numpy.fft.rfft2.
func RFFT2(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("rfft2", a, nd.FFTReal, s, axes2(axes), norm)
}

// IRFFT2 is numpy.fft.irfft2.
func IRFFT2(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("irfft2", a, nd.FFTRealInv, s, axes2(axes), norm)
}

// FFTN is numpy.fft.fftn: the transform over axes (nil: the last len(s)
// axes, or all when s is nil too, as numpy; Dask takes the first len(s))
// with lengths s (nil or entries < 1: the axes' lengths). Every axis must
// be one chunk.
func FFTN(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("fftn", a, nd.FFTForward, s, axes, norm)
}

// IFFTN is numpy.fft.ifftn.
func IFFTN(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("ifftn", a, nd.FFTInverse, s, axes, norm)
}

// RFFTN is numpy.fft.rfftn: rfft along the last of axes, then fft along
// the others.
func RFFTN(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("rfftn", a, nd.FFTReal, s, axes, norm)
}

// IRFFTN is numpy.fft.irfftn: ifft along all but the last of axes, then
// irfft along it (2·(m-1) points unless s says).
func IRFFTN(a *Array, s, axes []int, norm string) *Array {
	return fftWrap("irfftn", a, nd.FFTRealInv, s, axes, norm)
}

// FFTFreq is numpy.fft.fftfreq / dask.array.fft.fftfreq(n, d, chunks):
// the float64 sample frequencies [0, 1, …, -2, -1] / (d·n).
func FFTFreq(n int, d float64, chunks any) *Array {
	if n < 1 {
		return errorf("fftfreq", nil, "n must be positive, got %d", n)
	}
	pos := Arange(0, float64((n-1)/2+1), 1, nd.Float64, -1)
	neg := Arange(-float64(n/2), 0, 1, nd.Float64, -1)
	return Concatenate([]*Array{pos, neg}, 0).Div(float64(n) * d).Rechunk(chunks)
}

// RFFTFreq is numpy.fft.rfftfreq(n, d, chunks): [0, 1, …, n/2] / (d·n).
func RFFTFreq(n int, d float64, chunks any) *Array {
	if n < 1 {
		return errorf("rfftfreq", nil, "n must be positive, got %d", n)
	}
	return Arange(0, float64(n/2+1), 1, nd.Float64, -1).Div(float64(n) * d).Rechunk(chunks)
}

// FFTShift is numpy.fft.fftshift over axes (none given: all): the zero
// frequency moved to the middle, a roll by n/2 along each axis, made of
// slices and a concatenation (any chunks).
func FFTShift(a *Array, axes ...int) *Array { return shiftAxes("fftshift", a, axes, false) }

// IFFTShift is numpy.fft.ifftshift, FFTShift's inverse (a roll by -n/2).
func IFFTShift(a *Array, axes ...int) *Array { return shiftAxes("ifftshift", a, axes, true) }

func shiftAxes(name string, a *Array, axes []int, inverse bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if len(axes) == 0 {
		axes = make([]int, a.NDim())
		for i := range axes {
			axes[i] = i
		}
	}
	ax, err := nd.NormalizeAxes(name, axes, a.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Err: err})
	}
	x := a
	for _, i := range ax {
		n := x.shape[i]
		k := n / 2
		if inverse {
			k = n - n/2
		}
		if n == 0 || k%n == 0 {
			continue
		}
		lo := make([]Sel, x.NDim())
		hi := make([]Sel, x.NDim())
		for j := range lo {
			lo[j], hi[j] = All(), All()
		}
		hi[i], lo[i] = Range(n-k, n), Range(0, n-k)
		x = Concatenate([]*Array{x.Index(hi...), x.Index(lo...)}, i)
	}
	return x
}
