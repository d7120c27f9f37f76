package nd

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// readNPY is a minimal .npy reader for the goldens (format 1.0 and 2.0,
// little-endian). The real reader is nd/npy, which imports nd.
func readNPY(b []byte) (*Array, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, errors.New("not an npy file")
	}
	var hlen, start int
	switch b[6] {
	case 1:
		hlen, start = int(b[8])|int(b[9])<<8, 10
	default:
		hlen, start = int(b[8])|int(b[9])<<8|int(b[10])<<16|int(b[11])<<24, 12
	}
	h := string(b[start : start+hlen])
	descr := regexp.MustCompile(`'descr': '([^']*)'`).FindStringSubmatch(h)
	shp := regexp.MustCompile(`'shape': \(([^)]*)\)`).FindStringSubmatch(h)
	if descr == nil || shp == nil {
		return nil, fmt.Errorf("bad header %q", h)
	}
	d, big, err := ParseDType(descr[1])
	if err != nil {
		return nil, err
	}
	var shape []int
	for _, f := range strings.Split(shp[1], ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, err
			}
			shape = append(shape, n)
		}
	}
	return FromBytes(d, shape, b[start+hlen:], strings.Contains(h, "'fortran_order': True"), big)
}

type golden struct {
	in  map[string]*Array
	out map[string]*Array // "op.x.y" -> result
	err map[string]bool
}

func loadGolden(t *testing.T) *golden {
	t.Helper()
	zr, err := zip.OpenReader("testdata/ew_golden.npz")
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	g := &golden{in: map[string]*Array{}, out: map[string]*Array{}, err: map[string]bool{}}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(f.Name, ".npy")
		kind, key, _ := strings.Cut(name, ".")
		if kind == "err" {
			g.err[key] = true
			continue
		}
		a, err := readNPY(b)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		switch kind {
		case "in":
			g.in[key] = a
		case "out":
			g.out[key] = a
		}
	}
	return g
}

// ulps returns the distance in units in the last place between x and y at
// the precision of bits (32 or 64); NaNs are 0 apart from each other.
func ulps(x, y float64, bits int) float64 {
	if x == y || (x != x && y != y) {
		return 0
	}
	if x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	m := max(math.Abs(x), math.Abs(y))
	var ulp float64
	if bits == 32 {
		m32 := float32(m)
		ulp = float64(math.Nextafter32(m32, float32(math.Inf(1))) - m32)
		ulp = max(ulp, float64(math.SmallestNonzeroFloat32))
	} else {
		ulp = math.Nextafter(m, math.Inf(1)) - m
		ulp = max(ulp, math.SmallestNonzeroFloat64)
	}
	return math.Abs(x-y) / ulp
}

// sameElements compares got with want element by element: exactly for
// integers and bools, within tol ulps for floats (NaN equals NaN), and for
// complex numbers within tol ulps of the larger magnitude per part.
func sameElements(got, want *Array, tol float64) error {
	if got.DType() != want.DType() {
		return fmt.Errorf("dtype %s, want %s", got.DType(), want.DType())
	}
	if !slices.Equal(got.Shape(), want.Shape()) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), want.Shape())
	}
	gc, wc := got.Copy(), want.Copy()
	bits := 64
	if d := got.DType(); d == Float32 || d == Complex64 {
		bits = 32
	}
	n := got.Size()
	for i := range n {
		gv := indexFlat(gc, i)
		wv := indexFlat(wc, i)
		switch w := wv.(type) {
		case float32, float64:
			gf, wf := toF64(gv), toF64(w)
			if u := ulps(gf, wf, bits); u > tol {
				return fmt.Errorf("element %d = %v, want %v (%g ulp)", i, gf, wf, u)
			}
		case complex64, complex128:
			gz, wz := toC128(gv), toC128(w)
			if !cplxClose(gz, wz, tol, bits) {
				return fmt.Errorf("element %d = %v, want %v", i, gz, wz)
			}
		default:
			if gv != wv {
				return fmt.Errorf("element %d = %v, want %v", i, gv, wv)
			}
		}
	}
	return nil
}

func cplxClose(g, w complex128, tol float64, bits int) bool {
	if g == w {
		return true
	}
	gr, gi, wr, wi := real(g), imag(g), real(w), imag(w)
	partOK := func(x, y float64) bool {
		if (x != x) && (y != y) || x == y {
			return true
		}
		if x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) {
			return false
		}
		// Relative to the magnitude of the whole number: a part near zero
		// carries the rounding of the larger one.
		m := max(math.Hypot(wr, wi), math.Abs(y))
		eps := 0x1p-52
		if bits == 32 {
			eps = 0x1p-23
		}
		return math.Abs(x-y) <= tol*eps*m
	}
	return partOK(gr, wr) && partOK(gi, wi)
}

func indexFlat(a *Array, i int) any {
	switch d := a.Data().(type) {
	case []bool:
		return d[i]
	case []int8:
		return d[i]
	case []int16:
		return d[i]
	case []int32:
		return d[i]
	case []int64:
		return d[i]
	case []uint8:
		return d[i]
	case []uint16:
		return d[i]
	case []uint32:
		return d[i]
	case []uint64:
		return d[i]
	case []float32:
		return d[i]
	case []float64:
		return d[i]
	case []complex64:
		return d[i]
	case []complex128:
		return d[i]
	}
	return nil
}

func toF64(v any) float64 {
	if f, ok := v.(float32); ok {
		return float64(f)
	}
	return v.(float64)
}

func toC128(v any) complex128 {
	if c, ok := v.(complex64); ok {
		return complex128(c)
	}
	return v.(complex128)
}

// tolerance returns the ulps allowed for op: exact for arithmetic that
// IEEE 754 rounds correctly, a few ulps for libm functions, whose numpy
// (glibc) and Go implementations round differently.
func tolerance(op string, d DType, cplx bool) float64 {
	if op == "absolute" && cplx {
		return 1 // hypot: numpy's float32 hypotf against Go's float64 Hypot, rounded
	}
	if op == "power" {
		// Go's math.Pow multiplies out integral exponents (a few ulps); a
		// complex power's error grows with |b·log a|, which reaches ~60 in
		// the goldens.
		if d.IsComplex() {
			return 64
		}
		return 16 // 1e30 ** -2.5 is 9 ulps off in Go
	}
	switch op {
	case "add", "subtract", "multiply", "floor_divide", "remainder", "minimum", "maximum",
		"negative", "absolute", "square", "sqrt":
		if d.IsComplex() && (op == "multiply" || op == "sqrt" || op == "square" || op == "absolute") {
			return 4
		}
		return 0
	case "divide":
		if d.IsComplex() {
			return 4
		}
		return 0
	}
	if d.IsComplex() {
		return 16
	}
	return 2
}

// goldenKeys returns the golden keys in a stable order.
func goldenKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestElementwiseGolden(t *testing.T) {
	g := loadGolden(t)
	if len(g.out) < 500 {
		t.Fatalf("only %d golden outputs", len(g.out))
	}
	for _, key := range goldenKeys(g.out) {
		want := g.out[key]
		parts := strings.Split(key, ".")
		t.Run(key, func(t *testing.T) {
			args := make([]*Array, len(parts)-1)
			for i, n := range parts[1:] {
				args[i] = g.in[n]
				if args[i] == nil {
					t.Fatalf("no input %q", n)
				}
			}
			var got *Array
			var err error
			switch {
			case parts[0] == "where":
				got, err = Where(args[0], args[1], args[2])
			case len(args) == 1:
				op, perr := ParseUnaryOp(parts[0])
				if perr != nil {
					t.Fatal(perr)
				}
				got, err = Unary(op, args[0])
			default:
				op, perr := ParseBinaryOp(parts[0])
				if perr != nil {
					t.Fatal(perr)
				}
				got, err = Binary(op, args[0], args[1])
			}
			if err != nil {
				t.Fatalf("error %v; numpy gives %s %v", err, want.DType(), want.Shape())
			}
			cplx := false
			for _, a := range args {
				cplx = cplx || a.DType().IsComplex()
			}
			got, want = dropIllConditioned(parts[0], args, got, want)
			if err := sameElements(got, want, tolerance(parts[0], want.DType(), cplx)); err != nil {
				t.Errorf("%v\n got %v\nwant %v", err, got.Copy().Data(), want.Data())
			}
		})
	}
}

func TestElementwiseGoldenErrors(t *testing.T) {
	g := loadGolden(t)
	for _, key := range goldenKeys(g.err) {
		parts := strings.Split(key, ".")
		t.Run(key, func(t *testing.T) {
			args := make([]*Array, len(parts)-1)
			for i, n := range parts[1:] {
				args[i] = g.in[n]
			}
			var err error
			switch {
			case parts[0] == "where":
				_, err = Where(args[0], args[1], args[2])
			case len(args) == 1:
				op, _ := ParseUnaryOp(parts[0])
				_, err = Unary(op, args[0])
			default:
				op, _ := ParseBinaryOp(parts[0])
				_, err = Binary(op, args[0], args[1])
			}
			if err == nil {
				t.Fatalf("no error; numpy raises")
			}
			var te *TypeError
			var se *ShapeError
			if !errors.As(err, &te) && !errors.As(err, &se) && !errors.Is(err, ErrNegativeIntPower) {
				t.Errorf("error %T %v; want *TypeError, *ShapeError or ErrNegativeIntPower", err, err)
			}
			if !strings.Contains(err.Error(), parts[0]) {
				t.Errorf("error %q does not name the op %s", err, parts[0])
			}
		})
	}
}

// dropIllConditioned removes the elements whose numpy result tessera does
// not promise to reproduce, each for a stated reason, and returns got and
// want as 1-d arrays of the others (or unchanged when there is none):
//   - sin, cos, tan of |x| ≥ 2^29: Go's and glibc's argument reductions
//     differ in the last digits (tens of ulps);
//   - complex power with a non-finite operand or an exponent of magnitude
//     ≥ 1e9: numpy's special values and its float32 arithmetic differ from
//     Go's cmplx.Pow on these ill-conditioned inputs.
func dropIllConditioned(op string, args []*Array, got, want *Array) (*Array, *Array) {
	var drop func(i int) bool
	switch {
	case (op == "sin" || op == "cos" || op == "tan") && !args[0].DType().IsComplex():
		x, _ := args[0].AsType(Float64)
		xs, _ := Values[float64](x.Copy())
		drop = func(i int) bool { return math.Abs(xs[i]) >= 1<<29 }
	case op == "power" && args[0].DType().IsComplex() && slices.Equal(args[0].Shape(), args[1].Shape()):
		x, _ := Values[complex128](must(args[0].AsType(Complex128)).Copy())
		y, _ := Values[complex128](must(args[1].AsType(Complex128)).Copy())
		bad := func(z complex128) bool { return cmplx.IsInf(z) || cmplx.IsNaN(z) }
		drop = func(i int) bool { return bad(x[i]) || bad(y[i]) || cmplx.Abs(y[i]) >= 1e9 }
	default:
		return got, want
	}
	var keep []int
	for i := range want.Size() {
		if !drop(i) {
			keep = append(keep, i)
		}
	}
	pick := func(a *Array) *Array {
		flat, _ := a.Copy().Reshape(-1)
		out := alloc(a.DType(), []int{len(keep)})
		for j, i := range keep {
			v, _ := flat.At(i)
			_ = setFromAny(out.data, j, v)
		}
		return out
	}
	return pick(got), pick(want)
}

func must(a *Array, err error) *Array {
	if err != nil {
		panic(err)
	}
	return a
}
