package udfbridge

import (
	"errors"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/internal/cudaops"
)

// Backends, as LiberTEM's: a UDF lists the backends it supports
// (Backender; CPU only without it) and a run uses the CPU unless
// WithBackend names another. A CUDA run needs a build with CUDA (the cuda
// build tag, see internal/cudaops) and a device; its partition tasks carry
// the resource GPU=1, so that the distributed scheduler runs them only on
// workers that offer a GPU, and their meta says Backend BackendCUDA,
// DeviceClass "cuda". Merges and GetResults run on the main node with
// meta's CPU backend, as LiberTEM's do.
//
// Rejected: picking CUDA automatically whenever every UDF supports it.
// LiberTEM picks per worker; a tessera run does not know where its tasks
// will land when it builds the graph, and a CPU-only cluster given GPU=1
// tasks would wait for a worker that never comes.

// gpuResource is the resource a CUDA partition task asks its worker for.
const gpuResource = "GPU"

// cudaDevices is how the run asks whether CUDA is usable: the number of
// devices, or cudaops.ErrNoCUDA in a build without CUDA. A variable so
// that tests can stand in for a GPU.
var cudaDevices = cudaops.Count

// checkCUDA is nil when a CUDA run can start: a build with CUDA and at
// least one device.
func checkCUDA() error {
	n, err := cudaDevices()
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("no CUDA device")
	}
	return nil
}

// checkBackend is the error of running udf with backend want: unknown,
// unsupported by the UDF, or CUDA without CUDA in this build.
func checkBackend(name string, supports []Backend, want Backend) error {
	if want != BackendCPU && want != BackendCUDA {
		return &UDFError{UDF: name, Step: "backend", Err: fmt.Errorf("unknown backend %q (want %q or %q)", want, BackendCPU, BackendCUDA)}
	}
	found := false
	for _, b := range supports {
		found = found || b == want
	}
	if !found {
		return &UDFError{UDF: name, Step: "backend", Err: fmt.Errorf("supports %v, not %q", supports, want)}
	}
	if want == BackendCUDA {
		if err := checkCUDA(); err != nil {
			return &UDFError{UDF: name, Step: "backend", Err: fmt.Errorf("backend %q: %w", want, err)}
		}
	}
	return nil
}

// deviceClass is meta's DeviceClass for a backend.
func deviceClass(b Backend) string {
	if b == BackendCUDA {
		return "cuda"
	}
	return "cpu"
}

// partitionNode is the graph node of a partition task: GPU=1 for a CUDA run.
func partitionNode(op *partOp) graph.Node {
	n := graph.Task(op)
	if op.ri.Backend == BackendCUDA {
		n.Resources = map[string]float64{gpuResource: 1}
	}
	return n
}
