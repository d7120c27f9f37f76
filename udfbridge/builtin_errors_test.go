package udfbridge

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Bad input to the built-ins: an error naming the UDF, never a panic, no
// result.
func TestBuiltinErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cdata, _, err := makeData(rng, nd.Complex128, []int{2, 3}, []int{4, 4})
	if err != nil {
		t.Fatal(err)
	}
	fdata, _, err := makeData(rng, nd.Float32, []int{2, 3}, []int{4, 4})
	if err != nil {
		t.Fatal(err)
	}
	wrongSig, _ := nd.Zeros(nd.Float32, 2, 4, 5)
	masks5, err := DenseMasks(wrongSig, []int{4, 5})
	if err != nil {
		t.Fatal(err)
	}
	panics := Map(func(*nd.Array) (*nd.Array, error) { panic("boom") })
	tests := []struct {
		name string
		data *nd.Array
		udf  UDF
		want string
	}{
		{"logsum-complex", cdata, &LogsumUDF{}, "LogsumUDF"},
		{"masks-wrong-sig", fdata, ApplyMasks(masks5), "ApplyMasksUDF"},
		{"masks-nil", fdata, ApplyMasks(nil), "ApplyMasksUDF"},
		{"pick-outside", fdata, Pick(2, 0), "PickUDF"},
		{"pick-too-many-axes", fdata, Pick(0, 0, 0), "PickUDF"},
		{"auto-panics", fdata, panics, "AutoUDF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := &testDS{a: tc.data, nav: []int{2, 3}, sig: []int{4, 4}}
			res, err := Run(context.Background(), ds, []UDF{tc.udf}, WithScheduler(sched.Sync{}), WithPartitions(2))
			if err == nil {
				t.Fatalf("no error, results %v", res)
			}
			if res != nil {
				t.Errorf("results %v beside the error", res)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s", err, tc.want)
			}
		})
	}
}

func TestMasksConstructorErrors(t *testing.T) {
	vals, _ := nd.FromSlice([]float32{1, 2}, 2)
	for name, f := range map[string]func() error{
		"dense-shape":    func() error { z, _ := nd.Zeros(nd.Float32, 3, 4); _, err := DenseMasks(z, []int{4, 4}); return err },
		"dense-nil":      func() error { _, err := DenseMasks(nil, []int{4, 4}); return err },
		"csr-indptr":     func() error { _, err := SparseMasks([]int{4, 4}, []int{0, 3}, []int{1, 2}, vals); return err },
		"csr-index":      func() error { _, err := SparseMasks([]int{4, 4}, []int{0, 2}, []int{1, 16}, vals); return err },
		"csr-values":     func() error { _, err := SparseMasks([]int{4, 4}, []int{0, 1}, []int{1}, vals); return err },
		"csr-decreasing": func() error { _, err := SparseMasks([]int{4, 4}, []int{0, 2, 1, 2}, []int{1, 2}, vals); return err },
		"map-unknown":    func() error { _, err := MapNamed("no such function"); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "ApplyMasks") && !strings.Contains(err.Error(), "AutoUDF") {
			t.Errorf("%s: error %q names no UDF", name, err)
		}
	}
}

// Every built-in rebuilds from its registered name and parameters, as a
// task does.
func TestBuiltinParamsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	dense, sparse, _, err := builtinMasks(rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []UDF{&SumUDF{}, &SumMergeAllUDF{}, &SumSigUDF{}, &StdDevUDF{}, ApplyMasks(dense), ApplyMasks(sparse),
		Pick(1, 2), &MaxUDF{}, &MinUDF{}, &LogsumUDF{}, Map(autoFunc)} {
		p, err := u.Params()
		if err != nil {
			t.Fatalf("%s: %v", u.Name(), err)
		}
		v, err := NewUDF(u.Name(), p)
		if err != nil {
			t.Fatalf("%s: %v", u.Name(), err)
		}
		q, err := v.Params()
		if err != nil || string(p) != string(q) || v.Name() != u.Name() {
			t.Errorf("%s: params %q rebuilt as %s %q (%v)", u.Name(), p, v.Name(), q, err)
		}
	}
}
