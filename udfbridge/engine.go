package udfbridge

// The run's info that every task knows, the UDFs rebuilt and validated
// from it, and their buffers allocated. plan.go plans a run and builds its
// graph, task.go is the partition task, merge.go the merges, results.go
// get_results, wire.go what crosses processes.

import (
	"fmt"
	"sync"

	"github.com/tessera-go/tessera/nd"
)

// udfSpec names a UDF and its parameters: what a task rebuilds it from.
type udfSpec struct {
	Name   string
	Params []byte
}

// runInfo is what every task of a run knows: the dataset, the UDFs, the
// ROI and the tiling. It is encoded in the params of every op.
type runInfo struct {
	ds       Dataset
	Spec     DatasetSpec `json:"-"`
	UDFs     []udfSpec
	NavShape []int
	SigShape []int
	DType    nd.DType
	Input    nd.DType
	ROI      []bool // flat; nil: all
	Depth    int
	SigTile  []int
	Backend  Backend
	Merge    MergeStrategy

	once      sync.Once
	wireBytes []byte
	wireErr   error

	// extraReqs: what the UDFs require besides themselves (Requirer);
	// reqs, once made, everything every task of the run requires.
	extraReqs []string
	reqOnce   sync.Once
	reqs      []string
}

// requires lists the requirement names of the run's tasks
// (graph.Requirer): its UDFs, what they require, its dataset's kind (the
// spec that wire makes; a dataset without one, which cannot leave this
// process, requires no kind).
func (ri *runInfo) requires() []string {
	ri.reqOnce.Do(func() {
		_, _ = ri.wire()
		for _, s := range ri.UDFs {
			ri.reqs = append(ri.reqs, requireUDF+s.Name)
		}
		ri.reqs = append(ri.reqs, ri.extraReqs...)
		if ri.Spec.Kind != "" {
			ri.reqs = append(ri.reqs, requireDataset+ri.Spec.Kind)
		}
	})
	return ri.reqs
}

func (ri *runInfo) n() int { return shapeProd(ri.NavShape) }

// roiIndex returns the flat nav indices of the ROI frames in [a, b).
func (ri *runInfo) roiFrames(a, b int) []int {
	out := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		if ri.ROI == nil || ri.ROI[i] {
			out = append(out, i)
		}
	}
	return out
}

func (ri *runInfo) roiBefore(a int) int {
	if ri.ROI == nil {
		return a
	}
	k := 0
	for _, in := range ri.ROI[:a] {
		if in {
			k++
		}
	}
	return k
}

func (ri *runInfo) dataset() (Dataset, error) {
	if ri.ds != nil {
		return ri.ds, nil
	}
	ds, err := OpenSpec(ri.Spec)
	if err != nil {
		return nil, err
	}
	ri.ds = ds
	return ds, nil
}

func (ri *runInfo) mainMeta() *Meta {
	return &Meta{NavShape: ri.NavShape, SigShape: ri.SigShape, DatasetDType: ri.DType,
		InputDType: ri.Input, DeviceClass: "cpu", Backend: BackendCPU, ROI: ri.ROI, Partition: -1}
}

// built is one UDF rebuilt with its declarations.
type built struct {
	spec   udfSpec
	u      UDF
	decls  []BufferDecl
	method Method
}

func (b *built) decl(name string) (BufferDecl, bool) {
	for _, d := range b.decls {
		if d.Name == name {
			return d, true
		}
	}
	return BufferDecl{}, false
}

func (b *built) navOnly() bool {
	for _, d := range b.decls {
		if d.Use != UseResultOnly && d.Kind != Nav {
			return false
		}
	}
	return true
}

// build rebuilds and validates every UDF for meta m.
func (ri *runInfo) build(m *Meta) ([]*built, error) {
	out := make([]*built, len(ri.UDFs))
	for i, s := range ri.UDFs {
		u, err := NewUDF(s.Name, s.Params)
		if err != nil {
			return nil, err
		}
		b, err := validateUDF(u, s, m)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func validateUDF(u UDF, s udfSpec, m *Meta) (*built, error) {
	b := &built{spec: s, u: u}
	decls, err := u.Buffers(m)
	if err != nil {
		return nil, &UDFError{UDF: s.Name, Step: "buffers", Err: err}
	}
	seen := map[string]bool{}
	for _, d := range decls {
		switch {
		case d.Name == "":
			return nil, &UDFError{UDF: s.Name, Step: "buffers", Err: fmt.Errorf("a buffer has no name")}
		case seen[d.Name]:
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("declared twice")}
		case d.Kind < Nav || d.Kind > Single:
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("invalid kind %v", d.Kind)}
		case d.DType == ObjectDType || d.DType == BytesDType:
			what := "dtype=object"
			if d.DType == BytesDType {
				what = "dtype 'S1'"
			}
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("%s: %w", what, ErrUnsupportedDType)}
		case d.DType != nd.Invalid && !d.DType.Valid():
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("invalid dtype %v", d.DType)}
		}
		for _, e := range d.Extra {
			if e < 0 {
				return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("negative extra shape %v", d.Extra)}
			}
		}
		seen[d.Name] = true
	}
	b.decls = decls
	_, tp := u.(TileProcessor)
	_, fp := u.(FrameProcessor)
	_, pp := u.(PartitionProcessor)
	meth := MethodAuto
	if mc, ok := u.(MethodChooser); ok {
		meth = mc.Method(m)
	}
	switch meth {
	case MethodAuto:
		switch {
		case tp:
			meth = MethodTile
		case fp:
			meth = MethodFrame
		case pp:
			meth = MethodPartition
		default:
			return nil, &UDFError{UDF: s.Name, Step: "method", Err: fmt.Errorf("implements none of ProcessTile, ProcessFrame, ProcessPartition")}
		}
	case MethodTile, MethodFrame, MethodPartition:
		if (meth == MethodTile && !tp) || (meth == MethodFrame && !fp) || (meth == MethodPartition && !pp) {
			return nil, &UDFError{UDF: s.Name, Step: "method", Err: fmt.Errorf("chose process_%s but does not implement it", meth)}
		}
	default:
		return nil, &UDFError{UDF: s.Name, Step: "method", Err: fmt.Errorf("unknown method %d", meth)}
	}
	b.method = meth
	return b, nil
}

// alloc allocates zero-filled buffers (not result_only) for navLen nav rows.
func (ri *runInfo) alloc(b *built, navLen int) (map[string]*nd.Array, error) {
	out := map[string]*nd.Array{}
	for _, d := range b.decls {
		if d.Use == UseResultOnly {
			continue
		}
		a, err := nd.Zeros(d.dtype(), d.shape(navLen, ri.SigShape)...)
		if err != nil {
			return nil, &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
		}
		out[d.Name] = a
	}
	return out, nil
}

// chunk is the value of a partition task or a merge: the buffers of every
// UDF over the flat ROI-compressed nav rows [NavOrigin, NavOrigin+NavSize)
// (sig and single buffers whole), covering partitions [Lo, Hi). A node of
// the linear chain holds nav buffers over every row from NavOrigin on
// (the target preprocessed once), of which the first NavSize are merged.
type chunk struct {
	Lo, Hi             int
	NavOrigin, NavSize int
	Bufs               []map[string]*nd.Array
}

// with returns a copy of ri with other UDF specs and ROI (RunIter).
func (ri *runInfo) with(udfs []udfSpec, roi []bool) *runInfo {
	return &runInfo{ds: ri.ds, Spec: ri.Spec, UDFs: udfs, NavShape: ri.NavShape, SigShape: ri.SigShape,
		DType: ri.DType, Input: ri.Input, ROI: roi, Depth: ri.Depth, SigTile: ri.SigTile, Backend: ri.Backend, Merge: ri.Merge,
		extraReqs: ri.extraReqs}
}
