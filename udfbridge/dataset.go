package udfbridge

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Dataset is a 4-D (or n-D) detector dataset: nav dims × sig dims of one
// dtype. Frames are addressed along the flattened nav axis in C order, as
// LiberTEM does. Implementations read lazily: a run reads tile by tile and
// never loads the whole dataset.
type Dataset interface {
	// NavShape and SigShape return the nav and sig dimensions.
	NavShape() []int
	SigShape() []int
	// DType is the stored element type.
	DType() nd.DType
	// Read returns frames [start, start+n) of the flat nav axis, restricted
	// to the sig region starting at sigStart with shape sigShape (both nil:
	// the whole frame), as a new array of shape (n,)+sigShape in C order.
	// A read past the end, or a short file, is an error naming the dataset.
	Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error)
	// Spec describes the dataset so that a task running in another process
	// can reopen it with OpenSpec (a registered kind and its parameters).
	Spec() (DatasetSpec, error)
}

// DatasetSpec names a dataset kind and its encoded parameters.
type DatasetSpec struct {
	Kind   string
	Params []byte
}

// DatasetOpener reopens a dataset of one kind from its parameters.
type DatasetOpener func(params []byte) (Dataset, error)

var datasetKinds = struct {
	sync.RWMutex
	m map[string]DatasetOpener
}{m: map[string]DatasetOpener{}}

// RegisterDatasetKind records how to reopen datasets of a kind. Meant for
// init functions; it panics on a duplicate kind, a programmer error.
func RegisterDatasetKind(kind string, open DatasetOpener) {
	datasetKinds.Lock()
	defer datasetKinds.Unlock()
	if _, dup := datasetKinds.m[kind]; dup {
		panic("udfbridge: dataset kind " + kind + " registered twice")
	}
	datasetKinds.m[kind] = open
	graph.RegisterRequirement(requireDataset + kind)
}

// OpenSpec reopens a dataset from its spec.
func OpenSpec(s DatasetSpec) (Dataset, error) {
	datasetKinds.RLock()
	open, ok := datasetKinds.m[s.Kind]
	datasetKinds.RUnlock()
	if !ok {
		return nil, fmt.Errorf("udfbridge: unknown dataset kind %q (known: %v)", s.Kind, DatasetKinds())
	}
	return open(s.Params)
}

// DatasetKinds returns the registered dataset kinds, sorted.
func DatasetKinds() []string {
	datasetKinds.RLock()
	defer datasetKinds.RUnlock()
	out := make([]string, 0, len(datasetKinds.m))
	for k := range datasetKinds.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
