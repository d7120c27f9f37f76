package nd

import (
	"fmt"
	"slices"
	"strings"
)

// Einstein summation. A subscripts string ("ij,jk->ik", "ii", "...j,j")
// is parsed once into an EinsumSpec: every letter (and every axis an
// ellipsis stands for) becomes a label number; the output lists labels,
// the operands' axes list labels, and the labels missing from the output
// are summed over. Einsum then runs one loop over all labels, output
// labels outermost, with each operand's offset advanced by the sum of its
// strides for the label (a label repeated within one operand is its
// diagonal). Products are accumulated in int64, uint64 (bool as 0/1:
// "any of the ands"), float64 or complex128 and cast to numpy's result
// type, which is the operands' ResultType: int8 wraps as numpy's int8 loop
// does, float32 is rounded once at the end (numpy accumulates in float32,
// so float32 results agree to float32 precision, not bit for bit).
//
// Rejected: contracting pairwise through Tensordot (numpy's optimize=True)
// needs a contraction order search and transposes, and cannot do
// diagonals; the single loop is what numpy's optimize=False does.

// EinsumSpec is a parsed subscripts string for operands of given ranks.
type EinsumSpec struct {
	// In lists, per operand, the label of each axis.
	In [][]int
	// Out lists the labels of the output's axes.
	Out []int
	// NLabels is the number of distinct labels.
	NLabels int
	// Names holds each label's letter; axes of an ellipsis have 0.
	Names []rune
}

// ParseEinsum parses subscripts for operands of ranks ndims, as
// numpy.einsum: explicit ("ij,jk->ik") or implicit ("ij,jk": the letters
// that appear once, in alphabetical order, uppercase first) output, and
// "..." for the axes not named (broadcast across operands, first in an
// implicit output).
func ParseEinsum(subscripts string, ndims []int) (*EinsumSpec, error) {
	s := strings.ReplaceAll(subscripts, " ", "")
	inPart, outPart, explicit := strings.Cut(s, "->")
	if strings.Contains(outPart, "->") {
		return nil, einsumErr("subscripts %q have more than one '->'", subscripts)
	}
	terms := strings.Split(inPart, ",")
	if len(terms) != len(ndims) {
		return nil, einsumErr("%d operands for subscripts %q naming %d", len(ndims), subscripts, len(terms))
	}
	ell, err := ellipsisWidth(terms, ndims)
	if err != nil {
		return nil, err
	}
	p := einsumParser{spec: &EinsumSpec{In: make([][]int, len(terms))}, ids: map[rune]int{}, count: map[rune]int{}}
	p.labelInputs(terms, ndims, ell)
	if !explicit {
		p.implicitOut()
		return p.spec, nil
	}
	if err := p.explicitOut(outPart); err != nil {
		return nil, err
	}
	return p.spec, nil
}

func einsumErr(format string, args ...any) error {
	return &ShapeError{Op: "einsum", Reason: fmt.Sprintf(format, args...)}
}

// ellipsisWidth checks every term's letters and rank and returns the
// number of axes the widest ellipsis stands for (right aligned across
// operands, as numpy broadcasts them).
func ellipsisWidth(terms []string, ndims []int) (int, error) {
	ell := 0
	for i, t := range terms {
		before, after, ok := strings.Cut(t, "...")
		if ok && strings.Contains(after, "...") {
			return 0, einsumErr("operand %d: more than one ellipsis in %q", i, t)
		}
		letters := []rune(before + after)
		for _, r := range letters {
			if !isEinsumLetter(r) {
				return 0, einsumErr("invalid subscript %q in %q", string(r), t)
			}
		}
		n := len(letters)
		switch {
		case ok && n > ndims[i]:
			return 0, einsumErr("operand %d has %d axes, fewer than the %d subscripts of %q", i, ndims[i], n, t)
		case ok:
			ell = max(ell, ndims[i]-n)
		case n != ndims[i]:
			return 0, einsumErr("operand %d has %d axes, %q names %d", i, ndims[i], t, n)
		}
	}
	return ell, nil
}

// einsumParser numbers the labels of a spec as it reads the terms.
type einsumParser struct {
	spec   *EinsumSpec
	ids    map[rune]int // a letter's label
	count  map[rune]int // how many axes a letter names
	ellIDs []int        // the labels of the ellipsis axes
}

func (p *einsumParser) label(r rune) int {
	id, ok := p.ids[r]
	if !ok {
		id = p.spec.NLabels
		p.ids[r] = id
		p.spec.NLabels++
		p.spec.Names = append(p.spec.Names, r)
	}
	return id
}

// labelInputs gives the ellipsis axes the first ell labels, then every
// letter its own, and writes spec.In.
func (p *einsumParser) labelInputs(terms []string, ndims []int, ell int) {
	p.ellIDs = make([]int, ell)
	for k := range p.ellIDs {
		p.ellIDs[k] = p.spec.NLabels
		p.spec.NLabels++
		p.spec.Names = append(p.spec.Names, 0)
	}
	for i, t := range terms {
		before, after, hasEll := strings.Cut(t, "...")
		var ax []int
		for _, r := range before {
			ax = append(ax, p.label(r))
			p.count[r]++
		}
		if hasEll {
			k := ndims[i] - len([]rune(before)) - len([]rune(after))
			ax = append(ax, p.ellIDs[ell-k:]...)
		}
		for _, r := range after {
			ax = append(ax, p.label(r))
			p.count[r]++
		}
		p.spec.In[i] = ax
	}
}

// implicitOut is numpy's output without "->": the ellipsis axes, then
// the letters named once, alphabetically (uppercase first).
func (p *einsumParser) implicitOut() {
	p.spec.Out = slices.Clone(p.ellIDs)
	var once []rune
	for r, c := range p.count {
		if c == 1 {
			once = append(once, r)
		}
	}
	slices.Sort(once)
	for _, r := range once {
		p.spec.Out = append(p.spec.Out, p.ids[r])
	}
}

// explicitOut reads the output after "->".
func (p *einsumParser) explicitOut(outPart string) error {
	before, after, ok := strings.Cut(outPart, "...")
	if ok && strings.Contains(after, "...") {
		return einsumErr("output %q has more than one ellipsis", outPart)
	}
	if !ok && len(p.ellIDs) > 0 {
		// numpy refuses ("output has more dimensions than subscripts
		// given in einstein sum, but no '...' ellipsis provided")
		return einsumErr("output subscripts %q have no ellipsis for the ellipsis of the inputs", outPart)
	}
	seen := map[rune]bool{}
	add := func(part string) error {
		for _, r := range part {
			if !isEinsumLetter(r) {
				return einsumErr("invalid output subscript %q", string(r))
			}
			if seen[r] {
				return einsumErr("output subscript %q appears more than once", string(r))
			}
			seen[r] = true
			id, ok := p.ids[r]
			if !ok {
				return einsumErr("output subscript %q does not appear in the inputs", string(r))
			}
			p.spec.Out = append(p.spec.Out, id)
		}
		return nil
	}
	if err := add(before); err != nil {
		return err
	}
	if ok {
		p.spec.Out = append(p.spec.Out, p.ellIDs...)
	}
	return add(after)
}

func isEinsumLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// Sizes returns every label's length for operands of the given shapes: the
// operands' lengths, of which those of 1 broadcast. A label repeated
// within one operand must have one length there.
func (s *EinsumSpec) Sizes(shapes [][]int) ([]int, error) {
	sizes := make([]int, s.NLabels)
	for i := range sizes {
		sizes[i] = -1
	}
	for i, ax := range s.In {
		for j, l := range ax {
			n := shapes[i][j]
			switch {
			case sizes[l] == -1 || sizes[l] == 1:
				if sizes[l] == 1 && n != 1 && s.repeatedIn(i, l) {
					return nil, &ShapeError{Op: "einsum", Shapes: shapes, Reason: fmt.Sprintf("dimensions in operand %d for collapsing index '%s' don't match (%d != %d)", i, s.name(l), sizes[l], n)}
				}
				sizes[l] = n
			case n == 1 && !s.repeatedIn(i, l):
			case n != sizes[l]:
				return nil, &ShapeError{Op: "einsum", Shapes: shapes, Reason: fmt.Sprintf("operands could not be broadcast together: subscript '%s' has lengths %d and %d", s.name(l), sizes[l], n)}
			}
		}
	}
	for i := range sizes {
		if sizes[i] < 0 { // named by no operand (not reached)
			sizes[i] = 1
		}
	}
	return sizes, nil
}

func (s *EinsumSpec) repeatedIn(op, l int) bool {
	n := 0
	for _, x := range s.In[op] {
		if x == l {
			n++
		}
	}
	return n > 1
}

func (s *EinsumSpec) name(l int) string {
	if s.Names[l] == 0 {
		return "..."
	}
	return string(s.Names[l])
}

// Einsum is numpy.einsum(subscripts, *operands) with optimize=False:
// see EinsumSpec for the method and the accumulation types.
func Einsum(subscripts string, operands ...*Array) (*Array, error) {
	if err := checkArrays("einsum", operands...); err != nil {
		return nil, err
	}
	nds := make([]int, len(operands))
	for i, a := range operands {
		nds[i] = a.NDim()
	}
	spec, err := ParseEinsum(subscripts, nds)
	if err != nil {
		return nil, err
	}
	return EinsumSpecOf(spec, operands...)
}

// EinsumSpecOf evaluates a parsed spec (Einsum after ParseEinsum).
func EinsumSpecOf(spec *EinsumSpec, operands ...*Array) (*Array, error) {
	return einsumEval(spec, operands, true)
}

// einsumEval is EinsumSpecOf; pair false keeps contractions off
// Tensordot (the tests' second code path).
func einsumEval(spec *EinsumSpec, operands []*Array, pair bool) (*Array, error) {
	if err := checkArrays("einsum", operands...); err != nil {
		return nil, err
	}
	if len(operands) != len(spec.In) || len(operands) == 0 {
		return nil, &ShapeError{Op: "einsum", Reason: fmt.Sprintf("%d operands for a spec of %d", len(operands), len(spec.In))}
	}
	shapes := make([][]int, len(operands))
	dts := make([]DType, len(operands))
	for i, a := range operands {
		shapes[i] = a.shape
		dts[i] = a.dtype
		if len(spec.In[i]) != a.NDim() {
			return nil, &ShapeError{Op: "einsum", Shapes: shapes, Reason: fmt.Sprintf("operand %d has %d axes, the spec names %d", i, a.NDim(), len(spec.In[i]))}
		}
	}
	sizes, err := spec.Sizes(shapes)
	if err != nil {
		return nil, err
	}
	dt := ResultType(dts...)
	if dt == Invalid {
		return nil, &ShapeError{Op: "einsum", Shapes: shapes, Reason: "operands have no common dtype"}
	}
	if pair {
		if r, ok, err := einsumPair(spec, operands); ok {
			return r, err
		}
	}
	acc := Int64
	switch {
	case dt.IsBool() || dt.IsUnsigned():
		acc = Uint64
	case dt.IsFloat():
		acc = Float64
	case dt.IsComplex():
		acc = Complex128
	}
	// order: output labels, then the summed ones
	order := slices.Clone(spec.Out)
	for l := range spec.NLabels {
		if !slices.Contains(spec.Out, l) {
			order = append(order, l)
		}
	}
	dims := make([]int, len(order))
	for k, l := range order {
		dims[k] = sizes[l]
	}
	outShape := make([]int, len(spec.Out))
	for k := range spec.Out {
		outShape[k] = dims[k]
	}
	strides := make([][]int, len(operands)) // per operand, per position in order
	conv := make([]*Array, len(operands))
	for i, a := range operands {
		c, err := a.AsType(acc)
		if err != nil {
			return nil, err
		}
		c = c.Contiguous()
		conv[i] = c
		st := make([]int, len(order))
		cs := CStrides(c.shape)
		for j, l := range spec.In[i] {
			if c.shape[j] == 1 && sizes[l] != 1 {
				continue // broadcast
			}
			st[slices.Index(order, l)] += cs[j]
		}
		strides[i] = st
	}
	out := alloc(acc, outShape)
	switch acc {
	case Int64:
		einsumLoop(values[int64](conv), strides, dims, len(outShape), out.data.([]int64))
	case Uint64:
		einsumLoop(values[uint64](conv), strides, dims, len(outShape), out.data.([]uint64))
	case Float64:
		einsumLoop(values[float64](conv), strides, dims, len(outShape), out.data.([]float64))
	case Complex128:
		einsumLoop(values[complex128](conv), strides, dims, len(outShape), out.data.([]complex128))
	}
	return out.AsType(dt)
}

// einsumPair evaluates a two-operand spec that is a tensor contraction
// (every label in both operands is summed, every other label is in the
// output, no label repeated within an operand, no broadcast) as Tensordot
// (gonum's gemm for floats and complex) and a transpose: numpy's
// optimize=True path for such specs. ok is false for other specs.
func einsumPair(spec *EinsumSpec, ops []*Array) (*Array, bool, error) {
	if len(ops) != 2 {
		return nil, false, nil
	}
	a, b := ops[0], ops[1]
	ia, ib := spec.In[0], spec.In[1]
	for _, in := range [][]int{ia, ib} {
		for j, l := range in {
			if slices.Contains(in[:j], l) {
				return nil, false, nil
			}
		}
	}
	var axA, axB []int
	var rest []int // labels of the Tensordot result's axes
	for j, l := range ia {
		k := slices.Index(ib, l)
		inOut := slices.Contains(spec.Out, l)
		switch {
		case k >= 0 && !inOut && a.shape[j] == b.shape[k]:
			axA, axB = append(axA, j), append(axB, k)
		case k < 0 && inOut:
			rest = append(rest, l)
		default:
			return nil, false, nil
		}
	}
	for _, l := range ib {
		if !slices.Contains(ia, l) {
			if !slices.Contains(spec.Out, l) {
				return nil, false, nil
			}
			rest = append(rest, l)
		}
	}
	td, err := Tensordot(a, b, axA, axB)
	if err != nil {
		return nil, true, err
	}
	perm := make([]int, len(spec.Out))
	for i, l := range spec.Out {
		perm[i] = slices.Index(rest, l)
	}
	r, err := td.Transpose(perm...)
	if err != nil {
		return nil, true, err
	}
	return r.Contiguous(), true, nil
}

func values[T Elem](as []*Array) [][]T {
	out := make([][]T, len(as))
	for i, a := range as {
		if a.Size() == 0 {
			continue // an empty view's offset may lie beyond its backing
		}
		out[i] = a.data.([]T)[a.offset:]
	}
	return out
}

// einsumLoop writes, for every output index (the first nout of dims, C
// order), the sum over the other dims of the product of the operands at
// their offsets. The last summed dim is a tight loop (specialised for one
// and two operands); the others advance an odometer. It allocates only
// its index and offset slices.
func einsumLoop[T int64 | uint64 | float64 | complex128](ops [][]T, strides [][]int, dims []int, nout int, out []T) {
	for _, d := range dims {
		if d == 0 {
			clear(out)
			return
		}
	}
	inner := dims[nout:]
	oidx := make([]int, nout)
	iidx := make([]int, len(inner))
	base := make([]int, len(ops))
	offs := make([]int, len(ops))
	tmp := make([]int, len(ops))
	nl, last := 1, len(dims)-1 // the tight loop's length and dim
	if len(inner) > 0 {
		nl = inner[len(inner)-1]
	}
	lstr := make([]int, len(ops))
	if len(inner) > 0 {
		for k := range ops {
			lstr[k] = strides[k][last]
		}
	}
	for o := range out {
		copy(offs, base)
		var sum T
		for {
			switch len(ops) {
			case 1:
				x, o0, s0 := ops[0], offs[0], lstr[0]
				for range nl {
					sum += x[o0]
					o0 += s0
				}
			case 2:
				x, y := ops[0], ops[1]
				o0, o1, s0, s1 := offs[0], offs[1], lstr[0], lstr[1]
				for range nl {
					sum += x[o0] * y[o1]
					o0 += s0
					o1 += s1
				}
			default:
				copy(tmp, offs)
				for range nl {
					p := ops[0][tmp[0]]
					tmp[0] += lstr[0]
					for k := 1; k < len(ops); k++ {
						p *= ops[k][tmp[k]]
						tmp[k] += lstr[k]
					}
					sum += p
				}
			}
			// the odometer over the summed dims but the last
			j := len(inner) - 2
			for ; j >= 0; j-- {
				iidx[j]++
				for k := range offs {
					offs[k] += strides[k][nout+j]
				}
				if iidx[j] < inner[j] {
					break
				}
				for k := range offs {
					offs[k] -= iidx[j] * strides[k][nout+j]
				}
				iidx[j] = 0
			}
			if j < 0 {
				break
			}
		}
		out[o] = sum
		for j := nout - 1; j >= 0; j-- {
			oidx[j]++
			for k := range base {
				base[k] += strides[k][j]
			}
			if oidx[j] < dims[j] {
				break
			}
			for k := range base {
				base[k] -= oidx[j] * strides[k][j]
			}
			oidx[j] = 0
		}
	}
}
