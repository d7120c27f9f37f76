package chunkarray

import (
	"math"
	"strings"

	"github.com/tessera-go/tessera/nd"
)

// Labels: the names under which pictures (package viz, through its
// optional Labeler interface) show the tasks of chunkarray's ops. One
// registered op covers many functions (every constant is "chunkarray.full",
// every elementwise expression "chunkarray.elemwise"); the label says
// which function a task runs, as Dask's pictures do: "ones", "max" and
// "max-aggregate", "truediv", "sin-mul", "rechunk-merge". Op names, and so
// the registry and encoded graphs, are unchanged.

// labeler is implemented by the parameter types whose tasks have a more
// telling label than the op's short name.
type labeler interface{ Label() string }

// Label is the picture label of the op's tasks (viz.Labeler): the
// parameters' Label, or the op name after its "chunkarray." prefix.
func (o *op[P]) Label() string {
	if l, ok := any(o.p).(labeler); ok {
		if s := l.Label(); s != "" {
			return s
		}
	}
	return o.name[strings.LastIndexByte(o.name, '.')+1:]
}

// Label: "zeros" or "ones" for those values, "full" otherwise.
func (p fullP) Label() string {
	one := p.V.Lo == 1
	if p.V.D.Kind() == 'f' || p.V.D.Kind() == 'c' {
		one = p.V.Lo == math.Float64bits(1)
	}
	switch {
	case p.V.Lo == 0 && p.V.Hi == 0:
		return "zeros"
	case one && p.V.Hi == 0:
		return "ones"
	}
	return "full"
}

// Label: numpy.random's function names, as Dask's keys.
func (p randomP) Label() string {
	switch p.Dist {
	case distNormal:
		return "normal"
	case distIntegers:
		return "randint"
	}
	if l := distLabel(p.Dist); l != "" {
		return l
	}
	return "random_sample"
}

// Label: "linspace" when the last element is pinned, "arange" otherwise.
func (p arangeP) Label() string {
	if p.Last >= 0 {
		return "linspace"
	}
	return "arange"
}

func (eyeP) Label() string       { return "eye" }
func (getitemP) Label() string   { return "getitem" }
func (transposeP) Label() string { return "transpose" }
func (reshapeP) Label() string   { return "reshape" }
func (npyReadP) Label() string   { return "from-npy" }
func (zarrReadP) Label() string  { return "from-zarr" }
func (storeP) Label() string     { return "store" }
func (storedP) Label() string    { return "store-done" }
func (checkP) Label() string     { return "from-delayed" }
func (finalizeP) Label() string  { return "finalize" }
func (p blockP) Label() string   { return p.Fn }
func (p overlapP) Label() string { return p.Fn }

// Label: "matmul" or "tensordot".
func (p contractP) Label() string {
	if p.Matmul {
		return "matmul"
	}
	return "tensordot"
}

// Label: a block assembled from several input blocks is a merge, one cut
// from a single input block a split, as Dask's rechunk-merge and
// rechunk-split tasks.
func (p rechunkP) Label() string {
	if p.Split {
		return "rechunk-split"
	}
	return "rechunk-merge"
}

// Label: the reduction's name for the per-block tasks ("sum", "max",
// "argmax"), "-partial" for the levels of the tree and "-aggregate" for
// its root, as Dask's "amax-partial" and "amax-aggregate".
func (p reduceP) Label() string {
	name := p.Op.String()
	if p.Kind == pkArg {
		name = p.ArgOp.String()
	}
	switch p.Stage {
	case stCombine:
		return name + "-partial"
	case stAgg:
		return name + "-aggregate"
	}
	return name
}

// Label: the fused expression's chain, then the reduction ("sin-mul-sum");
// the reduction alone when the input is a constant or random leaf.
func (p reduceFusedP) Label() string {
	if e := p.E.chain(false); e != "" {
		return e + "-" + p.R.Label()
	}
	return p.R.Label()
}

// Label: the ufuncs of the expression in evaluation order, without
// repeats ("truediv", "sin-mul"); a random or constant block alone is
// labelled by its function.
func (p elemP) Label() string { return p.chain(true) }

// maxChain bounds the number of names in an elementwise label; a longer
// chain keeps its first names and its last, joined by "…".
const maxChain = 4

// chain lists the expression's operations; leaves (random, constant)
// count only when withLeaves and the expression has no operation.
func (p *elemP) chain(withLeaves bool) string {
	var names []string
	seen := map[string]bool{}
	var leaf string
	for _, n := range p.Nodes {
		var s string
		switch n.K {
		case kBin:
			s = binaryLabel(nd.BinaryOp(n.Op))
		case kUn:
			s = unaryLabel(nd.UnaryOp(n.Op))
		case kWhere:
			s = "where"
		case kCast:
			s = "astype"
		case kRand:
			if leaf == "" && n.R != nil {
				leaf = n.R.Label()
			}
		case kFull:
			if leaf == "" {
				leaf = fullP{V: n.S}.Label()
			}
		case kZarr:
			if leaf == "" {
				leaf = zarrReadP{}.Label()
			}
		case kNPY:
			if leaf == "" {
				leaf = npyReadP{}.Label()
			}
		}
		if s != "" && !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		if withLeaves {
			return leaf
		}
		return ""
	}
	if len(names) > maxChain {
		names = append(names[:maxChain-1:maxChain-1], "…", names[len(names)-1])
	}
	return strings.Join(names, "-")
}

// binaryLabel is Python's operator name where there is one (Dask names
// x / y "truediv"), numpy's ufunc name otherwise.
func binaryLabel(op nd.BinaryOp) string {
	switch op {
	case nd.Add:
		return "add"
	case nd.Sub:
		return "sub"
	case nd.Mul:
		return "mul"
	case nd.Div:
		return "truediv"
	case nd.FloorDiv:
		return "floordiv"
	case nd.Mod:
		return "mod"
	case nd.Pow:
		return "pow"
	case nd.Equal:
		return "eq"
	case nd.NotEqual:
		return "ne"
	case nd.Less:
		return "lt"
	case nd.LessEqual:
		return "le"
	case nd.Greater:
		return "gt"
	case nd.GreaterEqual:
		return "ge"
	}
	return op.String()
}

// unaryLabel is Python's operator name for -x, numpy's ufunc name
// otherwise.
func unaryLabel(op nd.UnaryOp) string {
	if op == nd.Neg {
		return "neg"
	}
	return op.String()
}
