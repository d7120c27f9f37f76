package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Audit of the exported entry points with bad input: each row either
// expects an error naming the operation (never a panic, never a silently
// wrong or partial result) or the result numpy 1.24 gives (written in the
// row; checked with /usr/bin/python3 when the row was written).

// auditRun builds and computes, turning a panic into a test failure.
func auditRun(t *testing.T, build func() *Array) (res *nd.Array, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	a := build()
	if err := a.Err(); err != nil {
		return nil, err
	}
	return a.Compute(context.Background())
}

// wantAuditErr checks that err is non-nil, typed (*Error or *IndexError)
// and names op.
func wantAuditErr(t *testing.T, err error, op string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one naming %q", op)
	}
	var e *Error
	var ie *IndexError
	if !errors.As(err, &e) && !errors.As(err, &ie) {
		t.Errorf("error %v (%T): want a *chunkarray.Error or *IndexError", err, err)
	}
	if !strings.Contains(err.Error(), op) {
		t.Errorf("error %q does not name %q", err, op)
	}
}

func TestAuditBadInputErrors(t *testing.T) {
	var nilA *Array
	var nilND *nd.Array
	x := Ones([]int{4, 6}, nd.Float64, 2)
	huge := []int{1 << 30, 1 << 30}
	cases := []struct {
		name  string
		build func() *Array
		op    string // substring the error must contain
	}{
		{"nil receiver Add", func() *Array { return nilA.Add(1) }, "nil Array"},
		{"nil operand", func() *Array { return x.Add(nilA) }, "nil Array"},
		{"nil nd operand", func() *Array { return x.Add(nilND) }, "nil nd.Array"},
		{"string operand", func() *Array { return x.Add("a") }, "add"},
		{"zero Array compute", func() *Array { return &Array{} }, "zero Array"},
		{"zero Array operand", func() *Array { return x.Mul(&Array{}) }, "multiply"},
		{"nil receiver Index", func() *Array { return nilA.Index(At(0)) }, "nil Array"},
		{"nil receiver T", func() *Array { return nilA.T() }, "nil Array"},
		{"nil receiver Take", func() *Array { return nilA.Take(0, []int{0}) }, "nil Array"},
		{"nil receiver Compress", func() *Array { return nilA.Compress([]bool{true}, 0) }, "nil Array"},
		{"zero receiver Index", func() *Array { return (&Array{}).Index(At(0)) }, "zero Array"},
		{"nil RandomState", func() *Array { var r *RandomState; return r.Uniform(0, 1, []int{3}, 2) }, "uniform"},
		{"FromNDArray nil", func() *Array { return FromNDArray(nil, 2) }, "array"},
		{"FromNDArray zero nd.Array", func() *Array { return FromNDArray(&nd.Array{}, 2) }, "invalid dtype"},
		{"Concatenate none", func() *Array { return Concatenate(nil, 0) }, "concatenate"},
		{"Concatenate nil element", func() *Array { return Concatenate([]*Array{x, nilA}, 0) }, "nil Array"},
		{"Concatenate axis 5", func() *Array { return Concatenate([]*Array{x, x}, 5) }, "concatenate"},
		{"Stack none", func() *Array { return Stack(nil, 0) }, "stack"},
		{"Stack axis -4", func() *Array { return Stack([]*Array{x, x}, -4) }, "stack"},
		{"Matmul mismatch", func() *Array { return Matmul(x, x) }, "matmul"},
		{"Dot nil", func() *Array { return Dot(nilA, x) }, "nil Array"},
		{"Tensordot axis out", func() *Array { return Tensordot(x, x, []int{5}, []int{0}) }, "tensordot"},
		{"Tensordot unpaired axes", func() *Array { return Tensordot(x, x, []int{0, 1}, []int{0}) }, "tensordot"},
		{"Tensordot repeated axis", func() *Array { return Tensordot(x, x.T(), []int{0, 0}, []int{1, 1}) }, "tensordot"},
		{"Where nil", func() *Array { return Where(nilA, 1, 2) }, "nil Array"},
		{"Where mismatch", func() *Array { return Where(x.Greater(0), Ones([]int{5}, nd.Float64, 2), 0) }, "where"},
		{"FromNPY missing", func() *Array { return FromNPY("/nonexistent/a.npy", 2) }, "/nonexistent/a.npy"},
		{"FromZarr missing", func() *Array { return FromZarr("/nonexistent/a.zarr") }, "/nonexistent/a.zarr"},
		// creation
		{"Ones negative shape", func() *Array { return Ones([]int{-1}, nd.Float64, 2) }, "negative dimension"},
		{"Ones chunks 0", func() *Array { return Ones([]int{4}, nd.Float64, 0) }, "chunks"},
		{"Ones chunks -2", func() *Array { return Ones([]int{4}, nd.Float64, -2) }, "chunks"},
		{"Ones chunks -2 on empty axis", func() *Array { return Ones([]int{0}, nd.Float64, -2) }, "chunks"},
		{"Ones chunks too few entries", func() *Array { return Ones([]int{4, 4}, nd.Float64, []int{2}) }, "chunks"},
		{"Ones chunks bad sum", func() *Array { return Ones([]int{4}, nd.Float64, [][]int{{1, 1}}) }, "sums to 2"},
		{"Ones chunks negative length", func() *Array { return Ones([]int{4}, nd.Float64, [][]int{{5, -1}}) }, "negative length"},
		{"Ones chunks float", func() *Array { return Ones([]int{4}, nd.Float64, 2.0) }, "float64"},
		{"Ones chunks string", func() *Array { return Ones([]int{4}, nd.Float64, "big") }, "auto"},
		{"Ones invalid dtype", func() *Array { return Ones([]int{4}, nd.DType(200), 2) }, "invalid dtype"},
		{"Ones size overflows", func() *Array { return Ones([]int{1 << 62, 4}, nd.Float64, -1) }, "too big"},
		{"Ones bytes overflow", func() *Array { return Ones([]int{1 << 61}, nd.Float64, -1) }, "too big"},
		{"Ones too many blocks, int chunks", func() *Array { return Ones([]int{1 << 40}, nd.Float64, 1) }, "blocks"},
		{"Ones too many blocks, per-axis", func() *Array { return Ones(huge, nd.Int8, []int{1 << 10, 1 << 10}) }, "blocks"},
		{"Ones too many blocks, auto", func() *Array { return Ones(huge, nd.Int8, nil) }, "blocks"},
		{"Full string value", func() *Array { return Full([]int{4}, "x", nd.Float64, 2) }, "full"},
		{"Full nil value", func() *Array { return Full([]int{4}, nil, nd.Float64, 2) }, "full"},
		{"Arange step 0", func() *Array { return Arange(0, 5, 0, nd.Float64, 2) }, "arange"},
		{"Arange NaN step", func() *Array { return Arange(0, 5, math.NaN(), nd.Float64, 2) }, "arange"},
		{"Arange NaN start", func() *Array { return Arange(math.NaN(), 5, 1, nd.Float64, 2) }, "arange"},
		{"Arange +Inf stop", func() *Array { return Arange(0, math.Inf(1), 1, nd.Float64, 2) }, "maximum allowed size"},
		{"Arange -Inf start", func() *Array { return Arange(math.Inf(-1), 0, 1, nd.Float64, 2) }, "maximum allowed size"},
		{"Arange 1e30 elements", func() *Array { return Arange(0, 1e30, 1, nd.Float64, 1<<20) }, "maximum allowed size"},
		{"Arange too many blocks", func() *Array { return Arange(0, 1e15, 1, nd.Float64, 1) }, "blocks"},
		{"Linspace negative num", func() *Array { return Linspace(0, 1, -1, true, 2) }, "linspace"},
		{"Linspace too many blocks", func() *Array { return Linspace(0, 1, 1<<58, false, 1<<20) }, "blocks"},
		{"Eye negative", func() *Array { return Eye(-1, 3, 0, nd.Float64, 2) }, "eye"},
		{"Eye invalid dtype", func() *Array { return Eye(3, 3, 0, nd.Invalid, 2) }, "eye"},
		{"Uniform NaN low", func() *Array { return Random(1).Uniform(math.NaN(), 0, []int{3}, 2) }, "uniform"},
		{"Uniform infinite range", func() *Array { return Random(1).Uniform(0, math.Inf(1), []int{3}, 2) }, "uniform"},
		{"Normal negative std", func() *Array { return Random(1).Normal(0, -1, []int{3}, 2) }, "normal"},
		{"Integers empty range", func() *Array { return Random(1).Integers(5, 5, []int{3}, 2) }, "randint"},
		{"Integers negative shape", func() *Array { return Random(1).Integers(0, 5, []int{-3}, 2) }, "randint"},
		// reductions
		{"Sum axis 5", func() *Array { return x.Sum(5) }, "sum"},
		{"Sum axis -3", func() *Array { return x.Sum(-3) }, "sum"},
		{"Sum repeated axis", func() *Array { return x.Sum(1, -1) }, "repeated axis"},
		{"Sum of a 0-d array over axis 0", func() *Array { return Full(nil, 3, nd.Int64, nil).Sum(0) }, "sum"},
		{"Max of empty", func() *Array { return Ones([]int{0}, nd.Float64, 2).Max() }, "max"},
		{"ArgMax of empty", func() *Array { return Ones([]int{0}, nd.Float64, 2).ArgMax(0, false) }, "argmax"},
		{"ArgMax axis 5", func() *Array { return x.ArgMax(5, false) }, "argmax"},
		{"Reduce invalid op", func() *Array { return x.Reduce(nd.ReduceOp(99), nil, ReduceOpts{}) }, "99"},
		// shape ops
		{"Transpose short", func() *Array { return x.Transpose(0) }, "transpose"},
		{"Transpose repeated", func() *Array { return x.Transpose(0, 0) }, "transpose"},
		{"Transpose out of range", func() *Array { return x.Transpose(0, 7) }, "transpose"},
		{"Reshape size", func() *Array { return x.Reshape(5, 5) }, "reshape"},
		{"Reshape two unknowns", func() *Array { return x.Reshape(-1, -1) }, "reshape"},
		{"Reshape negative", func() *Array { return x.Reshape(-2, -12) }, "reshape"},
		{"Reshape -1 with 0", func() *Array { return x.Reshape(-1, 0) }, "reshape"},
		{"Reshape overflowing shape", func() *Array { return x.Reshape(1<<32, 1<<32) }, "reshape"},
		{"Squeeze non-1 axis", func() *Array { return x.Squeeze(0) }, "squeeze"},
		{"Squeeze out of range", func() *Array { return x.Squeeze(9) }, "squeeze"},
		{"ExpandDims out of range", func() *Array { return x.ExpandDims(9) }, "expand_dims"},
		{"Rechunk 0", func() *Array { return x.Rechunk(0) }, "rechunk"},
		{"Rechunk bad sum", func() *Array { return x.Rechunk([][]int{{4}, {1}}) }, "rechunk"},
		{"Rechunk too many blocks", func() *Array { return Ones([]int{1 << 30}, nd.Int8, 1<<20).Rechunk(1) }, "blocks"},
		{"AsType invalid", func() *Array { return x.AsType(nd.DType(77)) }, "astype"},
		{"Take out of range", func() *Array { return x.Take(0, []int{9}) }, "out of bounds"},
		{"Take negative out of range", func() *Array { return x.Take(0, []int{-9}) }, "out of bounds"},
		{"Take axis out of range", func() *Array { return x.Take(5, []int{0}) }, "take"},
		{"Compress nil condition", func() *Array { return x.Compress(nil, 0) }, "compress"},
		{"Compress axis out of range", func() *Array { return x.Compress([]bool{true}, 7) }, "compress"},
		// indexing
		{"Index At past end", func() *Array { return x.Index(At(4)) }, "out of bounds"},
		{"Index At -5", func() *Array { return x.Index(At(-5)) }, "out of bounds"},
		{"Index At MinInt", func() *Array { return x.Index(At(math.MinInt)) }, "out of bounds"},
		{"Index too many", func() *Array { return x.Index(At(0), At(0), At(0)) }, "too many indices"},
		{"Index two ellipses", func() *Array { return x.Index(Ellipsis(), Ellipsis()) }, "ellipsis"},
		{"Index step 0", func() *Array { return x.Index(Step(0)) }, "step"},
		{"Index two advanced", func() *Array { return x.Index(Ints(0), Ints(1)) }, "getitem"},
		{"Index Ints out of range", func() *Array { return x.Index(Ints(7)) }, "out of bounds"},
		{"Index Ints MinInt", func() *Array { return x.Index(Ints(math.MinInt)) }, "out of bounds"},
		{"Index Bools short", func() *Array { return x.Index(Bools(true)) }, "boolean index"},
		{"Index of a 0-d array", func() *Array { return Full(nil, 3, nd.Int64, nil).Index(At(0)) }, "too many indices"},
		// elementwise
		{"Add mismatched shapes", func() *Array { return x.Add(Ones([]int{5}, nd.Float64, 2)) }, "could not be broadcast"},
		{"Add mismatched nd shapes", func() *Array {
			n, _ := nd.Zeros(nd.Float64, 5)
			return x.Add(n)
		}, "could not be broadcast"},
		{"Binary invalid op", func() *Array { return Binary(nd.BinaryOp(99), x, x) }, "99"},
		{"Unary invalid op", func() *Array { return Unary(nd.UnaryOp(99), x) }, "99"},
		{"Pow int to negative", func() *Array { return Ones([]int{3}, nd.Int64, 2).Mul(2).Pow(-1) }, "negative integer powers"},
		{"Sub bool", func() *Array { return Ones([]int{3}, nd.Bool, 2).Sub(true) }, "subtract"},
		{"Neg bool", func() *Array { return Ones([]int{3}, nd.Bool, 2).Neg() }, "negative"},
		// block functions
		{"MapBlocks unknown fn", func() *Array { return MapBlocks("audit-nope", BlockOpts{}, x) }, "audit-nope"},
		{"MapBlocks no arrays", func() *Array { return MapBlocks("audit-nope", BlockOpts{}) }, "blockwise"},
		{"MapBlocks nil array", func() *Array { return MapBlocks("audit-nope", BlockOpts{}, nilA) }, "nil Array"},
		{"Blockwise unknown fn", func() *Array { return Blockwise("audit-nope", "ij", BlockOpts{}, In(x, "i")) }, "audit-nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := auditRun(t, c.build)
			if err == nil {
				t.Fatalf("got result %v (shape %v), want an error naming %q", res, res.Shape(), c.op)
			}
			if !strings.Contains(err.Error(), c.op) {
				t.Errorf("error %q does not contain %q", err, c.op)
			}
			if strings.Contains(err.Error(), "panic") {
				t.Errorf("error %q comes from a recovered panic", err)
			}
		})
	}
}

// TestAuditEdgeResults: odd but valid input gives numpy 1.24's result.
func TestAuditEdgeResults(t *testing.T) {
	cases := []struct {
		name  string
		build func() *Array
		shape []int
		want  []float64 // values as float64, C order
	}{
		// np.arange(0, 5, np.inf) -> [0.]; np.arange(0, -5, -np.inf) -> [0.]
		{"Arange infinite step", func() *Array { return Arange(0, 5, math.Inf(1), nd.Float64, 2) }, []int{1}, []float64{0}},
		{"Arange -infinite step", func() *Array { return Arange(0, -5, math.Inf(-1), nd.Float64, 2) }, []int{1}, []float64{0}},
		// np.arange(0, -5, np.inf) -> []
		{"Arange infinite step, wrong side", func() *Array { return Arange(0, -5, math.Inf(1), nd.Float64, 2) }, []int{0}, nil},
		// np.arange(0, 3, 0.5, dtype=np.int64) -> six zeros
		{"Arange int dtype fractional step", func() *Array { return Arange(0, 3, 0.5, nd.Int64, 2) }, []int{6}, []float64{0, 0, 0, 0, 0, 0}},
		// np.arange(0.5, 3, 1, dtype=np.int64) -> [0, 1, 2]
		{"Arange int dtype fractional start", func() *Array { return Arange(0.5, 3, 1, nd.Int64, 2) }, []int{3}, []float64{0, 1, 2}},
		// np.full(4, 300, dtype=np.int8) -> 44 (unsafe cast)
		{"Full out of range int8", func() *Array { return Full([]int{4}, 300, nd.Int8, 2) }, []int{4}, []float64{44, 44, 44, 44}},
		// np.full(4, 1.5, dtype=np.int64) -> 1
		{"Full fraction into int", func() *Array { return Full([]int{4}, 1.5, nd.Int64, 2) }, []int{4}, []float64{1, 1, 1, 1}},
		// np.linspace(nan, 1, 3) -> [nan, nan, 1.]
		{"Linspace NaN start", func() *Array { return Linspace(math.NaN(), 1, 3, true, 2) }, []int{3}, []float64{math.NaN(), math.NaN(), 1}},
		// np.linspace(0, 1, 1, endpoint=False) -> [0.]
		{"Linspace one point", func() *Array { return Linspace(0, 1, 1, false, 2) }, []int{1}, []float64{0}},
		{"Linspace zero points", func() *Array { return Linspace(0, 1, 0, true, 2) }, []int{0}, nil},
		// np.eye(3, 3, 2**62) -> zeros
		{"Eye far diagonal", func() *Array { return Eye(3, 3, 1<<62, nd.Float64, 2) }, []int{3, 3}, make([]float64, 9)},
		{"Eye far negative diagonal", func() *Array { return Eye(3, 3, math.MinInt, nd.Float64, 2) }, []int{3, 3}, make([]float64, 9)},
		{"Eye no columns", func() *Array { return Eye(3, 0, 0, nd.Float64, 2) }, []int{3, 0}, nil},
		// np.ones((4, 6))[0:4:-(2**63)] -> shape (0, 6)
		{"Index step MinInt", func() *Array { return Ones([]int{4, 6}, nd.Float64, 2).Index(RangeStep(0, 4, math.MinInt)) }, []int{0, 6}, nil},
		{"Index whole range from MinInt to MaxInt", func() *Array {
			return Arange(0, 4, 1, nd.Float64, 3).Index(RangeStep(math.MinInt, math.MaxInt, 1))
		}, []int{4}, []float64{0, 1, 2, 3}},
		// np.compress([True], np.arange(4)) -> [0] (a short condition truncates)
		{"Compress short condition", func() *Array { return Arange(0, 4, 1, nd.Float64, 3).Compress([]bool{true}, 0) }, []int{1}, []float64{0}},
		{"Take nothing", func() *Array { return Arange(0, 4, 1, nd.Float64, 3).Take(0, nil) }, []int{0}, nil},
		{"Index no Ints", func() *Array { return Arange(0, 4, 1, nd.Float64, 3).Index(Ints()) }, []int{0}, nil},
		// np.int64(-2**63) // -1 -> -2**63 (wraps); % -1 -> 0; x // 0 -> 0
		{"FloorDiv MinInt64 by -1", func() *Array { return Full([]int{2}, math.MinInt64, nd.Int64, 2).FloorDiv(-1) }, []int{2}, []float64{math.MinInt64, math.MinInt64}},
		{"Mod MinInt64 by -1", func() *Array { return Full([]int{2}, math.MinInt64, nd.Int64, 2).Mod(-1) }, []int{2}, []float64{0, 0}},
		{"FloorDiv int by 0", func() *Array { return Arange(1, 3, 1, nd.Int64, 2).FloorDiv(0) }, []int{2}, []float64{0, 0}},
		{"Mean of empty", func() *Array { return Ones([]int{0}, nd.Float64, 2).Mean() }, []int{}, []float64{math.NaN()}},
		{"Sum of empty", func() *Array { return Ones([]int{0, 3}, nd.Float64, 2).Sum() }, []int{}, []float64{0}},
		{"Empty chunks inside a list", func() *Array { return Arange(0, 4, 1, nd.Float64, [][]int{{0, 4, 0}}) }, []int{4}, []float64{0, 1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := auditRun(t, c.build)
			if err != nil {
				t.Fatalf("error %v, want shape %v values %v", err, c.shape, c.want)
			}
			if !slices.Equal(res.Shape(), c.shape) {
				t.Fatalf("shape %v, want %v", res.Shape(), c.shape)
			}
			got, err := auditFloats(res)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] && !(math.IsNaN(got[i]) && math.IsNaN(c.want[i])) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// auditFloats returns a's elements in C order as float64.
func auditFloats(a *nd.Array) ([]float64, error) {
	f, err := a.AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	f = f.Contiguous()
	return nd.Values[float64](f)
}

// TestAuditAccessorsOfNilAndZero: the accessors of a nil or zero Array
// report it instead of panicking.
func TestAuditAccessorsOfNilAndZero(t *testing.T) {
	var nilA *Array
	for _, a := range []*Array{nilA, {}} {
		name := fmt.Sprintf("%#v", a)
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			if a.Err() == nil {
				t.Errorf("Err() = nil, want an error")
			}
			if s := a.String(); !strings.Contains(s, "error") {
				t.Errorf("String() = %q, want it to show the error", s)
			}
			_ = a.Shape()
			_ = a.Chunks()
			_ = a.DType()
			_ = a.NDim()
			_ = a.Size()
			_ = a.Nbytes()
			_ = a.NumBlocks()
			_ = a.NumTasks()
			_ = a.Name()
			_ = a.Key(0)
			if _, err := a.Graph(); err == nil {
				t.Errorf("Graph: no error")
			}
			if _, err := Compute(context.Background(), []*Array{a}); err == nil {
				t.Errorf("Compute: no error")
			}
			if _, _, err := BuildGraph([]*Array{a}); err == nil {
				t.Errorf("BuildGraph: no error")
			}
			if _, err := a.Persist(context.Background()); err == nil {
				t.Errorf("Persist: no error")
			}
		})
	}
}

// TestAuditNilReceiverBugs checks the nil/zero-receiver methods that used
// to panic: each now returns the sticky "nil Array" / "zero Array" error.
func TestAuditNilReceiverBugs(t *testing.T) {
	var nilA *Array
	zero := &Array{}
	cases := []struct {
		name  string
		file  string
		build func() any
	}{
		{"nil.Sum", "reduce.go", func() any { return nilA.Sum().Err() }},
		{"zero.Sum", "reduce.go", func() any { return zero.Sum().Err() }},
		{"nil.ArgMax", "reduce.go", func() any { return nilA.ArgMax(0, false).Err() }},
		{"nil.Reshape", "shape.go", func() any { return nilA.Reshape(2).Err() }},
		{"nil.Squeeze", "shape.go", func() any { return nilA.Squeeze().Err() }},
		{"nil.ExpandDims", "shape.go", func() any { return nilA.ExpandDims(0).Err() }},
		{"nil.Rechunk", "rechunk.go", func() any { return nilA.Rechunk(2).Err() }},
		{"nil.Keys", "compute.go", func() any { return nilA.Keys() }},
		{"nil.FinalKey", "compute.go", func() any { return nilA.FinalKey() }},
		{"zero.Keys", "compute.go", func() any { return zero.Keys() }},
		{"nil.Store", "io.go", func() any { return nilA.Store(context.Background(), nil) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			panicked := func() (p any) {
				defer func() { p = recover() }()
				v := c.build()
				if err, ok := v.(error); ok && err == nil {
					return "no error"
				}
				if keys, ok := v.([]graph.Key); ok && len(keys) > 0 {
					return fmt.Sprintf("keys %q of an Array with no name", keys)
				}
				return nil
			}()
			if panicked != nil {
				t.Errorf("%s (%s) on a nil or zero Array: %v; want an *Error (\"nil Array\"), as Add and Index give", c.name, c.file, panicked)
			}
		})
	}
}
