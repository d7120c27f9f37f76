package chunkarray

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

func init() {
	mustRegister(RegisterBlockFunc("test.require_double", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		return nd.Binary(nd.Add, b[0], b[0])
	}))
}

// requirements collects what the tasks of x's graph require
// (graph.Requirer), unfused so that every layer is a task of its own.
func requirements(t *testing.T, x *Array) []string {
	t.Helper()
	g, err := x.Graph(WithOptimize(false))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range g.Len() {
		if nd := g.At(i); nd.Kind == graph.KindTask {
			if r, ok := nd.Op.(graph.Requirer); ok {
				for _, n := range r.Requires() {
					if !slices.Contains(out, n) {
						out = append(out, n)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Tasks of a block function or a user reduction require them under the
// names their registries record (graph.RegisterRequirement, at package
// initialization here), so that a cluster places them only on workers
// that registered them; built-in reductions and elementwise work require
// nothing.
func TestTasksRequireUserFunctions(t *testing.T) {
	x := Arange(0, 24, 1, nd.Float64, 6)
	m := MapBlocks("test.require_double", BlockOpts{}, x)
	for _, tt := range []struct {
		name string
		a    *Array
		want []string
	}{
		{"map_blocks", m, []string{requireBlockFunc + "test.require_double"}},
		{"user reduction of map_blocks", Reduction(m, "test.sumsq", nil, ReductionOpts{}),
			[]string{requireBlockFunc + "test.require_double", requireReduction + "test.sumsq"}},
		{"built-in sum", x.Sum(), nil},
		{"elementwise", Add(x, x), nil},
	} {
		if got := requirements(t, tt.a); !slices.Equal(got, tt.want) {
			t.Errorf("%s requires %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, name := range []string{requireBlockFunc + "test.require_double", requireReduction + "test.sumsq"} {
		if has, atInit := graph.HasRequirement(name); !has || !atInit {
			t.Errorf("HasRequirement(%q) = %v, %v; want registered at init", name, has, atInit)
		}
	}
}
