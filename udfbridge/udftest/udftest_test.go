package udftest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/udfbridge"
	"github.com/tessera-go/tessera/udfbridge/udftest"
)

// data returns values (7i+3) mod 251 of dt in shape.
func data(t *testing.T, dt nd.DType, shape ...int) *nd.Array {
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((7*i + 3) % 251)
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(dt); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMemoryDataset(t *testing.T) {
	for _, dt := range []nd.DType{nd.Uint16, nd.Float32, nd.Float64, nd.Complex64} {
		a := data(t, dt, 3, 5, 4, 6)
		ds, err := udfbridge.NewMemoryDataset(a, 2)
		if err != nil {
			t.Fatal(err)
		}
		udftest.CheckDataset(t, ds, a)
	}
}

func TestRawDataset(t *testing.T) {
	a := data(t, nd.Uint16, 4, 6, 5, 3)
	path := filepath.Join(t.TempDir(), "d.raw")
	if err := os.WriteFile(path, append(make([]byte, 16), a.AppendBytes(nil, false)...), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := udfbridge.OpenRaw(path, nd.Uint16, []int{4, 6}, []int{5, 3}, 16)
	if err != nil {
		t.Fatal(err)
	}
	udftest.CheckDataset(t, ds, a)
}

// A dataset that reads a wrong value is caught (the suite can fail).
func TestSuiteCatchesAWrongRead(t *testing.T) {
	a := data(t, nd.Float32, 2, 3, 4)
	ds, err := udfbridge.NewMemoryDataset(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := nd.Values[float32](a.Copy())
	if err != nil {
		t.Fatal(err)
	}
	v = append([]float32(nil), v...)
	v[5] = -1
	b, _ := nd.FromSlice(v, 2, 3, 4)
	ft := &fakeT{TB: t}
	func() {
		defer func() { recover() }()
		udftest.CheckDataset(ft, ds, b)
	}()
	if !ft.failed {
		t.Fatal("the suite passed a dataset whose content differs from data")
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Fatalf(string, ...any) { f.failed = true; panic("fatal") }
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Logf(string, ...any)   {}
