package cudaops

import "sync"

// shared holds the devices Shared opened, by ordinal.
var shared struct {
	sync.Mutex
	devs map[int]*Device
}

// Shared returns device ordinal opened once for the whole process and
// never closed: what udfbridge's CUDA partitions and chunkarray's device
// reductions use, so that a task does not pay for Open (retaining the
// context, JIT-compiling the PTX) each time. Close on it is the caller's
// mistake: later Shared calls would return the closed device. A failed
// Open is not remembered (the next call tries again). In a build without
// CUDA it returns ErrNoCUDA.
func Shared(ordinal int) (*Device, error) {
	shared.Lock()
	defer shared.Unlock()
	if d, ok := shared.devs[ordinal]; ok {
		return d, nil
	}
	d, err := Open(ordinal)
	if err != nil {
		return nil, err
	}
	if shared.devs == nil {
		shared.devs = map[int]*Device{}
	}
	shared.devs[ordinal] = d
	return d, nil
}
