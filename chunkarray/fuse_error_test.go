package chunkarray

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/nd/zarr"
	"github.com/tessera-go/tessera/sched"
)

// checkReadError checks err, the failure of a computation over src whose
// read of the file at file failed: the message names the file and the key
// of the block read (one of src's keys), whether fusion moved the read
// into its consumer's task (a *FusedInputError, under the consumer's
// *sched.TaskError) or the read ran as its own task (the TaskError's key
// is the read's). It returns the cause for further checks.
func checkReadError(t *testing.T, err error, src *Array, file, readOp string, fusedIn bool) {
	t.Helper()
	if err == nil {
		t.Fatal("Compute succeeded, want a read error")
	}
	var te *sched.TaskError
	if !errors.As(err, &te) {
		t.Fatalf("err %T (%v) is no *sched.TaskError", err, err)
	}
	var fe *FusedInputError
	gotFused := errors.As(err, &fe)
	if gotFused != fusedIn {
		t.Fatalf("FusedInputError in chain = %v, want %v: %v", gotFused, fusedIn, err)
	}
	readKey, op := te.Key, te.Op
	if fusedIn {
		readKey, op = fe.Key, fe.Op
	}
	if !slices.Contains(src.Keys(), readKey) {
		t.Errorf("the error names key %q, want one of the read's keys %v", readKey, src.Keys())
	}
	if op != readOp {
		t.Errorf("the error names op %q, want %q", op, readOp)
	}
	msg := err.Error()
	for _, want := range []string{string(readKey), file} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not name %q", msg, want)
		}
	}
}

// TestFusedReadErrorNPY: an .npy file removed after FromNPY read its
// header. With fusion on, the block reads run inside the sum's chunk
// tasks (and inside the elementwise tasks); the error must still name the
// read's own key and the file, and unwrap to fs.ErrNotExist.
func TestFusedReadErrorNPY(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		consume func(*Array) *Array
	}{
		{"sum", func(x *Array) *Array { return x.Sum() }},
		{"mean", func(x *Array) *Array { return x.Mean() }},
		{"elementwise", func(x *Array) *Array { return x.Mul(2).Add(1) }},
	} {
		for _, fuse := range []bool{true, false} {
			t.Run(tt.name+map[bool]string{true: "/fused", false: "/unfused"}[fuse], func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "x.npy")
				if err := Arange(0, 12, 1, nd.Float64, 4).ToNPY(ctx, path); err != nil {
					t.Fatal(err)
				}
				x := FromNPY(path, 4)
				if err := x.Err(); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				_, err := tt.consume(x).Compute(ctx, WithOptimize(fuse), WithScheduler(sched.Sync{}))
				checkReadError(t, err, x, path, opNPYRead, fuse)
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("errors.Is(err, fs.ErrNotExist) = false: %v", err)
				}
				var ne *npy.Error
				if !errors.As(err, &ne) || ne.File != path {
					t.Errorf("no *npy.Error naming %s in %v", path, err)
				}
			})
		}
	}
}

// TestFusedReadErrorZarr: a zarr store with one chunk file deleted (read
// as the fill value, as zarr does) and one corrupted (an error naming the
// chunk file and the block's key), fused into a sum and not.
func TestFusedReadErrorZarr(t *testing.T) {
	ctx := context.Background()
	for _, fuse := range []bool{true, false} {
		t.Run(map[bool]string{true: "fused", false: "unfused"}[fuse], func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "z.zarr")
			// 0..11 in chunks of 4: [0..3] [4..7] [8..11]; fill 100.
			if err := Arange(0, 12, 1, nd.Int64, 4).ToZarr(ctx, dir, ZarrOptions{Chunks: []int{4}, Fill: 100}); err != nil {
				t.Fatal(err)
			}
			st, err := zarr.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(st.ChunkPath([]int{1})); err != nil {
				t.Fatal(err)
			}
			opts := []Option{WithOptimize(fuse), WithScheduler(sched.Sync{})}
			got, err := FromZarr(dir).Sum().Compute(ctx, opts...)
			if err != nil {
				t.Fatalf("deleted chunk: %v", err)
			}
			want := int64(0 + 1 + 2 + 3 + 4*100 + 8 + 9 + 10 + 11)
			if v, _ := got.At(); v != want {
				t.Errorf("sum with a deleted chunk = %v, want %d (its elements the fill value)", v, want)
			}

			bad := st.ChunkPath([]int{2})
			if err := os.WriteFile(bad, []byte("not a chunk"), 0o644); err != nil {
				t.Fatal(err)
			}
			x := FromZarr(dir)
			_, err = x.Sum().Compute(ctx, opts...)
			checkReadError(t, err, x, bad, opZarrRead, fuse)
			var ze *zarr.Error
			if !errors.As(err, &ze) || ze.Path != bad {
				t.Errorf("no *zarr.Error naming %s in %v", bad, err)
			}
			if fuse {
				var fe *FusedInputError
				errors.As(err, &fe)
				if wantKey := x.Key(2); fe.Key != wantKey {
					t.Errorf("FusedInputError.Key = %q, want %q", fe.Key, wantKey)
				}
			}
		})
	}
}

// TestFusedInputErrorUnwrap: the error's own contract, without a graph.
func TestFusedInputErrorUnwrap(t *testing.T) {
	cause := &npy.Error{File: "a.npy", Reason: "open", Err: fs.ErrNotExist}
	var err error = &FusedInputError{Op: opNPYRead, Key: graph.BlockKey("from-npy-1", 0, 1), Err: cause}
	var ne *npy.Error
	if !errors.As(err, &ne) || ne != cause || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v does not unwrap to its cause", err)
	}
	for _, want := range []string{"from-npy-1", "a.npy", opNPYRead} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err.Error(), want)
		}
	}
}

// TestFusedReadThroughJSON: fused file reads survive the encoding that
// carries graphs to other processes (no store handle there: the task opens
// the store itself), give numpy's values (the sums of 0..11 by formula),
// and a failed read still names its key after the trip.
func TestFusedReadThroughJSON(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	npyPath, zarrPath := filepath.Join(dir, "x.npy"), filepath.Join(dir, "x.zarr")
	src := Arange(0, 12, 1, nd.Int64, 4)
	if err := src.ToNPY(ctx, npyPath); err != nil {
		t.Fatal(err)
	}
	if err := src.ToZarr(ctx, zarrPath, ZarrOptions{Chunks: []int{4}}); err != nil {
		t.Fatal(err)
	}
	x := FromNPY(npyPath, 4)
	for name, y := range map[string]*Array{
		"npy":  x.Mul(2).Sum(),                    // 2 * 66
		"zarr": FromZarr(zarrPath).Square().Sum(), // 0²+…+11² = 506
	} {
		got, err := computeThroughJSON(y)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := map[string]int64{"npy": 132, "zarr": 506}[name]
		if v, _ := got.At(); v != want {
			t.Errorf("%s: got %v, want %d", name, v, want)
		}
	}
	if err := os.Remove(npyPath); err != nil {
		t.Fatal(err)
	}
	_, err := computeThroughJSON(x.Mul(2).Sum())
	checkReadError(t, err, x, npyPath, opNPYRead, true)
}
