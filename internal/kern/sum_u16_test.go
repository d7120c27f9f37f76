package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// The oracles here are nd's own reductions of the converted data (nd.Reduce
// over axis 0 for column sums, over axis 1 for row sums): the code path the
// kernels replace in udfbridge. Each kernel runs twice, with the assembly
// (where the CPU has it) and with the portable loops, and both must give
// the oracle's bits.

// withPaths runs f once per code path available here.
func withPaths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	paths := []bool{false}
	if saved {
		paths = append(paths, true)
	}
	for _, asm := range paths {
		useAVX2 = asm
		t.Run(fmt.Sprintf("asm=%v", asm), f)
	}
}

// fill returns n values: random, all 65535, or random near 65535.
func fill(rng *rand.Rand, kind string, n int) []uint16 {
	v := make([]uint16, n)
	for i := range v {
		switch kind {
		case "max":
			v[i] = math.MaxUint16
		case "high":
			v[i] = math.MaxUint16 - uint16(rng.IntN(16))
		default:
			v[i] = uint16(rng.Uint32())
		}
	}
	return v
}

// reduceF32 converts src (rows × n) to float32 and sums it with nd.Reduce
// over axis (0: per column, 1: per row).
func reduceF32(t *testing.T, src []uint16, rows, n, axis int) []float32 {
	t.Helper()
	u, err := nd.FromSlice(append([]uint16(nil), src[:rows*n]...), rows, n)
	if err != nil {
		t.Fatal(err)
	}
	f, err := u.AsType(nd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	s, err := nd.Reduce(nd.Sum, f, []int{axis}, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := nd.Values[float32](s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %v (%#x), want %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestAddColSumsU16(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, kind := range []string{"random", "max", "high"} {
			for _, rows := range []int{0, 1, 2, 3, 4, 5, 9, 300} {
				for n := 0; n <= 300; n++ {
					if rows == 300 && n%37 != 0 {
						continue // long columns: fewer widths
					}
					for _, skew := range []int{0, 1, 3} {
						// src and dst start skew elements into their
						// backing arrays: misaligned for the vector loads.
						src := fill(rng, kind, rows*n+skew)[skew:]
						base := make([]float32, n+skew)[skew:]
						for k := range base {
							base[k] = float32(rng.IntN(1 << 20))
						}
						want := append([]float32(nil), base...)
						if rows > 0 {
							for k, s := range reduceF32(t, src, rows, n, 0) {
								want[k] += s
							}
						}
						got := append([]float32(nil), base...)
						AddColSumsU16(got, src, rows)
						sameBits(t, fmt.Sprintf("%s rows=%d n=%d skew=%d", kind, rows, n, skew), got, want)
					}
				}
			}
		}
	})
}

// TestAddColSumsU16Rounds checks a case where float32 rounds: 300 rows of
// 65535 pass 2^24, so an exact integer sum would differ from the oracle.
func TestAddColSumsU16Rounds(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		const rows, n = 300, 72
		src := fill(nil, "max", rows*n)
		src[5*n+3] = 1 // one odd value: the rounding depends on where it is added
		got := make([]float32, n)
		AddColSumsU16(got, src, rows)
		want := reduceF32(t, src, rows, n, 0)
		sameBits(t, "rounding", got, want)
		exact := float64(rows-1)*65535 + 1
		if float64(got[3]) == exact {
			t.Fatalf("column 3 = %v is the exact integer sum; the test needs a rounding case", got[3])
		}
	})
}

func TestAddRowSumsU16(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		var s RowSummer
		lengths := []int{}
		for n := 0; n <= 300; n++ {
			lengths = append(lengths, n)
		}
		lengths = append(lengths, 1000, 1023, 4096, 4099, 16383, 16384, 16385, 16392, 65536, 65537, 100003, 262144+7)
		for _, kind := range []string{"random", "max", "high"} {
			for _, n := range lengths {
				rows := 6 // a group of four rows and two single rows
				if n > 1000 {
					rows = 5
				}
				for _, skew := range []int{0, 1} {
					if n > 300 && skew == 1 && kind != "random" {
						continue
					}
					src := fill(rng, kind, rows*n+skew)[skew:]
					base := []float32{0.5, 7, 1 << 20, 3, 1 << 24, 9}[:rows]
					want := append([]float32(nil), base...)
					for r, v := range reduceF32(t, src, rows, n, 1) {
						want[r] += v
					}
					got := append([]float32(nil), base...)
					s.AddRowSumsU16(got, src, n)
					sameBits(t, fmt.Sprintf("%s n=%d skew=%d", kind, n, skew), got, want)
				}
			}
		}
	})
}

// TestLeafSums compares the assembly leaf kernel with the Go loop on
// leaves of every length up to 300 (longer than a plan ever makes them)
// laid end to end at odd offsets.
func TestLeafSums(t *testing.T) {
	if !useAVX2 {
		t.Skip("no assembly on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []string{"random", "max"} {
		var lens []int32
		total := 0
		for l := 0; l <= 300; l++ {
			lens = append(lens, int32(l))
			total += l
		}
		rng.Shuffle(len(lens), func(i, j int) { lens[i], lens[j] = lens[j], lens[i] })
		x := fill(rng, kind, total+1)[1:]
		got := make([]float32, len(lens))
		want := make([]float32, len(lens))
		leafSums(x, lens, got)
		leafSumsGo(x, lens, want, 1)
		sameBits(t, kind, got, want)
		// Four rows 301 elements apart more than the leaves cover (x
		// is long enough), misaligned.
		stride := total/4 + 301
		x4 := fill(rng, kind, 3*stride+total+1)[1:]
		got4 := make([]float32, 4*len(lens))
		want4 := make([]float32, 4*len(lens))
		leafSums4(x4, stride, lens, got4)
		leafSums4Go(x4, stride, lens, want4)
		sameBits(t, kind+" 4 rows", got4, want4)
	}
}

func TestLeafPlan(t *testing.T) {
	for _, tt := range []struct {
		n    int
		lens []int32
	}{
		{0, []int32{0}},
		{7, []int32{7}},
		{128, []int32{128}},
		{129, []int32{64, 65}},
		{256, []int32{128, 128}},
		{300, []int32{72, 72, 72, 84}}, // 150 → 144 + 156; 156 → 72 + 84
	} {
		p := newLeafPlan(tt.n)
		if fmt.Sprint(p.lens) != fmt.Sprint(tt.lens) {
			t.Errorf("newLeafPlan(%d) leaves %v, want %v", tt.n, p.lens, tt.lens)
		}
		sum := 0
		for _, c := range p.comb {
			sum += int(c)
		}
		if sum != len(p.lens)-1 {
			t.Errorf("newLeafPlan(%d): %d combines for %d leaves", tt.n, sum, len(p.lens))
		}
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"cols short": func() { AddColSumsU16(make([]float32, 4), make([]uint16, 7), 2) },
		"cols neg":   func() { AddColSumsU16(make([]float32, 4), make([]uint16, 8), -1) },
		"rows short": func() { new(RowSummer).AddRowSumsU16(make([]float32, 2), make([]uint16, 7), 4) },
		"rows neg":   func() { new(RowSummer).AddRowSumsU16(make([]float32, 2), make([]uint16, 8), -1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
