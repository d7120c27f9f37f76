package freelist_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/freelist"
)

// A run makes a list, hands it to its tasks in their context and closes
// it when it ends; a task takes its scratch memory from the list and
// gives it back before it returns.
func Example() {
	l := freelist.NewAuto(4)
	defer l.Close()
	ctx := freelist.NewContext(context.Background(), l)

	task := func(ctx context.Context) int {
		fl := freelist.FromContext(ctx) // nil outside a run: plain allocation
		buf := fl.Get(1 << 20)
		defer fl.Put(buf)
		for i := range buf {
			buf[i] = byte(i)
		}
		sum := 0
		for _, b := range buf[:10] {
			sum += int(b)
		}
		return sum // a value computed from the buffer, never the buffer
	}
	for range 3 {
		fmt.Println(task(ctx))
	}
	s := l.Stats()
	fmt.Printf("gets %d, hits %d, allocated %d MiB\n", s.Gets, s.Hits, s.Allocated>>20)
	// Output:
	// 45
	// 45
	// 45
	// gets 3, hits 2, allocated 1 MiB
}
