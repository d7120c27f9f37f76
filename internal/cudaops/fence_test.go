//go:build !cuda || !cgo

package cudaops

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestFence calls every exported function and method of the build without
// CUDA, on nil and zero values: each returns ErrNoCUDA (wrapped or not) and
// none panics. TestAPIPairs checks that this list of names is the whole API.
func TestFence(t *testing.T) {
	var d *Device
	var a *Array
	x := nd.Scalar(float32(1))
	calls := map[string]func() error{
		"Count":              func() error { _, err := Count(); return err },
		"Open":               func() error { _, err := Open(0); return err },
		"Device.Close":       func() error { return d.Close() },
		"Device.Synchronize": func() error { return d.Synchronize() },
		"Device.MemInfo":     func() error { _, _, err := d.MemInfo(); return err },
		"Device.Alloc":       func() error { _, err := d.Alloc(nd.Float32, 2, 3); return err },
		"Device.Upload":      func() error { _, err := d.Upload(x); return err },
		"Array.CopyFrom":     func() error { return a.CopyFrom(x) },
		"Array.Download":     func() error { _, err := a.Download(); return err },
		"Array.Free":         func() error { return a.Free() },
		"Array.Rows":         func() error { _, err := a.Rows(0, 1); return err },
		"Shared":             func() error { _, err := Shared(0); return err },
		"Binary":             func() error { return Binary(nd.Add, a, a, a) },
		"BinaryScalar":       func() error { return BinaryScalar(nd.Mul, a, a, 2) },
		"ScalarBinary":       func() error { return ScalarBinary(nd.Sub, a, 2, a) },
		"SumOverNav":         func() error { return SumOverNav(a, a, 2, false) },
		"SumOverSig":         func() error { return SumOverSig(a, a, 2, true) },
		"MaskDot":            func() error { return MaskDot(a, a, a, 2, false) },
		"MaskDotKernel":      func() error { return MaskDotKernel(a, a, a, 2, false) },
		"Reduce":             func() error { _, err := Reduce(nd.Sum, a); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, ErrNoCUDA) {
				t.Errorf("%s = %v, want ErrNoCUDA", name, err)
			}
		})
	}
	// Accessors report nothing rather than fail.
	if d.Name() != "" || d.Ordinal() != -1 || HaveCUBLAS() {
		t.Errorf("Name %q, Ordinal %d, HaveCUBLAS %v: want \"\", -1, false", d.Name(), d.Ordinal(), HaveCUBLAS())
	}
	if a.Device() != nil || a.DType() != nd.Invalid || a.Shape() != nil || a.Size() != 0 || a.Nbytes() != 0 {
		t.Error("accessors of an Array without CUDA are not zero")
	}
	// Every error-returning entry point is in calls: TestAPIPairs lists the
	// API from the source; compare the two here.
	api := exportedAPI(t, nil)
	for sig := range api {
		name := sig.name()
		if sig.sig == "type" || sig.recv == "Error" {
			continue
		}
		if _, ok := calls[name]; !ok && !accessor[name] {
			t.Errorf("%s is not called by TestFence", name)
		}
	}
	if ErrNoCUDA.Error() != "no CUDA in this build" {
		t.Errorf("ErrNoCUDA = %q", ErrNoCUDA)
	}
}

// accessor lists the exported functions without an error result.
var accessor = map[string]bool{
	"HaveCUBLAS": true, "KernelDType": true, "Device.Name": true, "Device.Ordinal": true,
	"Array.Device": true, "Array.DType": true, "Array.Shape": true, "Array.Size": true, "Array.Nbytes": true,
}
