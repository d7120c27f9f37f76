package workloads

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// The scale group's delayed trees have 10^k - 1 tasks; the two smallest
// run here and give Σ_{i<n} (i+1), summed by a plain loop.
func TestScaleDelayed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tasks int
		run   bool
	}{
		{"scale_delayed_1e3", 999, true},
		{"scale_delayed_1e4", 9999, true},
		{"scale_delayed_1e5", 99999, false},
		{"scale_delayed_1e6", 999999, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if w.Tasks != tc.tasks {
				t.Errorf("Tasks = %d, want %d", w.Tasks, tc.tasks)
			}
			if !tc.run {
				return
			}
			g, keys, err := w.Build()
			if err != nil {
				t.Fatal(err)
			}
			tasks := 0
			for i := range g.Len() {
				if g.At(i).Kind == graph.KindTask {
					tasks++
				}
			}
			if tasks != tc.tasks {
				t.Errorf("graph has %d tasks, want %d", tasks, tc.tasks)
			}
			vals, err := sched.Threaded{}.Get(context.Background(), g, keys)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for i := range (tc.tasks + 1) / 2 {
				want += i + 1
			}
			if got, ok := vals[0].(int); !ok || got != want {
				t.Errorf("got %v, want %d", vals[0], want)
			}
			if err := w.Check(vals); err != nil {
				t.Error(err)
			}
			if err := w.Check([]any{want + 1}); err == nil {
				t.Errorf("Check accepts %d", want+1)
			}
		})
	}
}

// The randint workloads count their chunks: ceil(500/c)³.
func TestRandintChunks(t *testing.T) {
	for name, want := range map[string]int{
		"randint500^3_sum_chunks500": 1,
		"randint500^3_sum_chunks200": 27,
		"randint500^3_sum_chunks100": 125,
		"randint500^3_sum_chunks50":  1000,
		"randint500^3_sum_chunks25":  8000,
		"randint500^3_sum_chunks10":  125000,
	} {
		w, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if w.NChunks != want {
			t.Errorf("%s: NChunks = %d, want %d", name, w.NChunks, want)
		}
	}
}

func TestStreamSum(t *testing.T) {
	if w, err := Lookup(StreamSumName); err != nil || w.Memory == nil ||
		w.Memory.ArrayBytes != 4<<30 || w.Memory.ChunkBytes != 64<<20 || w.NChunks != 64 {
		t.Fatalf("default %s: %+v, %v; want 4 GiB in 64 chunks of 64 MiB", StreamSumName, w, err)
	}
	// 1000 values in chunks of 300: 4 chunks, the last of 100.
	w, err := StreamSum(8000, 2400)
	if err != nil {
		t.Fatal(err)
	}
	if w.NChunks != 4 || w.Memory.ArrayBytes != 8000 || w.Memory.ChunkBytes != 2400 || w.BenchName != StreamSumName {
		t.Errorf("StreamSum(8000, 2400) = %+v, memory %+v", w, *w.Memory)
	}
	g, keys, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	vals, err := sched.Sync{}.Get(context.Background(), g, keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Check(vals); err != nil {
		t.Error(err)
	}
	// Check's oracle: a sum far from n/2 fails (6σ of 1000 values is 55).
	far, err := nd.FromSlice([]float64{600}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Check([]any{far}); err == nil {
		t.Error("Check accepts 600 for 1000 uniform values")
	}
	// A chunk larger than the array is the array.
	if w, err := StreamSum(800, 1<<20); err != nil || w.NChunks != 1 || w.Memory.ChunkBytes != 800 {
		t.Errorf("StreamSum(800, 1 MiB) = %+v, %v", w, err)
	}
	for _, bad := range [][2]int64{{0, 8}, {8, 0}, {7, 8}, {-8, 8}} {
		if _, err := StreamSum(bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), StreamSumName) {
			t.Errorf("StreamSum(%d, %d) = %v, want an error naming %s", bad[0], bad[1], err, StreamSumName)
		}
	}
}
