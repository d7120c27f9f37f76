package chunkarray

// The numpy-parity table of issue 13 ("Defects to fix"): every case of
// testdata/parity/cases.json (written by testdata/gen_parity.py with numpy
// 1.24) is evaluated with the chunkarray expression in parityExprs, as the
// conformance table's cases are (runLayouts: Sync and Threaded(2), fused
// and unfused, persisted, through JSON), over the conformance chunkings or
// over the chunkings the case names (zero-length chunks), and compared with
// numpy's result by compareGolden (integers exactly; float64 within 1e-12
// and float32 within 1e-5 of the element plus the largest finite magnitude;
// NaN equal to NaN; infinities exact).

import (
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

const parityDir = "testdata/parity"

// parityCase is a case's chunkarray expression and, when it needs
// particular chunkings, the layouts of its inputs (nil: the conformance
// chunkings).
type parityCase struct {
	expr    confExpr
	layouts []confLayout
}

func pc(expr confExpr) parityCase { return parityCase{expr: expr} }

var parityExprs = map[string]parityCase{
	// 1. advanced indexing: separated advanced indices go first
	"adv_at_slice_ints":          pc(func(in []*Array) *Array { return in[0].Index(At(0), All(), Ints(1, 2)) }),
	"adv_bools_ellipsis_at":      pc(func(in []*Array) *Array { return in[0].Index(All(), Bools(m9...), Ellipsis(), At(1)) }),
	"adv_ints_empty_ellipsis_at": pc(func(in []*Array) *Array { return in[0].Index(All(), Ints(0, 1), Ellipsis(), At(1)) }),
	"adv_at_newaxis_ints":        pc(func(in []*Array) *Array { return in[0].Index(At(0), NewAxis(), Ints(1, 2)) }),
	"adv_ints_newaxis_at":        pc(func(in []*Array) *Array { return in[0].Index(All(), Ints(0, 1), NewAxis(), At(1)) }),
	"adv_at_step_ints":           pc(func(in []*Array) *Array { return in[0].Index(At(-1), RangeStep(2, 7, 2), Ints(4, -5, 0)) }),
	"adv_ints_slice_at":          pc(func(in []*Array) *Array { return in[0].Index(Ints(6, 0, 3, 3), All(), At(4)) }),
	"adv_at_rev_bools":           pc(func(in []*Array) *Array { return in[0].Index(At(3), Step(-2), Bools(true, false, true, true, false)) }),
	"adv_at_slice_empty_ints":    pc(func(in []*Array) *Array { return in[0].Index(At(0), All(), Ints()) }),
	"adv_adjacent_at_ints":       pc(func(in []*Array) *Array { return in[0].Index(All(), At(0), Ints(1, 2)) }),
	"adv_adjacent_ints_at":       pc(func(in []*Array) *Array { return in[0].Index(Ints(1, 2), At(0)) }),
	"adv_adjacent_at_ints_at":    pc(func(in []*Array) *Array { return in[0].Index(At(1), Ints(4, 0, 4), At(2)) }),
	"adv_adjacent_slice_at_bools": pc(func(in []*Array) *Array {
		return in[0].Index(Range(2, 5), At(8), Bools(false, true, true, false, true))
	}),
}

var m9 = []bool{true, false, true, false, false, false, false, false, false}

func TestParity(t *testing.T) {
	inputs := map[string]*nd.Array{}
	for _, c := range loadCases(t, parityDir) {
		t.Run(c.Name, func(t *testing.T) {
			pcase, ok := parityExprs[c.Name]
			if !ok {
				t.Fatalf("no chunkarray expression for case %q", c.Name)
			}
			var in []*nd.Array
			for _, name := range c.Inputs {
				a, ok := inputs[name]
				if !ok {
					var err error
					if a, err = npy.ReadFile(filepath.Join(parityDir, "in_"+name+".npy")); err != nil {
						t.Fatal(err)
					}
					inputs[name] = a
				}
				in = append(in, a)
			}
			var want *nd.Array
			if c.Error == "" {
				var err error
				if want, err = npy.ReadFile(filepath.Join(parityDir, c.Name+".npy")); err != nil {
					t.Fatal(err)
				}
			}
			layouts := pcase.layouts
			if layouts == nil {
				layouts = confLayouts(in)
			}
			if failure := runLayouts(c, pcase.expr, in, want, layouts); failure != "" {
				t.Error(failure)
			}
		})
	}
}

// TestParityGoldensCurrent checks that testdata/parity is what
// gen_parity.py writes now (see TestConformanceGoldensCurrent).
func TestParityGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity.py", parityDir)
}

// TestParityExprsHaveCases keeps the expression table and the manifest in
// step.
func TestParityExprsHaveCases(t *testing.T) {
	names := map[string]bool{}
	for _, c := range loadCases(t, parityDir) {
		names[c.Name] = true
	}
	for name := range parityExprs {
		if !names[name] {
			t.Errorf("expression %q has no case in %s/cases.json", name, parityDir)
		}
	}
}
