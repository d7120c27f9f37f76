package udfbridge

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Tests of what a UDF sees inside a run (coordinates, the partition slice,
// aux data) and of the input dtype tiles are converted to.

func TestCoordinatesSliceAux(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	auxv := make([]float64, n)
	for i := range auxv {
		auxv[i] = float64(i*i) + 0.5
	}
	aux, _ := nd.FromSlice(auxv, nav...)
	for name, roi := range roiCases(n, nav[1], 9) {
		for _, P := range []int{1, 2, 7} {
			opts := []RunOption{WithPartitions(P)}
			if roi != nil {
				r, _ := nd.FromSlice(roi, n)
				opts = append(opts, WithROI(r))
			}
			res, err := Run(context.Background(), ds, []UDF{tCoords{aux: aux}}, opts...)
			if err != nil {
				t.Fatalf("%s/P%d: %v", name, P, err)
			}
			raw, _ := res[0].RawData("coords")
			sl, _ := res[0].RawData("slice")
			ax, _ := res[0].RawData("aux")
			cv, _ := nd.Values[int64](raw.Contiguous())
			sv, _ := nd.Values[int64](sl.Contiguous())
			av, _ := nd.Values[float64](ax.Contiguous())
			k := 0
			for i := 0; i < n; i++ { // argwhere(roi)
				if roi != nil && !roi[i] {
					continue
				}
				if cv[2*k] != int64(i/nav[1]) || cv[2*k+1] != int64(i%nav[1]) || sv[k] != int64(k) || av[k] != auxv[i] {
					t.Fatalf("%s/P%d: row %d: coords %v slice %d aux %v, want %d→(%d,%d) %d %v", name, P, k, cv[2*k:2*k+2], sv[k], av[k], i, i/nav[1], i%nav[1], k, auxv[i])
				}
				k++
			}
			if len(sv) != k {
				t.Fatalf("%s/P%d: %d rows, want %d", name, P, len(sv), k)
			}
			if _, err := res[0].Data("secret"); err == nil {
				t.Fatalf("private buffer returned")
			}
			// Data: fill 0 outside the ROI for integers; valid mask = ROI.
			d, _ := res[0].Data("slice")
			vm, _ := res[0].ValidMask("slice")
			dv, _ := nd.Values[int64](d.Contiguous())
			mv, _ := nd.Values[bool](vm)
			for i := 0; i < n; i++ {
				in := roi == nil || roi[i]
				if mv[i] != in || (!in && dv[i] != 0) {
					t.Fatalf("%s/P%d: data/mask at %d: %d %v", name, P, i, dv[i], mv[i])
				}
			}
		}
	}
}

func TestInputDType(t *testing.T) {
	for _, c := range []struct {
		data, pref, want nd.DType
	}{
		{nd.Uint16, nd.Invalid, nd.Float32},
		{nd.Int32, nd.Invalid, nd.Float64},
		{nd.Uint16, nd.Int16, nd.Int32},
		{nd.Uint16, UseNativeDType, nd.Uint16},
		{nd.Complex128, nd.Invalid, nd.Complex128},
	} {
		ds, err := NewMemoryDataset(coreData(t, c.data, []int{2, 2}, []int{2}, 1), 2)
		if err != nil {
			t.Fatal(err)
		}
		var u UDF = tNavSum{}
		if c.pref != nd.Invalid {
			u = tPref{c.pref}
		}
		res, err := Run(context.Background(), ds, []UDF{u})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := res[0].RawData("intensity")
		if d.DType() != c.want {
			t.Errorf("%v data, %v preferred: input %v, want %v", c.data, c.pref, d.DType(), c.want)
		}
	}
}

type tPref struct{ d nd.DType }

func (u tPref) Name() string                  { return "test.pref" }
func (u tPref) Params() ([]byte, error)       { return []byte{byte(u.d)}, nil }
func (u tPref) PreferredInputDType() nd.DType { return u.d }
func (u tPref) Buffers(m *Meta) ([]BufferDecl, error) {
	return tNavSum{}.Buffers(m)
}
func (u tPref) ProcessTile(c *Ctx, tile *nd.Array) error { return tNavSum{}.ProcessTile(c, tile) }

func init() {
	RegisterUDF("test.pref", func(b []byte) (UDF, error) { return tPref{nd.DType(b[0])}, nil })
}
