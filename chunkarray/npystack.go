package chunkarray

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// Stacks of .npy files, dask.array's to_npy_stack and from_npy_stack: a
// folder holding one .npy file per block along one axis (0.npy, 1.npy,
// ..., each block whole along the other axes) and a file named info, a
// Python pickle of the dict {"chunks": the chunks (a tuple of tuples of
// ints), "dtype": the numpy dtype, "axis": the axis}. The folders written
// here are read by Dask (the pickle is protocol 2, which every Python 3
// reads) and Dask's are read here (protocols 2 to 5; pickle.go reads the
// subset of opcodes such a dict uses, and builds no other Python object
// than numpy.dtype).

// npyStackInfo is the content of a stack's info file.
type npyStackInfo struct {
	Chunks [][]int
	DType  nd.DType
	Axis   int
}

const opNPYStackWrite = "chunkarray.npy-stack-write"

func init() { register[npyStackWriteP](opNPYStackWrite) }

// npyStackWriteP writes one block of a stack to the file i.npy of Dir and
// returns the bytes of its data. Args: the block, i.
type npyStackWriteP struct {
	Dir string   `json:"dir"`
	D   nd.DType `json:"dtype"`
}

func (p npyStackWriteP) run(_ context.Context, args []any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("%s: %d arguments, want 2", opNPYStackWrite, len(args))
	}
	b, err := argArray(args[0], opNPYStackWrite)
	if err != nil {
		return nil, err
	}
	i, err := argInts(args, 1, opNPYStackWrite)
	if err != nil {
		return nil, err
	}
	if len(i) != 1 || i[0] < 0 {
		return nil, fmt.Errorf("%s: file index %v", opNPYStackWrite, i)
	}
	if b.DType() != p.D {
		if b, err = b.AsType(p.D); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(p.Dir, fmt.Sprintf("%d.npy", i[0]))
	if err := graph.CheckPath("to npy stack", path); err != nil {
		return nil, err
	}
	if err := npy.WriteFile(path, b, false); err != nil {
		return nil, err
	}
	return int64(b.Nbytes()), nil
}

// ToNPYStack computes a into the folder dir as a stack of .npy files along
// axis, as dask.array.to_npy_stack: a is rechunked to be whole along the
// other axes, the folder is created when missing, its info file written,
// and each block's task writes its file i.npy (C order, little-endian) as
// soon as the block is computed. Existing files of those names are
// replaced; a failed computation leaves a partial stack.
func ToNPYStack(ctx context.Context, dir string, a *Array, axis int, opts ...Option) error {
	const name = "to npy stack"
	if a == nil {
		return &Error{Op: name, Reason: "nil Array"}
	}
	if err := a.Err(); err != nil {
		return err
	}
	if err := needKnown(name, a); err != nil { // unknown.go
		return err
	}
	if a.NDim() == 0 {
		return &Error{Op: name, Shapes: [][]int{a.shape}, Reason: "a 0-d array has no axis to stack along"}
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return err
	}
	chunks := make([][]int, a.NDim())
	for i, c := range a.chunks {
		if i == ax {
			chunks[i] = slices.Clone(c)
		} else {
			chunks[i] = []int{a.shape[i]}
		}
	}
	x := a.Rechunk(chunks)
	if err := x.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &Error{Op: name, Reason: "create folder " + dir, Err: err}
	}
	info := encodeNPYStackInfo(npyStackInfo{Chunks: chunks, DType: a.dtype, Axis: ax})
	if err := os.WriteFile(filepath.Join(dir, "info"), info, 0o644); err != nil {
		return &Error{Op: name, Reason: "write info", Err: err}
	}
	c := newConfig(opts)
	g, err := buildGraph([]*Array{x}, c.Optimize)
	if err != nil {
		return err
	}
	o := newOp(opNPYStackWrite, npyStackWriteP{Dir: dir, D: a.dtype})
	wname := "to-npy-stack-" + x.name
	refs := make([]graph.Arg, 0, x.NumTasks())
	forBlocks(x.NumBlocks(), func(idx []int) {
		if err != nil {
			return
		}
		k := graph.BlockKey(wname, idx...)
		err = g.Set(k, graph.Task(o, graph.Ref(x.Key(idx...)), graph.Lit([]int{idx[ax]})))
		refs = append(refs, graph.Ref(k))
	})
	if err != nil {
		return err
	}
	final := graph.Key("stored-" + wname)
	if err := g.Set(final, graph.Task(newOp(opStored, storedP{}), graph.List(refs...))); err != nil {
		return err
	}
	_, err = c.Run(ctx, g, []graph.Key{final})
	return err
}

// FromNPYStack returns the array stored as a stack of .npy files in the
// folder dir (dask.array.from_npy_stack's input, or ToNPYStack's), with
// the info file's chunks: one block per file, each read by its own task
// (FromNPY), joined along the stack's axis (zero-length blocks kept). The info file and the files'
// headers are read now; a file whose shape or dtype disagrees with the
// info is an error naming it.
func FromNPYStack(dir string) *Array {
	const name = "from npy stack"
	infoPath := filepath.Join(dir, "info")
	b, err := os.ReadFile(infoPath)
	if err != nil {
		return errArray(&Error{Op: name, Reason: "read " + infoPath, Err: err})
	}
	info, err := decodeNPYStackInfo(infoPath, b)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	n := len(info.Chunks)
	shape := make([]int, n)
	for i, c := range info.Chunks {
		for _, v := range c {
			shape[i] += v
		}
	}
	parts := make([]*Array, len(info.Chunks[info.Axis]))
	for i, c := range info.Chunks[info.Axis] {
		path := filepath.Join(dir, fmt.Sprintf("%d.npy", i))
		bshape := slices.Clone(shape)
		bshape[info.Axis] = c
		part := FromNPY(path, bshape)
		if err := part.Err(); err != nil {
			return errArray(err)
		}
		if !slices.Equal(part.shape, bshape) || part.dtype != info.DType {
			return errorf(name, [][]int{part.shape, bshape}, "%s holds %s %v; the info file says block %d is %s %v", path, part.dtype, part.shape, i, info.DType, bshape)
		}
		parts[i] = part
	}
	// Concatenate's layer, but keeping zero-length blocks (Concatenate
	// drops them): the chunks are the info file's, as Dask's.
	l := &concatLayer{ins: parts, axis: info.Axis}
	toks := []any{info.Axis, int(info.DType)}
	for i, p := range parts {
		l.src = append(l.src, [2]int{i, 0})
		toks = append(toks, p.name)
	}
	return newArray("from-npy-stack", shape, info.Chunks, info.DType, l, toks...)
}

// checkNPYStackInfo checks the decoded info: chunks of non-negative
// lengths, an axis among them.
func checkNPYStackInfo(file string, info npyStackInfo) error {
	if len(info.Chunks) == 0 {
		return &npy.Error{File: file, Reason: "info: no chunks (a 0-d array)"}
	}
	if info.Axis < 0 || info.Axis >= len(info.Chunks) {
		return &npy.Error{File: file, Reason: fmt.Sprintf("info: axis %d for %d axes", info.Axis, len(info.Chunks))}
	}
	for i, c := range info.Chunks {
		if len(c) == 0 {
			return &npy.Error{File: file, Reason: fmt.Sprintf("info: axis %d has no chunks", i)}
		}
		if i != info.Axis && len(c) != 1 {
			return &npy.Error{File: file, Reason: fmt.Sprintf("info: axis %d has %d chunks; a stack's blocks are whole but along axis %d", i, len(c), info.Axis)}
		}
		for _, v := range c {
			if v < 0 {
				return &npy.Error{File: file, Reason: fmt.Sprintf("info: chunk of length %d", v)}
			}
		}
	}
	return nil
}

// Label names the write tasks in Visualize, as Dask's to-npy-stack.
func (npyStackWriteP) Label() string { return "to-npy-stack" }
