package delayed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/nd"
)

// WithProgress draws a bar where it is told, for delayed values and arrays
// alike; without it nothing is drawn.
func TestWithProgress(t *testing.T) {
	inc := delayed.Fn1("progress_test.inc", func(x int) int { return x + 1 })
	var buf strings.Builder
	v, err := inc.Call(inc.Call(1)).Compute(context.Background(), delayed.WithProgress(&buf))
	if err != nil || v != 3 {
		t.Fatalf("Compute = %v, %v", v, err)
	}
	if !strings.Contains(buf.String(), "100%") {
		t.Errorf("delayed: the bar wrote %q", buf.String())
	}
	buf.Reset()
	a := chunkarray.Ones([]int{100}, nd.Float64, 10)
	if _, err := a.Sum().Compute(context.Background(), chunkarray.WithProgress(&buf)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "100%") {
		t.Errorf("chunkarray: the bar wrote %q", buf.String())
	}
}
