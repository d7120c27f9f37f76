package viz

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// ramp is ColorBrewer's 11-class RdBu, the palette Dask's
// visualize(color=...) uses by default: dark red for the first (or
// shortest) task, through white, to dark blue for the last (or longest).
// It is fixed data, not matplotlib's colormap machinery, so a picture is
// the same on every machine and needs no legend to be compared.
var ramp = [...][3]uint8{
	{0x67, 0x00, 0x1f}, {0xb2, 0x18, 0x2b}, {0xd6, 0x60, 0x4d}, {0xf4, 0xa5, 0x82},
	{0xfd, 0xdb, 0xc7}, {0xf7, 0xf7, 0xf7}, {0xd1, 0xe5, 0xf0}, {0x92, 0xc5, 0xde},
	{0x43, 0x93, 0xc3}, {0x21, 0x66, 0xac}, {0x05, 0x30, 0x61},
}

// rampColor returns the colour at t in [0, 1] as "#rrggbb", interpolating
// linearly between the ramp's anchors. t outside [0, 1] is clamped; NaN
// counts as 0.
func rampColor(t float64) string {
	if !(t > 0) {
		t = 0
	}
	if t > 1 {
		t = 1
	}
	x := t * float64(len(ramp)-1)
	i := int(x)
	if i >= len(ramp)-1 {
		i = len(ramp) - 2
	}
	f := x - float64(i)
	var b []byte
	b = append(b, '#')
	for c := 0; c < 3; c++ {
		v := float64(ramp[i][c])*(1-f) + float64(ramp[i+1][c])*f
		b = appendHex2(b, uint8(math.Round(v)))
	}
	return string(b)
}

func appendHex2(b []byte, v uint8) []byte {
	const hex = "0123456789abcdef"
	return append(b, hex[v>>4], hex[v&15])
}

// dark reports whether "#rrggbb" is dark enough to need white text
// (relative luminance below one half).
func dark(c string) bool {
	if len(c) != 7 || c[0] != '#' {
		return false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return false
	}
	r, g, b := float64(v>>16&0xff), float64(v>>8&0xff), float64(v&0xff)
	return (0.2126*r+0.7152*g+0.0722*b)/255 < 0.5
}

// colours returns the fill colour of every node of g by index, "" for no
// fill.
func colours(g *graph.Graph, d *graph.Deps, opts *Options) ([]string, error) {
	n := g.Len()
	fill := make([]string, n)
	switch opts.Color {
	case "order":
		prio, err := optimize.Order(g, d)
		if err != nil {
			return nil, fmt.Errorf("viz: order: %w", err)
		}
		for i, p := range prio {
			t := 0.0
			if n > 1 {
				t = float64(p) / float64(n-1)
			}
			fill[i] = rampColor(t)
		}
	case "time":
		lo, hi := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
		for i := 0; i < n; i++ {
			if dt, ok := opts.Times[g.Key(i)]; ok {
				lo, hi = min(lo, dt), max(hi, dt)
			}
		}
		for i := 0; i < n; i++ {
			dt, ok := opts.Times[g.Key(i)]
			if !ok {
				continue
			}
			t := 0.0
			if hi > lo {
				t = float64(dt-lo) / float64(hi-lo)
			}
			fill[i] = rampColor(t)
		}
	}
	return fill, nil
}
