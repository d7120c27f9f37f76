package distributed

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// randomDefs returns n TaskDefs with distinct keys of 1 to 300 bytes,
// nodes of 0 to 100 bytes and a few of 300 KiB and 1.5 MiB (a chunk of
// their own), dependencies on earlier tasks, priorities equal to the
// index before task prioFrom and random after it (never, for prioFrom <
// 0), and resources on some tasks from resFrom on (none for resFrom < 0):
// two signatures, in maps that are equal but not the same.
func randomDefs(r *rand.Rand, n, prioFrom, resFrom int) []*pb.TaskDef {
	defs := make([]*pb.TaskDef, n)
	for i := range defs {
		d := &pb.TaskDef{Key: fmt.Sprintf("k%d-%s", i, strings.Repeat("x", r.IntN(300))), Priority: int64(i)}
		size := r.IntN(101)
		switch r.IntN(50) {
		case 0:
			size = 300 << 10
		case 1:
			size = 3 << 19
		}
		d.Node = make([]byte, size)
		for k := range d.Node {
			d.Node[k] = byte(r.Uint32())
		}
		for range r.IntN(4) {
			if i > 0 {
				d.Deps = append(d.Deps, int32(r.IntN(i)))
			}
		}
		if prioFrom >= 0 && i >= prioFrom {
			d.Priority = r.Int64N(1000) - 500
		}
		if resFrom >= 0 && i >= resFrom && r.IntN(3) > 0 {
			d.Resources = map[string]float64{"GPU": float64(1 + r.IntN(2))}
		}
		defs[i] = d
	}
	return defs
}

// The flat task list gives back, for every task, what its TaskDef said,
// and finds every key; the oracle is the list of TaskDefs itself.
func TestTaskDefsKeepDefs(t *testing.T) {
	cases := []struct {
		name              string
		n                 int
		prioFrom, resFrom int
	}{
		{"empty", 0, -1, -1},
		{"one", 1, -1, -1},
		{"priorities are indices", 500, -1, -1},
		{"priorities from the start", 300, 0, -1},
		{"priorities from the middle", 300, 150, -1},
		{"resources from the start", 300, -1, 0},
		{"resources from the middle", 300, 100, 170},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(k), 7))
			defs := randomDefs(r, tc.n, tc.prioFrom, tc.resFrom)
			var d taskDefs
			for _, def := range defs {
				if err := d.add(def); err != nil {
					t.Fatal(err)
				}
			}
			if d.len() != len(defs) {
				t.Fatalf("len = %d, want %d", d.len(), len(defs))
			}
			if (d.prio == nil) != (tc.prioFrom < 0) {
				t.Errorf("priorities stored: %v, want %v", d.prio != nil, tc.prioFrom >= 0)
			}
			for i, def := range defs {
				i := int32(i)
				if got := d.key(i); got != def.Key {
					t.Fatalf("key(%d) = %.20q, want %.20q", i, got, def.Key)
				}
				node := d.node(i)
				if !bytes.Equal(node, def.Node) || cap(node) != len(node) {
					t.Fatalf("node(%d): %d bytes (cap %d), equal %v; want %d bytes, cap = len", i, len(node), cap(node), bytes.Equal(node, def.Node), len(def.Node))
				}
				if got := d.deps(i); !slices.Equal(got, def.Deps) {
					t.Fatalf("deps(%d) = %v, want %v", i, got, def.Deps)
				}
				if got := d.priority(i); got != def.Priority {
					t.Fatalf("priority(%d) = %d, want %d", i, got, def.Priority)
				}
				if got := d.resources(i); !maps.Equal(got, def.Resources) {
					t.Fatalf("resources(%d) = %v, want %v", i, got, def.Resources)
				}
			}
			d.initIndex()
			for i := range int32(len(defs)) {
				if prev, dup := d.insert(i); dup {
					t.Fatalf("insert(%d): duplicate of %d", i, prev)
				}
			}
			for i, def := range defs {
				if got, ok := d.find(def.Key); !ok || got != int32(i) {
					t.Fatalf("find(%.20q) = %d, %v; want %d", def.Key, got, ok, i)
				}
				if _, ok := d.find(def.Key + "?"); ok {
					t.Fatalf("find(%.20q) found a key that is not there", def.Key+"?")
				}
			}
			if _, ok := d.find(""); ok {
				t.Errorf("find(\"\") found a key that is not there")
			}
		})
	}
}

// A key sent twice is found at insert, naming the first task with it.
func TestTaskDefsDuplicate(t *testing.T) {
	var d taskDefs
	for _, k := range []string{"a", "b", "", "c", "b"} {
		if err := d.add(&pb.TaskDef{Key: k}); err != nil {
			t.Fatal(err)
		}
	}
	d.initIndex()
	for i := range int32(4) {
		if prev, dup := d.insert(i); dup {
			t.Fatalf("insert(%d): duplicate of %d", i, prev)
		}
	}
	if prev, dup := d.insert(4); !dup || prev != 1 {
		t.Errorf("insert(4) = %d, %v; want 1, true", prev, dup)
	}
	if i, ok := d.find(""); !ok || i != 2 {
		t.Errorf("find(\"\") = %d, %v; want 2, true", i, ok)
	}
}
