package chunkarray

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestUfuncsFuse: a chain of the ufuncs (and of Round, Clip and the
// default NanToNum, which use their operand once) collects into as many
// tasks as one elementwise operation on the same input: one per output
// block. IsClose uses each operand four times: an operand that is an
// expression is computed as blocks of its own (fusion fuses an Array
// into its only consumer), and the rest fuses.
func TestUfuncsFuse(t *testing.T) {
	vals := make([]float64, 8*12)
	for i := range vals {
		vals[i] = math.Sin(float64(i)) * 4
	}
	m, _ := nd.FromSlice(vals, 8, 12)
	x := FromNDArray(m, 4)
	count := func(a *Array) int {
		t.Helper()
		g, _, err := BuildGraph([]*Array{a})
		if err != nil {
			t.Fatal(err)
		}
		return g.Len()
	}
	one := count(x.Add(1))
	chain := NanToNum(Log1p(Floor(Tanh(x).Mul(2)).Add(Hypot(x, 1.5)).Round(1).Clip(-2, 3)), NanToNumOpts{})
	chain = Where(chain.Greater(Cbrt(x)), Angle(chain, true), Logaddexp(x, Sign(x)))
	if err := chain.Err(); err != nil {
		t.Fatal(err)
	}
	if n := count(chain); n != one+6 { // chain is used twice: its 6 blocks
		t.Errorf("the chain collects into %d tasks, one operation into %d", n, one)
	}
	if n := count(IsClose(chain, x)); n != one+2*6 { // and chain's own input, used twice
		t.Errorf("isclose collects into %d tasks, one operation into %d", n, one)
	}
}
