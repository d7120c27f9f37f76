package udfbridge

// Where a failure is reported: a lazy run's error names the task of the
// UDF step that failed (partition, merge, get_results), not the task it
// was fused into; a panic in Merge or GetResults keeps its value and
// stack as a *sched.PanicError (inside a *sched.TaskError when it ran in
// a task); EncodedArray carries arrays inside params.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// tFail fails (or panics, with Panic) at step At: "process", "merge" or
// "get_results".
type tFail struct {
	At    string
	Panic bool
}

func (u tFail) Name() string            { return "test.fail" }
func (u tFail) Params() ([]byte, error) { return json.Marshal(u) }
func (u tFail) Buffers(*Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("v", nd.Float64), SingleBuffer("n", nd.Float64)}, nil
}
func (u tFail) fail(step string) error {
	if u.At != step {
		return nil
	}
	if u.Panic {
		panic("tFail panics in " + step)
	}
	return fmt.Errorf("tFail fails in %s", step)
}
func (u tFail) ProcessFrame(c *Ctx, _ *nd.Array) error { return u.fail("process") }
func (u tFail) Merge(c *MergeCtx, dest, src map[string]*nd.Array) error {
	if err := u.fail("merge"); err != nil {
		return err
	}
	return nd.Assign(dest["v"], src["v"])
}
func (u tFail) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	return nil, u.fail("get_results")
}

func init() {
	RegisterUDF("test.fail", func(p []byte) (UDF, error) {
		var u tFail
		return u, json.Unmarshal(p, &u)
	})
}

func TestLazyErrorsNameTheStep(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	steps := map[string]struct{ key, op string }{
		"process":     {"udf-partition-", "udfbridge.partition"},
		"merge":       {"udf-merge-", "udfbridge.merge"},
		"get_results": {"udf-results-", "udfbridge.results"},
	}
	for step, want := range steps {
		for _, P := range []int{1, 3} {
			for _, ms := range []MergeStrategy{MergeTree, MergeLinear, MergeAllNode} {
				lazy, err := RunLazy(ds, []UDF{tFail{At: step}}, WithPartitions(P), WithMerge(ms))
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{"v", "n"} {
					what := fmt.Sprintf("%s P=%d merge=%d %s", step, P, ms, name)
					_, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{lazy[0].Arrays[name]})
					var te *sched.TaskError
					if !errors.As(err, &te) {
						t.Fatalf("%s: %v, want a *sched.TaskError", what, err)
					}
					if !strings.HasPrefix(string(te.Key), want.key) || te.Op != want.op {
						t.Errorf("%s: error names task %q (%s), want %s* (%s)", what, te.Key, te.Op, want.key, want.op)
					}
					var ue *UDFError
					if !errors.As(err, &ue) || ue.UDF != "test.fail" {
						t.Errorf("%s: %v does not name the UDF", what, err)
					}
				}
			}
		}
	}
}

func panicOf(t *testing.T, what string, err error, inTask bool) {
	t.Helper()
	var pe *sched.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: %v (%T), want a *sched.PanicError", what, err, err)
	}
	var te *sched.TaskError
	if inTask != errors.As(err, &te) {
		t.Errorf("%s: %v: in a task %v, want %v", what, err, !inTask, inTask)
	}
	if !strings.Contains(fmt.Sprint(pe.Value), "tFail panics") || !bytes.Contains(pe.Stack, []byte("tFail")) {
		t.Errorf("%s: panic value %v, stack without the UDF's frame:\n%s", what, pe.Value, pe.Stack)
	}
}

func TestMergePanicKeepsStack(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	ctx := context.Background()
	for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
		for _, ms := range []MergeStrategy{MergeTree, MergeLinear, MergeAllNode} {
			what := fmt.Sprintf("%T merge=%d", s, ms)
			_, err := Run(ctx, ds, []UDF{tFail{At: "merge", Panic: true}}, WithPartitions(3), WithMerge(ms), WithScheduler(s))
			panicOf(t, what+" Run merge", err, true)
			// get_results runs on the calling goroutine: recovered by Run.
			_, err = Run(ctx, ds, []UDF{tFail{At: "get_results", Panic: true}}, WithPartitions(3), WithMerge(ms), WithScheduler(s))
			panicOf(t, what+" Run get_results", err, false)
			lazy, err := RunLazy(ds, []UDF{tFail{At: "merge", Panic: true}}, WithPartitions(3), WithMerge(ms))
			if err != nil {
				t.Fatal(err)
			}
			_, err = lazy[0].Arrays["n"].Compute(ctx, chunkarray.WithScheduler(s))
			panicOf(t, what+" RunLazy merge", err, true)
		}
	}
	// RunIter merges on the calling goroutine.
	it, err := RunIter(ds, []UDF{tFail{At: "merge", Panic: true}}, WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	if it.Next(ctx) {
		t.Fatal("a step after a panicking merge")
	}
	panicOf(t, "RunIter merge", it.Err(), false)
}

func TestEncodedArrayRoundTrip(t *testing.T) {
	for _, dt := range []nd.DType{nd.Bool, nd.Int8, nd.Uint16, nd.Int64, nd.Float32, nd.Float64, nd.Complex64, nd.Complex128} {
		a, err := coreData(t, dt, []int{3}, []int{2, 2}, 5).Slice(nd.Slice1{Start: 2, Stop: 0, Step: -1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(struct{ A *EncodedArray }{EncodeArray(a)})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ A *EncodedArray }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		got, err := back.A.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if got.DType() != dt || !slices.Equal(got.Shape(), a.Shape()) || !slices.Equal(c128(t, got), c128(t, a)) {
			t.Errorf("%v: round trip %v %v, want %v %v", dt, got.DType(), got.Shape(), a.DType(), a.Shape())
		}
	}
	if a, err := (*EncodedArray)(nil).Decode(); a != nil || err != nil {
		t.Errorf("nil: %v %v", a, err)
	}
	if _, err := (&EncodedArray{DType: "float64", Shape: []int{3}, Data: make([]byte, 23)}).Decode(); err == nil {
		t.Error("23 bytes for 3 float64: no error")
	}
	if _, err := (&EncodedArray{DType: "object", Shape: []int{1}}).Decode(); err == nil {
		t.Error("dtype object: no error")
	}
}

// tDTypeDecl declares one buffer of kind K and dtype D.
type tDTypeDecl struct {
	K BufferKind
	D nd.DType
}

func (u tDTypeDecl) Name() string            { return "test.dtypedecl" }
func (u tDTypeDecl) Params() ([]byte, error) { return json.Marshal(u) }
func (u tDTypeDecl) Buffers(*Meta) ([]BufferDecl, error) {
	return []BufferDecl{{Name: "b", Kind: u.K, DType: u.D}}, nil
}
func (u tDTypeDecl) ProcessFrame(*Ctx, *nd.Array) error                                { return nil }
func (u tDTypeDecl) Merge(*MergeCtx, map[string]*nd.Array, map[string]*nd.Array) error { return nil }

func init() {
	RegisterUDF("test.dtypedecl", func(p []byte) (UDF, error) {
		var u tDTypeDecl
		return u, json.Unmarshal(p, &u)
	})
}

// LiberTEM's dtype=object single buffers and 'S1' nav buffers are refused
// at plan time with an error that says why and what to use instead.
func TestObjectAndBytesBuffersRefused(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	for _, k := range []BufferKind{Nav, Sig, Single} {
		for _, d := range []nd.DType{ObjectDType, BytesDType} {
			_, err := Run(context.Background(), ds, []UDF{tDTypeDecl{K: k, D: d}}, WithScheduler(sched.Sync{}))
			var be *BufferError
			if !errors.As(err, &be) || be.Buffer != "b" || !errors.Is(err, ErrUnsupportedDType) {
				t.Errorf("%v %v: got %v, want a *BufferError naming b and wrapping ErrUnsupportedDType", k, d, err)
			}
			if err != nil && !strings.Contains(err.Error(), "Uint8") {
				t.Errorf("%v: %v does not say what to use instead", d, err)
			}
		}
	}
	// Another invalid dtype is not mistaken for these.
	_, err := Run(context.Background(), ds, []UDF{tDTypeDecl{K: Nav, D: nd.DType(0x80)}}, WithScheduler(sched.Sync{}))
	if err == nil || errors.Is(err, ErrUnsupportedDType) {
		t.Errorf("dtype 0x80: %v", err)
	}
}

// tFailDecl panics in Buffers, which the plan calls on the main node.
type tFailDecl struct{}

func (tFailDecl) Name() string                        { return "test.panicdecl" }
func (tFailDecl) Params() ([]byte, error)             { return nil, nil }
func (tFailDecl) Buffers(*Meta) ([]BufferDecl, error) { panic("tFail panics in buffers") }
func (tFailDecl) ProcessFrame(*Ctx, *nd.Array) error  { return nil }

func init() { RegisterUDF("test.panicdecl", func([]byte) (UDF, error) { return tFailDecl{}, nil }) }

// A panic while planning (Buffers) is recovered by each entry point, and
// one in an AutoUDF function keeps its value and stack too.
func TestPlanPanicsRecovered(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	_, err := Run(context.Background(), ds, []UDF{tFailDecl{}})
	panicOf(t, "Run", err, false)
	_, err = RunLazy(ds, []UDF{tFailDecl{}})
	panicOf(t, "RunLazy", err, false)
	_, err = RunIter(ds, []UDF{tFailDecl{}})
	panicOf(t, "RunIter", err, false)

	_, err = Run(context.Background(), ds, []UDF{Map(func(*nd.Array) (*nd.Array, error) { panic("tFail panics in a map function") })})
	var pe *sched.PanicError
	var ue *UDFError
	if !errors.As(err, &pe) || !errors.As(err, &ue) || ue.UDF != "AutoUDF" || !bytes.Contains(pe.Stack, []byte("TestPlanPanicsRecovered")) {
		t.Errorf("AutoUDF panic: %v, want a *UDFError naming AutoUDF around a *sched.PanicError with the stack", err)
	}
}
