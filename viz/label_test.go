package viz_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/viz"
)

// labelledOp is one registered op whose tasks say which function they run.
type labelledOp struct{ fn string }

func (labelledOp) Name() string { return "vizt.generic" }

func (o labelledOp) Run(context.Context, []any) (any, error) { return o.fn, nil }

func (o labelledOp) Label() string { return o.fn }

var _ viz.Labeler = labelledOp{}

// TestLabeler: an op's Label replaces its short name, on its own task and
// as a nested (fused) argument of another; an empty Label falls back to
// the short name.
//
//	add            generic-ones-add  (optimized: the chain fused)
//	 |
//	""  (empty label: the short name, generic)
//	 |
//	ones
func TestLabeler(t *testing.T) {
	g := build([]entry{
		{"ones-00000000aaaaaaaa", graph.Task(labelledOp{"ones"}, graph.Lit(1))},
		{"blank-00000000bbbbbbbb", graph.Task(labelledOp{""}, graph.Ref("ones-00000000aaaaaaaa"))},
		{"add-00000000cccccccc", graph.Task(opAdd, graph.Ref("blank-00000000bbbbbbbb"), graph.Lit(1))},
	})
	for _, tc := range []struct {
		name string
		opts viz.Options
		want string
	}{
		{"raw", viz.Options{}, "[add generic ones]"},
		{"fused", viz.Options{Optimize: true, Keys: []graph.Key{"add-00000000cccccccc"}}, "[generic-ones-add]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, must(viz.DOT(g, tc.opts)))
			var labels []string
			for _, a := range p.nodes {
				if a["shape"] == "circle" {
					labels = append(labels, a["label"])
				}
			}
			sort.Strings(labels)
			if got := fmt.Sprint(labels); got != tc.want {
				t.Errorf("circles: got %s, want %s", got, tc.want)
			}
		})
	}
}
