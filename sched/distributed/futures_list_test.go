package distributed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/sched/schedtest"
)

// Futures inside list arguments are resolved, as Dask's submit unpacks
// lists of futures: the op gets the values, the workers fetch them; a
// Future inside a map is refused with an error saying so.
func TestFuturesInLists(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, InProcess: true, Quiet: true})
	cl := c.Client()
	ctx := context.Background()
	a := cl.Submit(ctx, schedtest.Inc, 1) // 2
	b := cl.Submit(ctx, schedtest.Inc, 2) // 3
	for _, tc := range []struct {
		name string
		arg  any
		want int
	}{
		{"[]*Future", []*Future{a, b}, 5},
		{"[]any", []any{a, 10, b}, 15},
	} {
		v, err := cl.Submit(ctx, schedtest.SumList, tc.arg).Result(ctx)
		if err != nil || v != tc.want {
			t.Errorf("%s: SumList = %v, %v; want %d", tc.name, v, err, tc.want)
		}
	}
	// Nested: Tuple of a list holding a list with a Future.
	v, err := cl.Submit(ctx, schedtest.Tuple, []any{[]any{a}, 7}).Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	outer, _ := v.([]any)
	if len(outer) != 1 {
		t.Fatalf("Tuple([[a], 7]) = %v", v)
	}
	list, _ := outer[0].([]any)
	inner, _ := list[0].([]any)
	if len(list) != 2 || !slices.Equal(inner, []any{2}) || list[1] != 7 {
		t.Errorf("Tuple([[a], 7]) = %#v, want [[[2] 7]]", v)
	}
	// The same list submitted twice is one key.
	if k1, k2 := cl.Submit(ctx, schedtest.SumList, []*Future{a, b}).Key(), cl.Submit(ctx, schedtest.SumList, []any{a, b}).Key(); k1 != k2 {
		t.Errorf("keys of the same list of Futures differ: %s, %s", k1, k2)
	}
	err = cl.Submit(ctx, schedtest.Tuple, map[string]any{"x": a}).Err()
	if err == nil || !strings.Contains(err.Error(), "map") {
		t.Errorf("a Future in a map: Err = %v, want an error saying maps are not resolved", err)
	}
}

// WithKey names one task: a Map of several with it is refused.
func TestMapWithKeyRefused(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, InProcess: true, Quiet: true})
	fs := c.Client().Map(context.Background(), schedtest.Inc, [][]any{{1}, {2}}, WithKey("mk"))
	for i, f := range fs {
		if err := f.Err(); err == nil || !strings.Contains(err.Error(), "WithKey") {
			t.Errorf("Future %d: Err = %v, want an error naming WithKey", i, err)
		}
	}
	if v, err := c.Client().Map(context.Background(), schedtest.Inc, [][]any{{1}}, WithKey("one"))[0].Result(context.Background()); err != nil || v != 2 {
		t.Errorf("Map of one with WithKey = %v, %v; want 2", v, err)
	}
}

// Options that cannot be meant are refused at once, naming the option.
func TestSubmitOptionsChecked(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, InProcess: true, Quiet: true})
	ctx := context.Background()
	for _, tc := range []struct {
		opt  SubmitOption
		want string
	}{
		{Retries(-5), "Retries(-5)"},
		{Workers("w", ""), "empty worker name"},
		{Resources(map[string]float64{"": 1}), "empty name"},
	} {
		if err := c.Client().SubmitWith(ctx, []SubmitOption{tc.opt}, schedtest.Inc, 1).Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Err = %v, want an error with %q", err, tc.want)
		}
		g, keys := pidGraph(t, "opt", 1)
		if _, err := c.Get(WithOptions(ctx, tc.opt), g, keys); !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("Get under the option = %v, want an error with %q", err, tc.want)
		}
	}
}
