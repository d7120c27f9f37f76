package udfbridge

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

func TestMemoryDataset(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Uint16)
	spec, err := ds.Spec()
	if err != nil {
		t.Fatal(err)
	}
	back, err := OpenSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := ds.Read(ctx, 3, 5, []int{1, 1}, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := back.Read(ctx, 3, 5, []int{1, 1}, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	coreSame(t, "spec round trip", b, a)
	// Oracle: element [f, 1+i, 1+j] of the whole data.
	raw := c128(t, ds.Array())
	av := c128(t, a)
	for f := 0; f < 5; f++ {
		for i := 0; i < 3; i++ {
			for j := 0; j < 2; j++ {
				if av[f*6+i*2+j] != raw[(3+f)*15+(1+i)*3+(1+j)] {
					t.Fatalf("read [%d,%d,%d]", f, i, j)
				}
			}
		}
	}
	for _, bad := range []struct {
		start, n int
		st, sh   []int
	}{{20, 5, nil, nil}, {-1, 1, nil, nil}, {0, 1, []int{4, 0}, []int{2, 3}}, {0, 1, []int{0}, []int{1}}} {
		if _, err := ds.Read(ctx, bad.start, bad.n, bad.st, bad.sh); err == nil || !strings.Contains(err.Error(), "memory dataset") {
			t.Errorf("read %+v: error %v", bad, err)
		}
	}
	if _, err := OpenSpec(DatasetSpec{Kind: "memory", Params: []byte("junk")}); err == nil {
		t.Error("junk spec opened")
	}
	if _, err := NewMemoryDataset(ds.Array(), 4); err == nil {
		t.Error("no sig dims accepted")
	}
}

// tMasked sets a custom mask in get_results.
type tMasked struct{ tSigSum }

func (tMasked) Name() string { return "test.masked" }
func (tMasked) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	out, err := tSigSum{}.GetResults(c)
	if err != nil {
		return nil, err
	}
	sh := c.Buf("sum").Shape()
	m := make([]bool, sh[1])
	m[0] = true
	mask, _ := nd.FromSlice(m, sh[1]) // broadcast along the first sig axis
	return out, c.WithMask("sum", mask)
}

func init() { RegisterUDF("test.masked", func([]byte) (UDF, error) { return tMasked{}, nil }) }

func TestWithMask(t *testing.T) {
	ds, _, sig := coreMemDS(t, nd.Float32)
	res, err := Run(context.Background(), ds, []UDF{tMasked{}})
	if err != nil {
		t.Fatal(err)
	}
	d, valid, err := res[0].MaskedData("sum")
	if err != nil {
		t.Fatal(err)
	}
	full, _ := res[0].Data("sum")
	dv, fv, vv := c128(t, d), c128(t, full), c128(t, valid)
	for i := range dv {
		in := i%sig[1] == 0
		if (vv[i] != 0) != in || (in && dv[i] != fv[i]) || (!in && dv[i] == dv[i]) {
			t.Fatalf("masked[%d] = %v (valid %v, data %v)", i, dv[i], vv[i], fv[i])
		}
	}
}
