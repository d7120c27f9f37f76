package distributed

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// slowLen returns the length of its []byte argument after sleeping its
// int argument in milliseconds (or until its context ends).
var slowLen graph.Op = &graph.FuncOp{OpName: "distributed_test.slowlen", Fn: func(ctx context.Context, args []any) (any, error) {
	select {
	case <-time.After(time.Duration(args[1].(int)) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return len(args[0].([]byte)), nil
}}

func init() { graph.Register(slowLen) }

// TestStealWeighsBytes: eight 20 ms tasks all needing one value sit on the
// worker that holds it (one thread), the other worker idle. With a 64-byte
// value stealing moves some of them to the idle worker; with a 32 MiB
// value (a third of a second at stealBandwidth, against a backlog of
// about 8 × the 20 ms the "use" tasks take) none is moved and nothing
// crosses, however long making the value took.
//
//	big ──▶ use[0..7] = slowLen(big, 20)
func TestStealWeighsBytes(t *testing.T) {
	for _, tt := range []struct {
		size  int
		moved bool
	}{{64, true}, {32 << 20, false}} {
		t.Run(fmt.Sprint(tt.size), func(t *testing.T) {
			c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true})
			g := graph.New(0)
			if err := g.AddTask("big", makeBytes, graph.Lit(tt.size)); err != nil {
				t.Fatal(err)
			}
			var keys []graph.Key
			for i := range 8 {
				k := graph.BlockKey("use", i) // one prefix, as a collection's blocks
				if err := g.AddTask(k, slowLen, graph.Ref("big"), graph.Lit(20)); err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k)
			}
			var mu sync.Mutex
			ranOn := map[graph.Key]int{}
			ctx := sched.WithCallbacks(context.Background(), &sched.Callbacks{
				Posttask: func(k graph.Key, _ any, _ error, w int) {
					mu.Lock()
					ranOn[k] = w
					mu.Unlock()
				},
			})
			got, err := c.Get(ctx, g, keys)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if v != tt.size {
					t.Fatalf("%s = %v, want %d", keys[i], v, tt.size)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			workers := map[int]int{}
			for _, k := range keys {
				workers[ranOn[k]]++
			}
			home := ranOn["big"]
			moved := len(keys) - workers[home]
			var fetched int64
			for _, p := range c.Workers() {
				fetched += p.w.fetched.Load()
			}
			t.Logf("big on worker %d; uses by worker %v; values fetched %d", home, workers, fetched)
			if tt.moved && moved == 0 {
				t.Errorf("no use of a %d-byte value moved to the idle worker", tt.size)
			}
			if !tt.moved && (moved > 0 || fetched > 0) {
				t.Errorf("%d uses of a %d-byte value moved (%d values fetched); want none", moved, tt.size, fetched)
			}
		})
	}
}
