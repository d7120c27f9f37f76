package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/zarr"
	"github.com/tessera-go/tessera/viz"
)

// demoArrays walks through the examples a dask.array user starts with: ones
// with chunks, slicing, sin(im[:, 0]) * im.T, normalising by the max over
// axes (drawn as array-normalize.svg), and a zarr image read lazily and
// timed against the eager path. zarrN is the zarr image's side (10000 by
// default, as in Dask's tutorial).
func demoArrays(ctx context.Context, out string, zarrN int, w io.Writer) error {
	fmt.Fprintln(w, "\n# im = ones((10000, 10000), chunks=(1000, 1000))")
	im := chunkarray.Ones([]int{10000, 10000}, nd.Float64, []int{1000, 1000})
	fmt.Fprintln(w, im)

	fmt.Fprintln(w, "\n# im[:10, 0]")
	col := im.Index(chunkarray.Range(0, 10), chunkarray.At(0))
	fmt.Fprintln(w, col)
	v, err := col.Compute(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "computed: %s\n", formatND(v))

	fmt.Fprintln(w, "\n# result = sin(im[:, 0]) * im.T   (lazy: nothing computed yet)")
	res := im.Index(chunkarray.All(), chunkarray.At(0)).Sin().Mul(im.T())
	fmt.Fprintln(w, res)
	fmt.Fprintln(w, "# result[:5, :5].compute()")
	corner, err := res.Index(chunkarray.Range(0, 5), chunkarray.Range(0, 5)).Compute(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, formatND(corner))

	fmt.Fprintln(w, "\n# im = ones((3, 1000, 1000), chunks=(1, 600, 600)); im / im.max(axis=(1, 2))[:, None, None]")
	im3 := chunkarray.Ones([]int{3, 1000, 1000}, nd.Float64, []int{1, 600, 600})
	mx := im3.Max(1, 2)
	norm := im3.Div(mx.Index(chunkarray.All(), chunkarray.NewAxis(), chunkarray.NewAxis()))
	fmt.Fprintln(w, norm)
	got, err := chunkarray.Compute(ctx, []*chunkarray.Array{mx, norm.Sum()})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "max over axes (1, 2): %s; sum of the normalised images: %s\n", formatND(got[0]), formatND(got[1]))
	pic := filepath.Join(out, "array-normalize.svg")
	err = norm.Visualize(ctx, pic, viz.Options{}, chunkarray.WithOptimize(false))
	if errors.Is(err, viz.ErrNoGraphviz) {
		fmt.Fprintf(w, "(%v; writing DOT instead)\n", err)
		pic = filepath.Join(out, "array-normalize.dot")
		err = norm.Visualize(ctx, pic, viz.Options{}, chunkarray.WithOptimize(false))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "task graph (visualize, optimize_graph=False): %s\n", pic)

	return demoZarr(ctx, filepath.Join(out, "large_example_image.zarr"), zarrN, w)
}

// demoZarr writes an int32 image of values 0–99 to the zarr store at path
// (replacing one a former run left there, and kept afterwards for the user
// to open, with zarr-python for instance), reads it back lazily, and times
// (im ** 2).sum() eagerly (the whole image in memory, as np.array(im_zarr))
// and chunk by chunk.
func demoZarr(ctx context.Context, path string, n int, w io.Writer) error {
	fmt.Fprintf(w, "\n# a %d×%d int32 zarr image, chunks (1000, 1000), values randint(0, 100)\n", n, n)
	t0 := time.Now()
	src := chunkarray.Random(0).Integers(0, 100, []int{n, n}, 1000).AsType(nd.Int32)
	if err := src.ToZarr(ctx, path, chunkarray.ZarrOptions{}); err != nil {
		return err
	}
	fmt.Fprintf(w, "written with ToZarr to %s in %v\n", path, time.Since(t0).Round(time.Millisecond))

	im := chunkarray.FromZarr(path)
	fmt.Fprintf(w, "im = from_zarr: %v\n", im)
	twice, err := im.Mul(2).Sum().Compute(ctx)
	if err != nil {
		return err
	}
	first, err := im.Index(chunkarray.At(0), chunkarray.At(0)).Compute(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "(im * 2).sum() = %s; im[0, 0] = %s\n", formatND(twice), formatND(first))

	// Eager: the whole image in memory, then square and sum it.
	t1 := time.Now()
	whole, err := readZarrWhole(path)
	if err != nil {
		return err
	}
	sq, err := nd.Binary(nd.Pow, whole, nd.Scalar[int32](2))
	if err != nil {
		return err
	}
	eager, err := nd.Reduce(nd.Sum, sq, nil, false)
	if err != nil {
		return err
	}
	te := time.Since(t1)
	whole, sq = nil, nil
	t2 := time.Now()
	lazy, err := im.Pow(2).Sum().Compute(ctx)
	if err != nil {
		return err
	}
	tl := time.Since(t2)
	ev, lv := formatND(eager), formatND(lazy)
	fmt.Fprintf(w, "(im ** 2).sum(): eager (read whole, nd) %s in %v; chunked %s in %v\n", ev, te.Round(time.Millisecond), lv, tl.Round(time.Millisecond))
	if ev != lv {
		return fmt.Errorf("eager %s and chunked %s sums differ", ev, lv)
	}
	fmt.Fprintln(w, "eager and chunked agree")
	fmt.Fprintln(w, "(the chunk-size experiment: tessera chunktune)")
	return nil
}

// readZarrWhole reads every chunk of a 2-d store into one array: numpy's
// np.array(im_zarr).
func readZarrWhole(path string) (*nd.Array, error) {
	z, err := zarr.Open(path)
	if err != nil {
		return nil, err
	}
	dst, err := nd.Zeros(z.DType(), z.Shape()...)
	if err != nil {
		return nil, err
	}
	return dst, chunkarray.FromZarr(path).Store(context.Background(), chunkarray.NDTarget(dst))
}

// formatND prints a small array as numpy does, roughly: nested brackets,
// %.6g elements.
func formatND(a *nd.Array) string {
	var b strings.Builder
	var rec func(idx []int)
	rec = func(idx []int) {
		if len(idx) == a.NDim() {
			v, _ := a.At(idx...)
			switch x := v.(type) {
			case float64:
				fmt.Fprintf(&b, "%.6g", x)
			case float32:
				fmt.Fprintf(&b, "%.6g", x)
			default:
				fmt.Fprint(&b, x)
			}
			return
		}
		b.WriteByte('[')
		n := a.Shape()[len(idx)]
		for i := 0; i < n; i++ {
			if i > 0 {
				if len(idx) < a.NDim()-1 {
					b.WriteString("\n ")
				} else {
					b.WriteByte(' ')
				}
			}
			rec(append(idx, i))
		}
		b.WriteByte(']')
	}
	rec(nil)
	return b.String()
}
