//go:build cuda && cgo

package cudaops

import (
	_ "embed"
	"fmt"
	"runtime"
	"sync"

	"gorgonia.org/cu"
)

//go:embed kernels/kernels.ptx
var kernelsPTX string

// kernelNames are the entry points of kernels.ptx that Open resolves.
var kernelNames = []string{
	"binary_f32", "binary_f64", "scalar_f32", "scalar_f64",
	"colsum_partial_f32", "colsum_partial_f64", "colsum_final_f32", "colsum_final_f64",
	"rowsum_f32", "rowsum_f64", "maskdot_f32", "maskdot_f64",
	"reduce_f32", "reduce_f64",
}

// Device is one GPU: its primary context, one stream, and the kernels.
// All CUDA calls run on one goroutine locked to an OS thread (contexts are
// per thread), in the order the methods are called; a Device is safe for
// concurrent use. Close it when done.
type Device struct {
	ordinal int
	name    string
	sms     int // multiprocessors, for grid sizes

	mu     sync.Mutex // guards closed and sends on work
	closed bool
	work   chan func()

	// Owned by the device goroutine.
	dev    cu.Device
	ctx    cu.CUContext
	stream cu.Stream
	mod    cu.Module
	fns    map[string]cu.Function
	blas   blasHandle // cublas_cuda.go; zero without the cublas tag
	live   map[cu.DevicePtr]struct{}
}

// Count returns the number of CUDA devices.
func Count() (int, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return 0, &Error{Op: "Count", Err: err}
	}
	return n, nil
}

// Open opens device ordinal (0 is the first): retains its primary context,
// creates a stream, loads the kernels (the driver JIT-compiles the PTX for
// the device) and, in a cublas build, a cuBLAS handle.
func Open(ordinal int) (*Device, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, &Error{Op: "Open", Err: err}
	}
	if ordinal < 0 || ordinal >= n {
		return nil, errorf("Open", "device %d of %d", ordinal, n)
	}
	d := &Device{ordinal: ordinal, work: make(chan func()), live: map[cu.DevicePtr]struct{}{}}
	ready := make(chan error)
	go d.loop(ready)
	if err := <-ready; err != nil {
		return nil, &Error{Op: "Open", Err: err}
	}
	return d, nil
}

// loop is the device goroutine: it sets the context up on its locked
// thread, reports on ready, then runs work until Close closes the channel.
func (d *Device) loop(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.setup(); err != nil {
		d.teardown()
		ready <- err
		return
	}
	ready <- nil
	for f := range d.work {
		f()
	}
}

func (d *Device) setup() (err error) {
	if d.dev, err = cu.GetDevice(d.ordinal); err != nil {
		return err
	}
	if d.name, err = d.dev.Name(); err != nil {
		return err
	}
	if d.sms, err = d.dev.Attribute(cu.MultiprocessorCount); err != nil {
		return err
	}
	if d.ctx, err = d.dev.RetainPrimaryCtx(); err != nil {
		return err
	}
	if err = cu.SetCurrentContext(d.ctx); err != nil {
		return err
	}
	if d.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		return err
	}
	if d.mod, err = cu.LoadData(kernelsPTX); err != nil {
		return fmt.Errorf("loading kernels.ptx: %w", err)
	}
	d.fns = make(map[string]cu.Function, len(kernelNames))
	for _, name := range kernelNames {
		f, err := d.mod.Function(name)
		if err != nil {
			return fmt.Errorf("kernel %s: %w", name, err)
		}
		d.fns[name] = f
	}
	return d.blasSetup()
}

// teardown releases what setup made, in reverse; on the device goroutine.
func (d *Device) teardown() error {
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if d.stream != (cu.Stream{}) {
		keep(d.stream.Synchronize())
	}
	keep(d.blasTeardown())
	for p := range d.live {
		keep(cu.MemFree(p))
	}
	clear(d.live)
	if d.mod != (cu.Module{}) {
		keep(d.mod.Unload())
	}
	if d.stream != (cu.Stream{}) {
		keep(d.stream.Destroy())
	}
	if d.ctx != (cu.CUContext{}) {
		keep(d.dev.ReleasePrimaryCtx())
	}
	return first
}

// do runs f on the device goroutine and returns its error; op names the
// operation in errors.
func (d *Device) do(op string, f func() error) error {
	if d == nil {
		return errorf(op, "nil Device")
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errorf(op, "device %d is closed", d.ordinal)
	}
	done := make(chan error, 1)
	d.work <- func() { done <- f() }
	d.mu.Unlock()
	if err := <-done; err != nil {
		if _, ok := err.(*Error); ok {
			return err
		}
		return &Error{Op: op, Err: err}
	}
	return nil
}

// Close waits for the device's work, frees every Array still allocated,
// and releases the context. Closing twice is a no-op.
func (d *Device) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	done := make(chan error, 1)
	d.work <- func() { done <- d.teardown() }
	close(d.work)
	d.mu.Unlock()
	if err := <-done; err != nil {
		return &Error{Op: "Close", Err: err}
	}
	return nil
}

// Name is the device's name, e.g. "NVIDIA H100 80GB HBM3".
func (d *Device) Name() string { return d.name }

// Ordinal is the device's index, as given to Open.
func (d *Device) Ordinal() int { return d.ordinal }

// Synchronize waits until the device's stream is idle and returns the
// first error of the kernels launched before.
func (d *Device) Synchronize() error {
	return d.do("Synchronize", func() error { return d.stream.Synchronize() })
}

// MemInfo returns the device's free and total memory in bytes.
func (d *Device) MemInfo() (free, total int64, err error) {
	err = d.do("MemInfo", func() (e error) { free, total, e = cu.MemInfo(); return e })
	return free, total, err
}

// peakBandwidth is the device's theoretical memory bandwidth in bytes/s:
// memory clock (kHz) × 2 (double data rate) × bus width (bits) / 8, the
// figure the benchmarks compare with.
func (d *Device) peakBandwidth() (float64, error) {
	clock, err := d.dev.Attribute(cu.MemoryClockRate)
	if err != nil {
		return 0, err
	}
	width, err := d.dev.Attribute(cu.GlobalMemoryBusWidth)
	if err != nil {
		return 0, err
	}
	return float64(clock) * 1e3 * 2 * float64(width) / 8, nil
}
