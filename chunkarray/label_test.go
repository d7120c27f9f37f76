package chunkarray

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/viz"
)

// labels returns the distinct picture labels of the tasks of a's graph,
// sorted, as viz shows them (through viz.Labeler).
func labels(t *testing.T, a *Array, opts ...Option) []string {
	t.Helper()
	g, err := a.Graph(opts...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range g.Len() {
		n := g.At(i)
		if n.Kind != graph.KindTask {
			continue
		}
		l, ok := n.Op.(viz.Labeler)
		if !ok {
			t.Fatalf("op %s of %s is not a viz.Labeler", n.Op.Name(), g.Key(i))
		}
		if s := l.Label(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestLabels: tasks are labelled by the function they run, as in Dask's
// pictures, whatever the registry name of their op.
func TestLabels(t *testing.T) {
	ones := func() *Array { return Ones([]int{6, 6}, nd.Float64, 3) }
	rng := Random(1)
	for _, tc := range []struct {
		name  string
		a     *Array
		fused bool
		want  string
	}{
		{"ones", ones(), false, "[ones]"},
		{"zeros", Zeros([]int{4}, nd.Int32, 2), false, "[zeros]"},
		{"full", Full([]int{4}, 2.5, nd.Float64, 2), false, "[full]"},
		{"full-bool-true", Full([]int{4}, true, nd.Bool, 2), false, "[ones]"},
		{"arange", Arange(0, 10, 1, nd.Int64, 5), false, "[arange]"},
		{"linspace", Linspace(0, 1, 10, true, 5), false, "[linspace]"},
		{"eye", Eye(4, 4, 0, nd.Float64, 2), false, "[eye]"},
		{"random_sample", rng.Uniform(0, 1, []int{4}, 2), false, "[random_sample]"},
		{"normal", rng.Normal(0, 1, []int{4}, 2), false, "[normal]"},
		{"randint", rng.Integers(0, 5, []int{4}, 2), false, "[randint]"},
		{"truediv-unfused", ones().Div(ones().Max()), false, "[max max-aggregate ones truediv]"},
		{"truediv-fused", ones().Div(ones().Max()), true, "[max max-aggregate truediv]"},
		{"sin-mul-fused", ones().Index(All(), At(0)).Sin().Mul(rng.Uniform(0, 1, []int{6, 6}, 3).T()), true,
			"[random_sample sin-mul transpose]"},
		{"sum-fused-chain", rng.Uniform(0, 1, []int{6, 6}, 3).Add(1).Mul(2).Sum(), true, "[add-mul-sum sum-aggregate]"},
		{"sum-tree", Ones([]int{64}, nd.Float64, 2).Sum(), true, "[sum sum-aggregate sum-partial]"},
		{"mean", ones().Mean(), false, "[mean mean-aggregate ones]"},
		{"argmax", ones().ArgMax(0, false), false, "[argmax argmax-aggregate ones]"},
		{"rechunk-split", ones().Rechunk(1), false, "[ones rechunk-split]"},
		{"rechunk-merge", ones().Rechunk(6), false, "[ones rechunk-merge]"},
		{"reshape", ones().Reshape(36), false, "[ones rechunk-merge reshape]"},
		{"astype-where", Where(ones().Greater(0), ones(), 0).AsType(nd.Float32), true, "[gt-where-astype]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.a.Err(); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(labels(t, tc.a, WithOptimize(tc.fused))); got != tc.want {
				t.Errorf("labels: got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestLabelChainBound: a long chain keeps its first names and its last.
func TestLabelChainBound(t *testing.T) {
	x := Random(2).Uniform(0, 1, []int{4}, 2)
	y := x.Add(1).Mul(2).Sub(3).Sin().Cos().Exp()
	got := fmt.Sprint(labels(t, y, WithOptimize(true)))
	if want := "[add-mul-sub-…-exp]"; got != want {
		t.Errorf("labels: got %s, want %s", got, want)
	}
}

// TestVisualize: the picture of an array has its blocks as outputs and no
// finalize task, as dask.visualize(arr); by default every operation is a
// task of its own (optimize_graph=False), with viz.Options.Optimize the
// fused graph that Compute runs.
func TestVisualize(t *testing.T) {
	im := Ones([]int{3, 10, 10}, nd.Float64, []int{1, 6, 6})
	norm := im.Div(im.Max(1, 2).Index(All(), NewAxis(), NewAxis()))
	for _, tc := range []struct {
		name string
		vo   viz.Options
		opts []Option
		want string
	}{
		{"raw", viz.Options{}, nil, "[getitem max max-aggregate ones truediv]"},
		{"optimized", viz.Options{Optimize: true}, nil, "[max-aggregate-getitem ones-max ones-truediv]"},
		{"fused-not-optimized", viz.Options{}, []Option{WithOptimize(true)}, "[getitem max max-aggregate ones truediv]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "norm.dot")
			if err := norm.Visualize(context.Background(), path, tc.vo, tc.opts...); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("finalize")) {
				t.Errorf("picture has a finalize task:\n%s", b)
			}
			var got []string
			for _, m := range regexp.MustCompile(`label="([^"]*)",shape="circle"`).FindAllSubmatch(b, -1) {
				if s := string(m[1]); !slices.Contains(got, s) {
					got = append(got, s)
				}
			}
			slices.Sort(got)
			if fmt.Sprint(got) != tc.want {
				t.Errorf("circle labels: got %v, want %s", got, tc.want)
			}
			// Every block of norm is drawn as an output box.
			for _, k := range norm.Keys() {
				if !bytes.Contains(b, []byte(`tooltip="`+string(k)+`"`)) {
					t.Errorf("block %s is not drawn", k)
				}
			}
		})
	}
}

var updatePictures = flag.Bool("update-pictures", false, "rewrite the golden pictures in testdata/viz")

// TestPictureGolden: the seed's normalisation, small, drawn as
// dask.visualize draws it; byte-stable, compared with a golden file
// (rewrite with -update-pictures, and look at it with dot -Tpng).
func TestPictureGolden(t *testing.T) {
	im := Ones([]int{2, 4, 4}, nd.Float64, []int{1, 3, 3})
	norm := im.Div(im.Max(1, 2).Index(All(), NewAxis(), NewAxis()))
	for _, tc := range []struct {
		file string
		vo   viz.Options
	}{
		{"normalize.dot", viz.Options{}},
		{"normalize-optimized.dot", viz.Options{Optimize: true}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			g, err := norm.Graph(WithOptimize(tc.vo.Optimize))
			if err != nil {
				t.Fatal(err)
			}
			tc.vo.Keys = norm.Keys()
			got, err := viz.DOT(g, tc.vo)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "viz", tc.file)
			if *updatePictures {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update-pictures)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file; got:\n%s", path, got)
			}
			// Visualize writes the same bytes.
			out := filepath.Join(t.TempDir(), tc.file)
			if err := norm.Visualize(context.Background(), out, tc.vo); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(out); !bytes.Equal(b, want) {
				t.Errorf("Visualize wrote other bytes than the golden %s", path)
			}
		})
	}
}

// TestIndexNameDeterministic: the same selection built twice has the same
// name (pictures and graph merging rely on it); its token covers boolean
// masks too, which graph.Tokenize once refused, giving an impure name.
func TestIndexNameDeterministic(t *testing.T) {
	x := Ones([]int{4, 3}, nd.Float64, 2)
	for _, tc := range []struct {
		name string
		sel  func() *Array
	}{
		{"slice-newaxis", func() *Array { return x.Index(All(), NewAxis(), At(1)) }},
		{"ints", func() *Array { return x.Index(Ints(3, 0), All()) }},
		{"bools", func() *Array { return x.Index(Bools(true, false, true, true)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.sel(), tc.sel()
			if a.Err() != nil {
				t.Fatal(a.Err())
			}
			if a.Name() != b.Name() {
				t.Errorf("built twice: %s then %s", a.Name(), b.Name())
			}
		})
	}
}
