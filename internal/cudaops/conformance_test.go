package cudaops

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// The conformance suite: each case computes one result twice, on the CPU
// with nd (the path callers take without CUDA) and on the device, and the
// two must agree within the case's tolerance. It runs in every build: in a
// `cuda` build on a GPU machine it compares; in the default build the
// device half must return ErrNoCUDA, and the CPU half must still work.
//
// Tolerances (see doc.go, Accuracy): elementwise exact; sums within
// rtol·Σ|terms| per element, rtol 1e-5 for float32 (1e-4 through cuBLAS),
// 1e-12 for float64; max and min exact.

type confCase struct {
	name string
	cpu  func() (*nd.Array, error)
	dev  func(d *Device) (*nd.Array, error)
	// scale, when non-nil, gives Σ|terms| per result element: the
	// comparison is |got-want| ≤ rtol·scale (+ one ulp of want); nil means
	// exact (NaN equal to NaN).
	scale func() (*nd.Array, error)
	rtol  float64
}

// randFrames is a seeded random stack of the given shape and dtype, values in
// [-1, 2) so that sums do not cancel to nothing.
func randFrames(t testing.TB, dt nd.DType, seed uint64, shape ...int) *nd.Array {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	n, _ := nd.SizeOf(shape)
	v := make([]float64, n)
	for i := range v {
		v[i] = 3*r.Float64() - 1
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(dt); err != nil {
		t.Fatal(err)
	}
	return a
}

// must is for building fixtures: an error there is a bug of the test.
func must(a *nd.Array, err error) *nd.Array {
	if err != nil {
		panic(err)
	}
	return a
}

func abs(a *nd.Array) (*nd.Array, error) { return nd.Unary(nd.Abs, a) }

func rtolFor(dt nd.DType) float64 {
	if dt == nd.Float64 {
		return 1e-12
	}
	return 1e-5
}

// onDevice uploads the inputs, runs f, downloads out (uploaded from init,
// or allocated zeroed with outShape), freeing everything.
func onDevice(d *Device, dt nd.DType, outShape []int, init *nd.Array, inputs []*nd.Array, f func(out *Array, in []*Array) error) (*nd.Array, error) {
	var arrs []*Array
	defer func() {
		for _, a := range arrs {
			a.Free()
		}
	}()
	for _, x := range inputs {
		a, err := d.Upload(x)
		if err != nil {
			return nil, err
		}
		arrs = append(arrs, a)
	}
	var out *Array
	var err error
	if init != nil {
		out, err = d.Upload(init)
	} else {
		out, err = d.Alloc(dt, outShape...)
	}
	if err != nil {
		return nil, err
	}
	arrs = append(arrs, out)
	if err := f(out, arrs[:len(inputs)]); err != nil {
		return nil, err
	}
	return out.Download()
}

func navAxes(ndim, sigDims int) []int {
	var ax []int
	for i := range ndim - sigDims {
		ax = append(ax, i)
	}
	return ax
}

func sigAxes(ndim, sigDims int) []int {
	var ax []int
	for i := ndim - sigDims; i < ndim; i++ {
		ax = append(ax, i)
	}
	return ax
}

func confCases(t testing.TB) []confCase {
	var cases []confCase
	shapes := [][]int{{3, 5, 7, 9}, {1, 1, 1, 1}, {2, 3, 64, 65}, {17, 300}, {4, 4, 1, 1}}
	for _, dt := range []nd.DType{nd.Float32, nd.Float64} {
		for si, shape := range shapes {
			sigDims := 2
			if len(shape) == 2 {
				sigDims = 1
			}
			nav, sig := shape[:len(shape)-sigDims], shape[len(shape)-sigDims:]
			x := randFrames(t, dt, uint64(si), shape...)
			y := randFrames(t, dt, uint64(si+100), shape...)
			tag := fmt.Sprintf("%v/%s", dt, nd.FormatShape(shape))

			// Elementwise, exact.
			for _, op := range []nd.BinaryOp{nd.Add, nd.Sub, nd.Mul, nd.Div} {
				cases = append(cases, confCase{
					name: fmt.Sprintf("Binary/%v/%s", op, tag),
					cpu:  func() (*nd.Array, error) { return nd.Binary(op, x, y) },
					dev: func(d *Device) (*nd.Array, error) {
						return onDevice(d, dt, shape, nil, []*nd.Array{x, y}, func(o *Array, in []*Array) error { return Binary(op, o, in[0], in[1]) })
					},
				})
				const s = 0.37
				sa := must(nd.ScalarOf(s))
				sa = must(sa.AsType(dt))
				cases = append(cases, confCase{
					name: fmt.Sprintf("BinaryScalar/%v/%s", op, tag),
					cpu:  func() (*nd.Array, error) { return nd.Binary(op, x, sa) },
					dev: func(d *Device) (*nd.Array, error) {
						return onDevice(d, dt, shape, nil, []*nd.Array{x}, func(o *Array, in []*Array) error { return BinaryScalar(op, o, in[0], s) })
					},
				}, confCase{
					name: fmt.Sprintf("ScalarBinary/%v/%s", op, tag),
					cpu:  func() (*nd.Array, error) { return nd.Binary(op, sa, x) },
					dev: func(d *Device) (*nd.Array, error) {
						return onDevice(d, dt, shape, nil, []*nd.Array{x}, func(o *Array, in []*Array) error { return ScalarBinary(op, o, s, in[0]) })
					},
				})
			}

			// Sums over nav and over sig, fresh and accumulating.
			type sumOp struct {
				name string
				axes []int
				out  []int
				f    func(dst, f *Array, sigDims int, acc bool) error
			}
			for _, so := range []sumOp{
				{"SumOverNav", navAxes(len(shape), sigDims), sig, SumOverNav},
				{"SumOverSig", sigAxes(len(shape), sigDims), nav, SumOverSig},
			} {
				init := randFrames(t, dt, 999, so.out...)
				for _, acc := range []bool{false, true} {
					cases = append(cases, confCase{
						name: fmt.Sprintf("%s/acc=%v/%s", so.name, acc, tag),
						cpu: func() (*nd.Array, error) {
							s, err := nd.Reduce(nd.Sum, x, so.axes, false)
							if err != nil || !acc {
								return s, err
							}
							return nd.Binary(nd.Add, init, s)
						},
						dev: func(d *Device) (*nd.Array, error) {
							var in0 *nd.Array
							if acc {
								in0 = init
							}
							return onDevice(d, dt, so.out, in0, []*nd.Array{x}, func(o *Array, in []*Array) error { return so.f(o, in[0], sigDims, acc) })
						},
						scale: func() (*nd.Array, error) {
							ax, err := abs(x)
							if err != nil {
								return nil, err
							}
							s, err := nd.Reduce(nd.Sum, ax, so.axes, false)
							if err != nil || !acc {
								return s, err
							}
							ai, err := abs(init)
							if err != nil {
								return nil, err
							}
							return nd.Binary(nd.Add, ai, s)
						},
						rtol: rtolFor(dt),
					})
				}
			}

			// Mask products: k around the kernel's group of 8.
			for _, k := range []int{1, 8, 9} {
				masks := randFrames(t, dt, uint64(50+k), append([]int{k}, sig...)...)
				fAxes := sigAxes(len(shape), sigDims)
				mAxes := sigAxes(sigDims+1, sigDims)
				outShape := append(append([]int{}, nav...), k)
				for _, kern := range []bool{false, true} {
					name, fn := "MaskDot", MaskDot
					rtol := rtolFor(dt)
					if kern {
						name, fn = "MaskDotKernel", MaskDotKernel
					} else if dt == nd.Float32 {
						rtol = 1e-4 // cuBLAS accumulates in float32
					}
					cases = append(cases, confCase{
						name: fmt.Sprintf("%s/k=%d/%s", name, k, tag),
						cpu:  func() (*nd.Array, error) { return nd.Tensordot(x, masks, fAxes, mAxes) },
						dev: func(d *Device) (*nd.Array, error) {
							return onDevice(d, dt, outShape, nil, []*nd.Array{x, masks}, func(o *Array, in []*Array) error { return fn(o, in[0], in[1], sigDims, false) })
						},
						scale: func() (*nd.Array, error) {
							ax, err := abs(x)
							if err != nil {
								return nil, err
							}
							am, err := abs(masks)
							if err != nil {
								return nil, err
							}
							return nd.Tensordot(ax, am, fAxes, mAxes)
						},
						rtol: rtol,
					})
				}
			}

			// Whole-block reductions.
			for _, op := range []nd.ReduceOp{nd.Sum, nd.Max, nd.Min} {
				c := confCase{
					name: fmt.Sprintf("Reduce/%v/%s", op, tag),
					cpu: func() (*nd.Array, error) {
						r, err := nd.Reduce(op, x, nil, false)
						if err != nil {
							return nil, err
						}
						return r.AsType(nd.Float64)
					},
					dev: func(d *Device) (*nd.Array, error) {
						a, err := d.Upload(x)
						if err != nil {
							return nil, err
						}
						defer a.Free()
						v, err := Reduce(op, a)
						if err != nil {
							return nil, err
						}
						return nd.Scalar(v), nil
					},
				}
				if op == nd.Sum {
					c.scale = func() (*nd.Array, error) {
						ax, err := abs(x)
						if err != nil {
							return nil, err
						}
						s, err := nd.Reduce(nd.Sum, ax, nil, false)
						if err != nil {
							return nil, err
						}
						return s.AsType(nd.Float64)
					}
					c.rtol = rtolFor(dt)
				}
				cases = append(cases, c)
			}
		}

		// NaN propagates through max and min, as numpy's.
		nan := must(nd.FromSlice([]float64{1, math.NaN(), 3, -2}, 4))
		nan = must(nan.AsType(dt))
		for _, op := range []nd.ReduceOp{nd.Max, nd.Min, nd.Sum} {
			cases = append(cases, confCase{
				name: fmt.Sprintf("Reduce/%v/%v/NaN", op, dt),
				cpu: func() (*nd.Array, error) {
					r, err := nd.Reduce(op, nan, nil, false)
					if err != nil {
						return nil, err
					}
					return r.AsType(nd.Float64)
				},
				dev: func(d *Device) (*nd.Array, error) {
					a, err := d.Upload(nan)
					if err != nil {
						return nil, err
					}
					defer a.Free()
					v, err := Reduce(op, a)
					return nd.Scalar(v), err
				},
			})
		}
	}
	return cases
}

// compare is an error describing the first element where got and want
// differ by more than the tolerance.
func compare(got, want, scale *nd.Array, rtol float64) error {
	if got.DType() != want.DType() && want.DType() != nd.Float64 {
		return fmt.Errorf("dtype %v, want %v", got.DType(), want.DType())
	}
	gs, ws := got.Shape(), want.Shape()
	if fmt.Sprint(gs) != fmt.Sprint(ws) {
		return fmt.Errorf("shape %v, want %v", gs, ws)
	}
	g64 := must64(got)
	w64 := must64(want)
	var s64 []float64
	if scale != nil {
		s64 = must64(scale)
	}
	ulp := 0x1p-52
	if want.DType() == nd.Float32 {
		ulp = 0x1p-23
	}
	for i := range w64 {
		g, w := g64[i], w64[i]
		if math.IsNaN(w) || math.IsNaN(g) {
			if math.IsNaN(w) != math.IsNaN(g) {
				return fmt.Errorf("element %d: got %v, want %v", i, g, w)
			}
			continue
		}
		tol := 0.0
		if s64 != nil {
			tol = rtol*s64[i] + ulp*math.Abs(w)
		}
		if math.Abs(g-w) > tol {
			return fmt.Errorf("element %d: got %v, want %v (|diff| %g > tol %g)", i, g, w, math.Abs(g-w), tol)
		}
	}
	return nil
}

func must64(a *nd.Array) []float64 {
	b, err := a.AsType(nd.Float64)
	if err != nil {
		panic(err)
	}
	v, err := nd.Values[float64](b)
	if err != nil {
		panic(err)
	}
	return v
}

func TestConformance(t *testing.T) {
	d, err := Open(0)
	noCUDA := errors.Is(err, ErrNoCUDA)
	if err != nil && !noCUDA {
		t.Fatalf("Open(0): %v", err)
	}
	if d != nil {
		defer d.Close()
		t.Logf("device %d: %s, cuBLAS %v", d.Ordinal(), d.Name(), HaveCUBLAS())
	}
	for _, c := range confCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.cpu()
			if err != nil {
				t.Fatalf("CPU path: %v", err)
			}
			var scale *nd.Array
			if c.scale != nil {
				if scale, err = c.scale(); err != nil {
					t.Fatalf("scale: %v", err)
				}
			}
			got, err := c.dev(d)
			if noCUDA {
				if !errors.Is(err, ErrNoCUDA) {
					t.Fatalf("device path without CUDA: err = %v, want ErrNoCUDA", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("device path: %v", err)
			}
			if err := compare(got, want, scale, c.rtol); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCompare checks the comparison itself, so that a broken one cannot
// pass the device silently.
func TestCompare(t *testing.T) {
	f := func(v ...float64) *nd.Array { return must(nd.FromSlice(v, len(v))) }
	tests := []struct {
		name             string
		got, want, scale *nd.Array
		rtol             float64
		ok               bool
	}{
		{"exact", f(1, 2), f(1, 2), nil, 0, true},
		{"exact-differs", f(1, 2), f(1, 2.0000001), nil, 0, false},
		{"nan-equal", f(math.NaN()), f(math.NaN()), nil, 0, true},
		{"nan-vs-number", f(1), f(math.NaN()), nil, 0, false},
		{"within", f(100.001), f(100), f(200), 1e-5, true},
		{"outside", f(100.01), f(100), f(200), 1e-5, false},
		{"shape", f(1, 2), f(1), nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := compare(tt.got, tt.want, tt.scale, tt.rtol)
			if (err == nil) != tt.ok {
				t.Errorf("compare = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
