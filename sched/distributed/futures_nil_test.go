package distributed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// Nil Futures given to the client's calls are errors naming the call or
// are skipped, never a panic; and nothing a call does with them leaves
// the client unusable (Release(nil) once panicked while it held the
// client's lock, and every later call hung).
func TestNilFutures(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, InProcess: true, Quiet: true})
	cl := c.Client()
	ctx := context.Background()
	f := cl.Submit(ctx, schedtest.Inc, 1)
	var nilF *Future
	cl.Release(nilF)
	cl.Release(nilF, nilF)
	nilF.Release()
	nilF.Cancel()
	if s := fmt.Sprint(nilF); s != "Future(nil)" {
		t.Errorf("a nil Future prints %q", s)
	}
	if _, err := cl.Gather(ctx, f, nil); !errors.Is(err, ErrNilFuture) {
		t.Errorf("Gather with a nil Future = %v, want ErrNilFuture", err)
	}
	if _, _, err := cl.GatherSkip(ctx, nil); !errors.Is(err, ErrNilFuture) {
		t.Errorf("GatherSkip with a nil Future = %v, want ErrNilFuture", err)
	}
	if err := cl.Wait(ctx, nil, f); !errors.Is(err, ErrNilFuture) {
		t.Errorf("Wait with a nil Future = %v, want ErrNilFuture", err)
	}
	if err := cl.Replicate(ctx, nil); !errors.Is(err, ErrNilFuture) {
		t.Errorf("Replicate with a nil Future = %v, want ErrNilFuture", err)
	}
	if err := cl.Replicate(ctx); err != nil {
		t.Errorf("Replicate of nothing = %v, want nil", err)
	}
	var got []*Future
	for g := range cl.AsCompleted(nil, f, nil) {
		got = append(got, g)
	}
	if len(got) != 1 || got[0] != f {
		t.Errorf("AsCompleted(nil, f, nil) yielded %v, want [f]", got)
	}
	if err := cl.Submit(ctx, schedtest.Inc, nilF).Err(); !errors.Is(err, ErrNilFuture) {
		t.Errorf("Submit with a nil Future argument: Err = %v, want ErrNilFuture", err)
	}
	// The client still works.
	if v, err := cl.Submit(ctx, schedtest.Inc, f).Result(ctx); err != nil || v != 3 {
		t.Fatalf("Submit after the nil calls = %v, %v; want 3", v, err)
	}
}

// After Close, calls fail with ErrClientClosed (not as a lost
// connection), and closing again does nothing.
func TestClientClosed(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, InProcess: true, Quiet: true})
	cl, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{Security: c.ClientSecurity()})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	g, root := schedtest.AddTree(4)
	if _, err := cl.Get(context.Background(), g, []graph.Key{root}); !errors.Is(err, ErrClientClosed) {
		t.Errorf("Get after Close = %v, want ErrClientClosed", err)
	}
	if err := cl.Submit(context.Background(), schedtest.Inc, 1).Err(); err != nil && !errors.Is(err, ErrClientClosed) {
		t.Errorf("Submit after Close: Err = %v, want ErrClientClosed", err)
	}
	if _, err := cl.Submit(context.Background(), schedtest.Inc, 1).Result(context.Background()); !errors.Is(err, ErrClientClosed) {
		t.Errorf("Result after Close = %v, want ErrClientClosed", err)
	}
}

// A key submitted again after Cancel is computed anew (Dask's cancel
// forgets the key), though another Future of the cancelled one is alive.
func TestResubmitAfterCancel(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, InProcess: true, Quiet: true})
	cl := c.Client()
	ctx := context.Background()
	gate := filepath.Join(t.TempDir(), "gate")
	k1 := cl.Submit(ctx, fileGate, gate, 5)
	k2 := cl.Submit(ctx, fileGate, gate, 5)
	k1.Cancel()
	if err := k2.Err(); !errors.Is(err, ErrCancelled) {
		t.Fatalf("the other Future of the cancelled key: Err = %v, want ErrCancelled", err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	k3 := cl.Submit(ctx, fileGate, gate, 5)
	if v, err := k3.Result(ctx); err != nil || v != 5 {
		t.Fatalf("the key submitted again = %v, %v; want 5", v, err)
	}
	k2.Release()
	k3.Release()
}
