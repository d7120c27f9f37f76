package chunkarray

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// chunksToken turns chunks into something graph.Tokenize understands.
func chunksToken(chunks [][]int) []any {
	out := make([]any, len(chunks))
	for i, c := range chunks {
		out[i] = c
	}
	return out
}

// fullLayer: every block is a zero-stride constant.
type fullLayer struct {
	op *op[fullP]
}

func (l *fullLayer) inputs() []*Array { return nil }

func (l *fullLayer) block(a *Array, idx []int) graph.Node {
	return graph.Task(l.op, graph.Lit(a.blockShape(idx)))
}

// Full returns an array of shape filled with v converted to dt; its blocks
// are zero-stride views of one element, as in Dask.
func Full(shape []int, v any, dt nd.DType, chunks any) *Array {
	const name = "full"
	if !dt.Valid() {
		return errorf(name, nil, "invalid dtype %d", dt)
	}
	ch, err := NormalizeChunks(name, chunks, shape, dt)
	if err != nil {
		return errArray(err)
	}
	s, err := scalarOf(v, dt)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	p := fullP{V: s}
	return newArray(prefixFull(s), slices.Clone(shape), ch, dt, &fullLayer{op: newOp(opFull, p)},
		s.Lo, s.Hi, int(dt), shape, chunksToken(ch))
}

func prefixFull(s scalar) string {
	switch s.Lo {
	case 0:
		if s.Hi == 0 {
			return "zeros"
		}
	case 1:
		if s.D.IsInteger() || s.D.IsBool() {
			return "ones"
		}
	case math.Float64bits(1):
		if s.D.IsFloat() || s.D.IsComplex() {
			return "ones"
		}
	}
	return "full"
}

// Ones returns an array of ones.
func Ones(shape []int, dt nd.DType, chunks any) *Array { return Full(shape, 1, dt, chunks) }

// Zeros returns an array of zeros.
func Zeros(shape []int, dt nd.DType, chunks any) *Array { return Full(shape, 0, dt, chunks) }

// Empty returns an array whose values are unspecified; here they are
// zeros, which cost nothing as zero-stride blocks.
func Empty(shape []int, dt nd.DType, chunks any) *Array { return Full(shape, 0, dt, chunks) }

// arangeP makes a block of start + (first+i)*step. Args: first (int), n
// (int).
type arangeP struct {
	D     nd.DType `json:"dtype"`
	Start uint64   `json:"start"` // float bits
	Step  uint64   `json:"step"`
	// Stop, for Linspace with endpoint: the last element is exactly stop.
	Last  int    `json:"last"` // index of the last element, -1 if not pinned
	LastV uint64 `json:"lastv"`
}

func (p arangeP) run(_ context.Context, args []any) (any, error) {
	first, ok1 := args[0].(int)
	n, ok2 := args[1].(int)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s: arguments %T, %T", opArange, args[0], args[1])
	}
	start, step := math.Float64frombits(p.Start), math.Float64frombits(p.Step)
	v := make([]float64, n)
	for i := range v {
		v[i] = start + float64(first+i)*step
	}
	if first == 0 && n > 0 {
		v[0] = start // not start + 0*step, which is NaN for an infinite step
	}
	if p.Last >= first && p.Last < first+n {
		v[p.Last-first] = math.Float64frombits(p.LastV)
	}
	a, err := nd.FromSlice(v)
	if err != nil {
		return nil, err
	}
	if p.D.IsInteger() {
		// numpy's integer arange counts exactly; start and step are
		// integral here.
		iv := make([]int64, n)
		s0, st := int64(start), int64(step)
		for i := range iv {
			iv[i] = s0 + int64(first+i)*st
		}
		a, _ = nd.FromSlice(iv)
	}
	return a.AsType(p.D)
}

type arangeLayer struct{ op *op[arangeP] }

func (l *arangeLayer) inputs() []*Array { return nil }

func (l *arangeLayer) block(a *Array, idx []int) graph.Node {
	return graph.Task(l.op, graph.Lit(a.blockStart(idx)[0]), graph.Lit(a.chunks[0][idx[0]]))
}

// Arange returns the values start, start+step, … below stop (above, for a
// negative step), as numpy.arange, in dtype dt.
func Arange(start, stop, step float64, dt nd.DType, chunks any) *Array {
	const name = "arange"
	if step == 0 || math.IsNaN(step) || math.IsNaN(start) || math.IsNaN(stop) {
		return errorf(name, nil, "start %v, stop %v, step %v", start, stop, step)
	}
	if !dt.Valid() {
		return errorf(name, nil, "invalid dtype %d", dt)
	}
	if math.IsInf(start, 0) || math.IsInf(stop, 0) {
		return errorf(name, nil, "start %v, stop %v, step %v: maximum allowed size exceeded", start, stop, step)
	}
	var n int
	if math.IsInf(step, 0) {
		// numpy: one element when stop lies on step's side of start.
		if (stop-start)*step > 0 {
			n = 1
		}
	} else {
		nf := math.Ceil((stop - start) / step)
		if nf >= 1<<62 || math.IsInf(nf, 0) {
			return errorf(name, nil, "start %v, stop %v, step %v: maximum allowed size exceeded", start, stop, step)
		}
		n = max(0, int(nf))
	}
	shape := []int{n}
	ch, err := NormalizeChunks(name, chunks, shape, dt)
	if err != nil {
		return errArray(err)
	}
	p := arangeP{D: dt, Start: math.Float64bits(start), Step: math.Float64bits(step), Last: -1}
	return newArray(name, shape, ch, dt, &arangeLayer{op: newOp(opArange, p)}, start, stop, step, int(dt), chunksToken(ch))
}

// Linspace returns num evenly spaced float64 values from start to stop
// (included when endpoint), as numpy.linspace.
func Linspace(start, stop float64, num int, endpoint bool, chunks any) *Array {
	const name = "linspace"
	if num < 0 {
		return errorf(name, nil, "negative num %d", num)
	}
	div := num
	if endpoint {
		div = num - 1
	}
	step := math.NaN()
	if div > 0 {
		step = (stop - start) / float64(div)
	}
	shape := []int{num}
	ch, err := NormalizeChunks(name, chunks, shape, nd.Float64)
	if err != nil {
		return errArray(err)
	}
	p := arangeP{D: nd.Float64, Start: math.Float64bits(start), Step: math.Float64bits(step), Last: -1}
	if div <= 0 {
		p.Step = math.Float64bits(0)
	}
	if endpoint && num > 1 {
		p.Last, p.LastV = num-1, math.Float64bits(stop)
	}
	return newArray(name, shape, ch, nd.Float64, &arangeLayer{op: newOp(opArange, p)}, start, stop, num, endpoint, chunksToken(ch))
}

// eyeP makes a block of the identity-like matrix with ones on diagonal K.
// Args: block start, block shape.
type eyeP struct {
	D nd.DType `json:"dtype"`
	K int      `json:"k"`
}

func (p eyeP) run(_ context.Context, args []any) (any, error) {
	st, err := argInts(args, 0, opEye)
	if err != nil {
		return nil, err
	}
	sh, err := argInts(args, 1, opEye)
	if err != nil {
		return nil, err
	}
	v := make([]float64, sh[0]*sh[1])
	for i := 0; i < sh[0]; i++ {
		j := st[0] + i + p.K - st[1]
		if j >= 0 && j < sh[1] {
			v[i*sh[1]+j] = 1
		}
	}
	a, err := nd.FromSlice(v, sh...)
	if err != nil {
		return nil, err
	}
	return a.AsType(p.D)
}

type eyeLayer struct{ op *op[eyeP] }

func (l *eyeLayer) inputs() []*Array { return nil }

func (l *eyeLayer) block(a *Array, idx []int) graph.Node {
	return graph.Task(l.op, graph.Lit(a.blockStart(idx)), graph.Lit(a.blockShape(idx)))
}

// Eye returns an n×m array with ones on diagonal k (0 the main one,
// positive above it), as numpy.eye.
func Eye(n, m, k int, dt nd.DType, chunks any) *Array {
	const name = "eye"
	if !dt.Valid() {
		return errorf(name, nil, "invalid dtype %d", dt)
	}
	shape := []int{n, m}
	ch, err := NormalizeChunks(name, chunks, shape, dt)
	if err != nil {
		return errArray(err)
	}
	return newArray(name, shape, ch, dt, &eyeLayer{op: newOp(opEye, eyeP{D: dt, K: k})}, n, m, k, int(dt), chunksToken(ch))
}

// RandomState makes seeded random arrays. Every element is a pure function
// of the seed and its flat (C-order) index in the whole array, through the
// counter-based splitmix64 generator, so an array has the same values for
// a seed whatever its chunking and whatever scheduler computes it.
type RandomState struct{ seed uint64 }

// Random returns a generator for seed.
func Random(seed uint64) *RandomState { return &RandomState{seed: seed} }

const (
	distUniform = iota
	distNormal
	distIntegers
)

// randomP makes a block of a random array. Args: block start, block shape.
type randomP struct {
	Seed  uint64 `json:"seed"`
	Dist  int    `json:"dist"`
	Shape []int  `json:"shape"` // the whole array's
	A     uint64 `json:"a"`     // float bits (uniform low, normal mean) or int64 low
	B     uint64 `json:"b"`     // float bits (uniform high, normal std) or int64 high
	// F32 makes a uniform or normal block in float32: an AsType(Float32)
	// fused into the generator (randomAsType), each value the float64
	// value cast, so identical to generating float64 and casting, without
	// the float64 block (twice the bytes) and the pass that casts it.
	F32 bool `json:"f32,omitempty"`
}

// splitmix returns the i-th output of splitmix64 seeded with seed.
func splitmix(seed, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func unit(z uint64) float64 { return float64(z>>11) * (1.0 / (1 << 53)) }

func (p randomP) run(_ context.Context, args []any) (any, error) {
	st, err := argInts(args, 0, opRandom)
	if err != nil {
		return nil, err
	}
	sh, err := argInts(args, 1, opRandom)
	if err != nil {
		return nil, err
	}
	out, err := nd.Zeros(p.dtype(), sh...)
	if err != nil {
		return nil, err
	}
	if err := p.fill(out.Data(), 0, st, sh); err != nil {
		return nil, err
	}
	return out, nil
}

func (p *randomP) dtype() nd.DType {
	if p.Dist == distIntegers || intDist(p.Dist) {
		return nd.Int64
	}
	if p.F32 {
		return nd.Float32
	}
	return nd.Float64
}

// splitmix64's constants: the increment (the golden ratio) and the two
// multipliers of the finaliser.
const (
	smGamma = 0x9e3779b97f4a7c15
	smMul1  = 0xbf58476d1ce4e5b9
	smMul2  = 0x94d049bb133111eb
	// smGamma times 2, 3 and 4, wrapped to 64 bits as the counter is.
	smGamma2 = 2 * smGamma % (1 << 64)
	smGamma3 = 3 * smGamma % (1 << 64)
	smGamma4 = 4 * smGamma % (1 << 64)
)

// fill writes the values of the region of shape sh starting at st (in the
// whole array's coordinates) into data ([]int64 or []float64 as p.dtype())
// from offset off on, in C order.
func (p *randomP) fill(data any, off int, st, sh []int) error {
	if len(st) != len(p.Shape) || len(sh) != len(p.Shape) {
		return fmt.Errorf("%s: block of %d axes in an array of %d", opRandom, len(sh), len(p.Shape))
	}
	var gbuf [16]int
	gstr := nd.CStridesInto(gbuf[:0], p.Shape)
	base := 0
	for i, s := range st {
		if s < 0 || sh[i] < 0 || s+sh[i] > p.Shape[i] {
			// (Copies, so that st and sh do not escape: a fused tile's
			// region lives on the stack.)
			return fmt.Errorf("%s: block at %v of shape %v outside %v", opRandom, slices.Clone(st), slices.Clone(sh), p.Shape)
		}
		base += s * gstr[i]
	}
	n := 1
	for _, s := range sh {
		n *= s
	}
	seed := p.Seed
	switch p.Dist {
	case distIntegers:
		out, ok := data.([]int64)
		if !ok || off+n > len(out) {
			return fmt.Errorf("%s: integers into %T", opRandom, data)
		}
		lo, hi := int64(p.A), int64(p.B)
		span := uint64(hi - lo)
		k := off
		nd.ForEachOffset(sh, gstr, base, func(g, m, _ int) {
			o := out[k : k+m]
			// splitmix(seed, i) with its counter stepped by addition:
			// the same values, one multiply fewer per element.
			z := seed + uint64(g+1)*smGamma
			for j := range o {
				x := z
				x = (x ^ (x >> 30)) * smMul1
				x = (x ^ (x >> 27)) * smMul2
				x ^= x >> 31
				// Lemire's multiply-shift maps the 64 random bits onto
				// [0, span) with a bias below span/2^64: negligible for
				// the spans arrays use, and no rejection loop to break
				// the one-element-one-draw rule.
				h, _ := bits.Mul64(x, span)
				o[j] = lo + int64(h)
				z += smGamma
			}
			k += m
		})
	case distUniform:
		lo, hi := math.Float64frombits(p.A), math.Float64frombits(p.B)
		switch out := data.(type) {
		case []float64:
			if off+n > len(out) {
				return fmt.Errorf("%s: uniform into %T of %d", opRandom, data, len(out))
			}
			fillUniform(out[off:], seed, lo, hi, sh, gstr, base)
		case []float32:
			if off+n > len(out) {
				return fmt.Errorf("%s: uniform into %T of %d", opRandom, data, len(out))
			}
			fillUniform(out[off:], seed, lo, hi, sh, gstr, base)
		default:
			return fmt.Errorf("%s: uniform into %T", opRandom, data)
		}
	case distNormal:
		mu, sd := math.Float64frombits(p.A), math.Float64frombits(p.B)
		switch out := data.(type) {
		case []float64:
			if off+n > len(out) {
				return fmt.Errorf("%s: normal into %T of %d", opRandom, data, len(out))
			}
			fillNormal(out[off:], seed, mu, sd, sh, gstr, base)
		case []float32:
			if off+n > len(out) {
				return fmt.Errorf("%s: normal into %T of %d", opRandom, data, len(out))
			}
			fillNormal(out[off:], seed, mu, sd, sh, gstr, base)
		default:
			return fmt.Errorf("%s: normal into %T", opRandom, data)
		}
	default:
		return p.fillDist(data, off, n, sh, gstr, base) // random_dist.go
	}
	return nil
}

// fillUniform writes the uniform values of the region (sh at global flat
// offset base, global strides gstr) into out in C order; float32 values
// are the float64 values cast.
func fillUniform[T float32 | float64](out []T, seed uint64, lo, hi float64, sh, gstr []int, base int) {
	w := hi - lo
	// lo + w*unit(x) is lo + w*(f*2^-53) with f = x>>11; f*2^-53 is
	// exact, and so is w*2^-53 while it stays a normal number, so
	// lo + s*f with s = w*2^-53 rounds the same exact product: the same
	// values, one multiply fewer per element. Below that (|w| < 2^-969)
	// the scaling by 2^-53 could round; keep the two-step form there.
	s := w * (1.0 / (1 << 53))
	exact := w == 0 || math.Abs(s) >= 0x1p-1022
	var b1, b2 [16]int // the collapsed axes, on the stack
	sh, gstr = collapseRuns(sh, gstr, b1[:0], b2[:0])
	k := 0
	nd.ForEachOffset(sh, gstr, base, func(g, m, _ int) {
		z := seed + uint64(g+1)*smGamma
		if exact {
			uniformRun(out[k:k+m], z, lo, s)
		} else {
			o := out[k : k+m]
			for j := range o {
				o[j] = T(lo + w*unit(mix(z)))
				z += smGamma
			}
		}
		k += m
	})
}

// mix is splitmix64's finaliser: splitmix(seed, i) = mix(seed + (i+1)*smGamma).
func mix(x uint64) uint64 {
	x = (x ^ (x >> 30)) * smMul1
	x = (x ^ (x >> 27)) * smMul2
	return x ^ (x >> 31)
}

// uniformRun writes T(lo + s*float64(mix(z + j*smGamma)>>11)) into o[j]:
// splitmix with its counter stepped by addition, four independent lanes
// per iteration so that their multiplies overlap.
func uniformRun[T float32 | float64](o []T, z uint64, lo, s float64) {
	if d := uniformSIMD(o, z, lo, s); d > 0 {
		o = o[d:]
		z += uint64(d) * smGamma
	}
	j := 0
	for ; j+4 <= len(o); j += 4 {
		x0 := mix(z)
		x1 := mix(z + smGamma)
		x2 := mix(z + smGamma2)
		x3 := mix(z + smGamma3)
		q := o[j : j+4 : j+4]
		q[0] = T(lo + s*float64(int64(x0>>11)))
		q[1] = T(lo + s*float64(int64(x1>>11)))
		q[2] = T(lo + s*float64(int64(x2>>11)))
		q[3] = T(lo + s*float64(int64(x3>>11)))
		z += smGamma4
	}
	for ; j < len(o); j++ {
		o[j] = T(lo + s*float64(int64(mix(z)>>11)))
		z += smGamma
	}
}

// collapseRuns merges trailing axes that a region covers in C order
// (strides gstr[i] == sh[i+1]*gstr[i+1]) into one, so that ForEachOffset
// calls back once per longest contiguous run of global flat indices;
// the collapsed axes are written into the storage of sh2 and st2.
func collapseRuns(sh, gstr, sh2, st2 []int) ([]int, []int) {
	n := len(sh)
	if n < 2 {
		return sh, gstr
	}
	run := sh[n-1]
	if gstr[n-1] != 1 {
		return sh, gstr
	}
	i := n - 2
	for ; i >= 0 && gstr[i] == run; i-- {
		run *= sh[i]
	}
	if i == n-2 {
		return sh, gstr
	}
	sh2 = append(append(sh2[:0], sh[:i+1]...), run)
	st2 = append(append(st2[:0], gstr[:i+1]...), 1)
	return sh2, st2
}

// randomAsType returns a.AsType(d) as one random layer generating d
// directly, when a is a uniform or normal random array and d is float32;
// nil otherwise. The values are those of the unfused graph.
func randomAsType(a *Array, d nd.DType) *Array {
	l, ok := a.lay.(*randomLayer)
	if !ok || a.err != nil || d != nd.Float32 || l.op.p.F32 || (l.op.p.Dist != distUniform && l.op.p.Dist != distNormal) {
		return nil
	}
	p := l.op.p
	p.F32 = true
	p.Shape = slices.Clone(p.Shape)
	prefix := "uniform"
	if p.Dist == distNormal {
		prefix = "normal"
	}
	return newArray(prefix, p.Shape, a.chunks, d, &randomLayer{op: newOp(opRandom, p)}, a.name, "float32")
}

type randomLayer struct{ op *op[randomP] }

func (l *randomLayer) inputs() []*Array { return nil }

func (l *randomLayer) block(a *Array, idx []int) graph.Node {
	return graph.Task(l.op, graph.Lit(a.blockStart(idx)), graph.Lit(a.blockShape(idx)))
}

func (r *RandomState) make(name string, p randomP, shape []int, dt nd.DType, chunks any) *Array {
	if r == nil {
		return errorf(name, [][]int{shape}, "nil RandomState: use Random(seed)")
	}
	ch, err := NormalizeChunks(name, chunks, shape, dt)
	if err != nil {
		return errArray(err)
	}
	p.Seed, p.Shape = r.seed, slices.Clone(shape)
	return newArray(name, p.Shape, ch, dt, &randomLayer{op: newOp(opRandom, p)}, r.seed, p.Dist, p.A, p.B, shape, chunksToken(ch))
}

// Uniform returns float64 values uniform in [low, high).
func (r *RandomState) Uniform(low, high float64, shape []int, chunks any) *Array {
	if d := high - low; math.IsNaN(d) || math.IsInf(d, 0) {
		// numpy: OverflowError, high - low range exceeds valid bounds.
		return errorf("uniform", [][]int{shape}, "low %v, high %v: high - low range exceeds valid bounds", low, high)
	}
	return r.make("uniform", randomP{Dist: distUniform, A: math.Float64bits(low), B: math.Float64bits(high)}, shape, nd.Float64, chunks)
}

// Normal returns float64 values from the normal distribution N(mean, std²).
func (r *RandomState) Normal(mean, std float64, shape []int, chunks any) *Array {
	if std < 0 {
		return errorf("normal", [][]int{shape}, "negative std %v", std)
	}
	return r.make("normal", randomP{Dist: distNormal, A: math.Float64bits(mean), B: math.Float64bits(std)}, shape, nd.Float64, chunks)
}

// Integers returns int64 values in [low, high), as numpy's randint.
func (r *RandomState) Integers(low, high int64, shape []int, chunks any) *Array {
	if high <= low {
		return errorf("randint", [][]int{shape}, "low %d >= high %d", low, high)
	}
	return r.make("randint", randomP{Dist: distIntegers, A: uint64(low), B: uint64(high)}, shape, nd.Int64, chunks)
}

// FromNDArray cuts an in-memory array into chunks; each block is a literal
// view of a (not a copy).
func FromNDArray(a *nd.Array, chunks any) *Array {
	const name = "array"
	if a == nil {
		return errorf(name, nil, "nil nd.Array")
	}
	if !a.DType().Valid() {
		return errorf(name, [][]int{a.Shape()}, "invalid dtype %d (a zero nd.Array? build it with nd.Zeros or nd.FromSlice)", a.DType())
	}
	shape := slices.Clone(a.Shape())
	ch, err := NormalizeChunks(name, chunks, shape, a.DType())
	if err != nil {
		return errArray(err)
	}
	l := &literalLayer{nb: make([]int, len(ch))}
	for i, c := range ch {
		l.nb[i] = len(c)
	}
	st := make([][]int, len(ch))
	for i, c := range ch {
		st[i] = starts(c)
	}
	sl := make([]nd.Slice1, len(ch))
	forBlocks(l.nb, func(idx []int) {
		if err != nil {
			return
		}
		for ax, x := range idx {
			sl[ax] = nd.Slice1{Start: st[ax][x], Stop: st[ax][x] + ch[ax][x], Step: 1}
		}
		var b *nd.Array
		b, err = a.Slice(sl...)
		l.blocks = append(l.blocks, b)
	})
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{shape}, Err: err})
	}
	// An in-memory array has no cheap deterministic token; like
	// dask.array.from_array with name=False, each call gets a fresh one.
	return &Array{name: name + "-" + graph.ImpureToken(), shape: shape, chunks: ch, dtype: a.DType(), lay: l}
}

// delayedLayer is one block computed by a delayed value.
type delayedLayer struct {
	d delayed.Delayed[*nd.Array]
}

func (l *delayedLayer) inputs() []*Array { return nil }

func (l *delayedLayer) block(*Array, []int) graph.Node { return graph.Node{} }

func (l *delayedLayer) emit(c *collector, a *Array) error {
	g, err := l.d.Graph()
	if err != nil {
		return err
	}
	c.extra = append(c.extra, g)
	idx := make([]int, len(a.shape))
	return c.g.Set(a.Key(idx...), graph.Task(newOp(opCheck, checkP{Shape: a.shape, D: a.dtype}), graph.Ref(l.d.Key())))
}

// checkP checks that a delayed block has the promised shape and dtype.
type checkP struct {
	Shape []int    `json:"shape"`
	D     nd.DType `json:"dtype"`
}

const opCheck = "chunkarray.check"

func init() { register[checkP](opCheck) }

func (p checkP) run(_ context.Context, args []any) (any, error) {
	a, err := argArray(args[0], opCheck)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(a.Shape(), p.Shape) || a.DType() != p.DType() {
		return nil, &Error{Op: "from delayed", Shapes: [][]int{p.Shape, a.Shape()},
			Reason: fmt.Sprintf("promised %s, got %s", p.D, a.DType())}
	}
	return a, nil
}

func (p checkP) DType() nd.DType { return p.D }

// FromDelayed makes a one-block array of a delayed value whose shape and
// dtype are known in advance; a value that breaks the promise fails the
// computation with an error naming both.
func FromDelayed(d delayed.Delayed[*nd.Array], shape []int, dt nd.DType) *Array {
	if err := d.Err(); err != nil {
		return errArray(err)
	}
	ch := make([][]int, len(shape))
	for i, s := range shape {
		if s < 0 {
			return errorf("from delayed", [][]int{shape}, "negative dimension")
		}
		ch[i] = []int{s}
	}
	return newArray("from-delayed", slices.Clone(shape), ch, dt, &delayedLayer{d: d}, string(d.Key()), shape, int(dt))
}
