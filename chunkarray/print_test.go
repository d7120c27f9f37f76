package chunkarray

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// A lazy array prints what Dask prints of one (name, shape, dtype, chunk
// size), never its struct; a nil or failed one prints its error; its
// computed value prints as numpy prints.
func TestPrintArray(t *testing.T) {
	a := Ones([]int{10, 4}, nd.Float32, []int{5, 4})
	got := fmt.Sprint(a)
	want := fmt.Sprintf("chunkarray.Array<%s, shape=(10, 4), dtype=float32, chunksize=(5, 4), blocks=2>", a.Name())
	if got != want {
		t.Errorf("Sprint = %q, want %q", got, want)
	}
	var nilArr *Array
	if s := fmt.Sprint(nilArr); !strings.HasPrefix(s, "chunkarray.Array<error: ") {
		t.Errorf("nil: %q", s)
	}
	bad := Add(a, Ones([]int{3}, nd.Float32, 3))
	if s := fmt.Sprint(bad); !strings.HasPrefix(s, "chunkarray.Array<error: ") || !strings.Contains(s, "broadcast") {
		t.Errorf("failed: %q", s)
	}
	v, err := a.Sum(0).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), "array([10., 10., 10., 10.], dtype=float32)"; got != want {
		t.Errorf("computed: %q, want %q", got, want)
	}
}
