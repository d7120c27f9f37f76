package nd

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Discrete Fourier transforms, numpy.fft's, with gonum's FFTPACK
// (dsp/fourier) along one axis at a time: the axis is moved last and made
// contiguous, every lane is copied into one reused buffer, padded with
// zeros or truncated to n, transformed and scaled. Results are complex128
// or float64 whatever the input's precision (numpy 1.24's pocketfft
// computes in double precision too).

// FFTKind names a transform of FFTN.
type FFTKind uint8

const (
	FFTForward FFTKind = iota // fft, fft2, fftn: complex to complex
	FFTInverse                // ifft, ifft2, ifftn
	FFTReal                   // rfft, rfft2, rfftn: real to the n/2+1 non-negative frequencies
	FFTRealInv                // irfft, irfft2, irfftn: the inverse of FFTReal, n real outputs
	FFTHerm                   // hfft: a Hermitian-symmetric signal's real spectrum (1-d)
	FFTHermInv                // ihfft: the inverse of FFTHerm (1-d)
)

var fftNames = [...]string{"fftn", "ifftn", "rfftn", "irfftn", "hfft", "ihfft"}

func (k FFTKind) String() string {
	if int(k) < len(fftNames) {
		return fftNames[k]
	}
	return fmt.Sprintf("FFTKind(%d)", uint8(k))
}

// FFTError reports an invalid FFT argument (numpy's ValueError).
type FFTError struct {
	Op     string
	Reason string
}

func (e *FFTError) Error() string { return "nd: " + e.Op + ": " + e.Reason }

// FFTShape resolves numpy's (s, axes) arguments for an n-d transform of
// an array of the given shape (_cook_nd_args): nil axes are the last
// len(s) axes, or all axes when s is nil too; nil s is the axes' lengths,
// except that the last of an inverse real transform is 2·(m-1). It
// returns the normalized axes and the output length along each. Every
// length must be at least 1.
func FFTShape(kind FFTKind, shape, s, axes []int) ([]int, []int, error) {
	op := kind.String()
	nd := len(shape)
	shapeless := s == nil
	if axes == nil {
		n := nd
		if s != nil {
			n = len(s)
		}
		axes = make([]int, n)
		for i := range axes {
			axes[i] = i - n
		}
	}
	if s != nil && len(s) != len(axes) {
		return nil, nil, &FFTError{Op: op, Reason: "Shape and axes have different lengths."}
	}
	ax := make([]int, len(axes))
	for i, a := range axes {
		if a < -nd || a >= nd {
			return nil, nil, &AxisError{Op: op, Axis: a, NDim: nd}
		}
		if a < 0 {
			a += nd
		}
		ax[i] = a
	}
	if len(ax) == 0 && (kind == FFTReal || kind == FFTRealInv || kind == FFTHerm || kind == FFTHermInv) {
		return nil, nil, &FFTError{Op: op, Reason: "no axes to transform"}
	}
	n := make([]int, len(ax))
	for i, a := range ax {
		if shapeless {
			n[i] = shape[a]
		} else {
			n[i] = s[i]
		}
	}
	if shapeless && len(ax) > 0 && (kind == FFTRealInv || kind == FFTHerm) {
		n[len(n)-1] = 2 * (shape[ax[len(ax)-1]] - 1)
	}
	for _, x := range n {
		if x < 1 {
			return nil, nil, &FFTError{Op: op, Reason: fmt.Sprintf("Invalid number of FFT data points (%d) specified.", x)}
		}
	}
	return ax, n, nil
}

// FFTOutShape returns the shape of FFTN's result for resolved axes and
// lengths (FFTShape).
func FFTOutShape(kind FFTKind, shape, axes, n []int) []int {
	out := slices.Clone(shape)
	for i, a := range axes {
		out[a] = n[i]
	}
	if (kind == FFTReal || kind == FFTHermInv) && len(axes) > 0 {
		last := axes[len(axes)-1]
		out[last] = n[len(n)-1]/2 + 1
	}
	return out
}

// FFTOutType is the result dtype of a transform: float64 for the inverse
// real and the Hermitian transforms, complex128 otherwise.
func FFTOutType(kind FFTKind) DType {
	if kind == FFTRealInv || kind == FFTHerm {
		return Float64
	}
	return Complex128
}

// FFTN is numpy.fft's n-d transforms (fftn, ifftn, rfftn, irfftn; fft,
// ifft, rfft, irfft, hfft and ihfft with one axis, fft2 and friends with
// two) with numpy's s, axes and norm ("backward" or "", "ortho",
// "forward"). Axes are transformed as numpy does: the complex ones in
// reverse order; rfftn's real transform first along the last axis;
// irfftn's last. A complex operand of a real transform loses its
// imaginary part (numpy's ComplexWarning).
func FFTN(a *Array, kind FFTKind, s, axes []int, norm string) (*Array, error) {
	op := kind.String()
	if err := checkArrays(op, a); err != nil {
		return nil, err
	}
	if norm != "" && norm != "backward" && norm != "ortho" && norm != "forward" {
		return nil, &FFTError{Op: op, Reason: fmt.Sprintf("Invalid norm value %s; should be \"backward\",\"ortho\" or \"forward\".", norm)}
	}
	ax, n, err := FFTShape(kind, a.shape, s, axes)
	if err != nil {
		return nil, err
	}
	if (kind == FFTHerm || kind == FFTHermInv) && len(ax) != 1 {
		return nil, &FFTError{Op: op, Reason: "the Hermitian transforms take one axis"}
	}
	last := len(ax) - 1
	switch kind {
	case FFTForward, FFTInverse:
		x := a
		for i := last; i >= 0; i-- {
			if x, err = fftAxis(x, kind, ax[i], n[i], norm); err != nil {
				return nil, err
			}
		}
		if len(ax) == 0 {
			return a.AsType(Complex128)
		}
		return x, nil
	case FFTReal:
		x, err := fftAxis(a, FFTReal, ax[last], n[last], norm)
		for i := 0; i < last && err == nil; i++ {
			x, err = fftAxis(x, FFTForward, ax[i], n[i], norm)
		}
		return x, err
	case FFTRealInv:
		x := a
		for i := 0; i < last; i++ {
			if x, err = fftAxis(x, FFTInverse, ax[i], n[i], norm); err != nil {
				return nil, err
			}
		}
		return fftAxis(x, FFTRealInv, ax[last], n[last], norm)
	case FFTHerm:
		c, err := a.AsType(Complex128)
		if err != nil {
			return nil, err
		}
		return fftAxis(conjugate(c), FFTRealInv, ax[0], n[0], swapNorm(norm))
	case FFTHermInv:
		x, err := fftAxis(a, FFTReal, ax[0], n[0], swapNorm(norm))
		if err != nil {
			return nil, err
		}
		return conjugate(x), nil
	}
	return nil, &FFTError{Op: op, Reason: "unknown transform"}
}

func swapNorm(norm string) string {
	switch norm {
	case "", "backward":
		return "forward"
	case "forward":
		return "backward"
	}
	return norm
}

// fftScale is the factor a transform of logical length n multiplies by.
func fftScale(inverse bool, n int, norm string) float64 {
	switch {
	case norm == "ortho":
		return 1 / math.Sqrt(float64(n))
	case norm == "forward" && !inverse, (norm == "" || norm == "backward") && inverse:
		return 1 / float64(n)
	}
	return 1
}

// fftAxis transforms every lane of a along axis: FFTForward, FFTInverse
// (complex in and out), FFTReal (real in, n/2+1 out) or FFTRealInv (the
// first n/2+1 of a complex lane in, n real out).
func fftAxis(a *Array, kind FFTKind, axis, n int, norm string) (*Array, error) {
	nd := a.NDim()
	perm := make([]int, 0, nd)
	for i := range nd {
		if i != axis {
			perm = append(perm, i)
		}
	}
	perm = append(perm, axis)
	inT := Complex128
	if kind == FFTReal {
		inT = Float64
	}
	x, err := a.AsType(inT)
	if err != nil {
		return nil, err
	}
	if x, err = x.Transpose(perm...); err != nil {
		return nil, err
	}
	x = x.Contiguous()
	if x.Size() == 0 {
		x = alloc(inT, x.shape) // an empty view may have an offset past its data
	}
	m := a.shape[axis]
	outLen := n
	if kind == FFTReal {
		outLen = n/2 + 1
	}
	lanes := 1
	for _, d := range x.shape[:nd-1] {
		lanes *= d
	}
	oshape := append(slices.Clone(x.shape[:nd-1]), outLen)
	out := alloc(FFTOutType(kind), oshape)
	if kind == FFTRealInv {
		out = alloc(Float64, oshape)
	}
	scale := fftScale(kind == FFTInverse || kind == FFTRealInv, n, norm)
	take := min(m, n)
	switch kind {
	case FFTForward, FFTInverse:
		src := x.data.([]complex128)[x.offset:]
		dst := out.data.([]complex128)
		t := fourier.NewCmplxFFT(n)
		buf := make([]complex128, n)
		for l := range lanes {
			clear(buf)
			copy(buf, src[l*m:l*m+take])
			o := dst[l*n : (l+1)*n]
			if kind == FFTForward {
				t.Coefficients(o, buf)
			} else {
				t.Sequence(o, buf)
			}
			scaleC(o, scale)
		}
	case FFTReal:
		src := x.data.([]float64)[x.offset:]
		dst := out.data.([]complex128)
		t := fourier.NewFFT(n)
		buf := make([]float64, n)
		for l := range lanes {
			clear(buf)
			copy(buf, src[l*m:l*m+take])
			o := dst[l*outLen : (l+1)*outLen]
			t.Coefficients(o, buf)
			scaleC(o, scale)
		}
	case FFTRealInv:
		src := x.data.([]complex128)[x.offset:]
		dst := out.data.([]float64)
		t := fourier.NewFFT(n)
		h := n/2 + 1
		buf := make([]complex128, h)
		hk := min(m, h)
		for l := range lanes {
			clear(buf)
			copy(buf, src[l*m:l*m+hk])
			o := dst[l*n : (l+1)*n]
			t.Sequence(o, buf)
			for i := range o {
				o[i] *= scale
			}
		}
	}
	inv := make([]int, nd)
	for i, p := range perm {
		inv[p] = i
	}
	r, err := out.Transpose(inv...)
	if err != nil {
		return nil, err
	}
	return r.Contiguous(), nil
}

func scaleC(o []complex128, s float64) {
	if s == 1 {
		return
	}
	for i := range o {
		o[i] = complex(real(o[i])*s, imag(o[i])*s)
	}
}

// FFTFreq is numpy.fft.fftfreq(n, d): the sample frequencies [0, 1, …,
// n/2-1, -n/2, …, -1] / (d·n) (n odd: up to (n-1)/2).
func FFTFreq(n int, d float64) []float64 {
	out := make([]float64, n)
	v := 1 / (float64(n) * d)
	for i := range n {
		k := i
		if i >= (n+1)/2 {
			k = i - n
		}
		out[i] = float64(k) * v
	}
	return out
}

// RFFTFreq is numpy.fft.rfftfreq(n, d): [0, 1, …, n/2] / (d·n).
func RFFTFreq(n int, d float64) []float64 {
	out := make([]float64, n/2+1)
	v := 1 / (float64(n) * d)
	for i := range out {
		out[i] = float64(i) * v
	}
	return out
}

// conjugate returns the complex conjugate of a complex128 array (a copy).
func conjugate(a *Array) *Array {
	c := a.Contiguous()
	if c == a {
		c = a.Copy()
	}
	v := c.data.([]complex128)[c.offset : c.offset+c.Size()]
	for i, x := range v {
		v[i] = complex(real(x), -imag(x))
	}
	return c
}
