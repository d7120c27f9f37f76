package chunkarray

import (
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// CovOpts are numpy.cov's options.
type CovOpts struct {
	// Y holds more variables (numpy's y), observed as m's are; nil: none.
	Y *Array
	// ColVars says that each column is a variable and each row an
	// observation (numpy's rowvar=False); by default each row is a
	// variable.
	ColVars bool
	// Bias normalizes by N instead of N-1 (numpy's bias=True).
	Bias bool
	// Ddof, when not nil, overrides Bias (numpy's ddof).
	Ddof *int
}

// Cov is numpy.cov and dask.array.cov: the covariance matrix of the
// variables of m (1-d: one variable; 2-d: rows, or columns with ColVars),
// in numpy's dtype (the result type of the inputs and float64: float64,
// or complex128), squeezed as numpy's (one variable gives a 0-d result). With N - ddof ≤ 0 the
// entries are multiplied by 1/0 (inf or NaN), as numpy's, which also
// warns. Complex variables give complex128 (m · conj(m)ᵀ).
func Cov(m *Array, o CovOpts) *Array {
	c, _, _ := cov("cov", m, o)
	if c.Err() == nil && c.Size() > 0 {
		return c.Squeeze()
	}
	return c
}

// cov returns the covariance matrix (unsqueezed, 2-d), the centred
// variables and the factor 1/(N - ddof).
func cov(name string, m *Array, o CovOpts) (*Array, *Array, float64) {
	if err := m.Err(); err != nil {
		return errArray(err), nil, 0
	}
	vars := func(x *Array) *Array {
		if x.NDim() > 2 {
			return errorf(name, [][]int{x.shape}, "more than 2 dimensions (numpy's ValueError)")
		}
		if x.dtype.IsComplex() && name == "corrcoef" {
			return errorf(name, [][]int{x.shape}, "complex dtype %s is not supported (numpy clips the real and imaginary parts apart)", x.dtype)
		}
		x = x.AsType(nd.ResultType(x.dtype, nd.Float64))
		if x.NDim() < 2 {
			x = x.Reshape(append(ones(2-x.NDim()), x.shape...)...)
		}
		if o.ColVars && x.Shape()[0] != 1 {
			x = x.T()
		}
		return x
	}
	x := vars(m)
	if o.Y != nil {
		y := vars(o.Y)
		if err := y.Err(); err != nil {
			return errArray(err), nil, 0
		}
		x = Concatenate([]*Array{x, y}, 0)
	}
	if err := x.Err(); err != nil {
		return errArray(err), nil, 0
	}
	if x.Shape()[0] == 0 {
		return Zeros([]int{0, 0}, x.dtype, -1), nil, 0
	}
	ddof := 1
	if o.Bias {
		ddof = 0
	}
	if o.Ddof != nil {
		ddof = *o.Ddof
	}
	fact := float64(x.Shape()[1] - ddof)
	if fact < 0 {
		fact = 0
	}
	inv := 1 / fact // +Inf for no degrees of freedom, as numpy's true_divide(1, 0)
	xc := x.Sub(x.Reduce(nd.Mean, []int{1}, ReduceOpts{Keepdims: true}))
	xt := xc.T()
	if xc.dtype.IsComplex() {
		xt = MapBlocks(blockConj, BlockOpts{}, xt)
	}
	return Dot(xc, xt).Mul(inv), xc, inv
}

const blockConj = "chunkarray.conj"

func init() {
	mustRegister(RegisterBlockFunc(blockConj, func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		c := b[0].Copy()
		switch v := c.Data().(type) {
		case []complex128:
			for i, z := range v {
				v[i] = complex(real(z), -imag(z))
			}
		case []complex64:
			for i, z := range v {
				v[i] = complex(real(z), -imag(z))
			}
		default:
			return nil, fmt.Errorf("conj of %s", c.DType())
		}
		return c, nil
	}))
}

// Corrcoef is numpy.corrcoef and dask.array.corrcoef: Cov normalized by
// the standard deviations, clipped to [-1, 1]; one variable gives c/c (1,
// or NaN), 0-d. (numpy's bias and ddof have no effect and are ignored.)
func Corrcoef(m *Array, o CovOpts) *Array {
	o.Bias, o.Ddof = false, nil
	c, xc, inv := cov("corrcoef", m, o)
	if err := c.Err(); err != nil || xc == nil {
		return c
	}
	if c.Shape()[0] == 1 {
		c = c.Squeeze()
		return c.Div(c)
	}
	sd := xc.Mul(xc).Reduce(nd.Sum, []int{1}, ReduceOpts{}).Mul(inv).Sqrt()
	n := sd.Shape()[0]
	r := c.Div(sd.Reshape(n, 1)).Div(sd.Reshape(1, n))
	return Minimum(Maximum(r, -1), 1)
}
