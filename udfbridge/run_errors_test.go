package udfbridge

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// tBad misbehaves in the way its mode says.
type tBad struct{ mode string }

func (u tBad) Name() string            { return "test.bad" }
func (u tBad) Params() ([]byte, error) { return []byte(u.mode), nil }
func (u tBad) Buffers(m *Meta) ([]BufferDecl, error) {
	d := []BufferDecl{NavBuffer("nav", nd.Float32),
		{Name: "priv", Kind: Nav, DType: nd.Float32, Use: UsePrivate},
		{Name: "ro", Kind: Single, DType: nd.Float32, Use: UseResultOnly}}
	if u.mode == "nomerge" {
		d = append(d, SigBuffer("sig", nd.Float32))
	}
	return d, nil
}
func (u tBad) ProcessFrame(c *Ctx, f *nd.Array) error { return nil }
func (u tBad) Method(m *Meta) Method {
	if u.mode == "method" {
		return MethodTile
	}
	return MethodAuto
}
func (u tBad) GetResults(c *Ctx) (map[string]*nd.Array, error) {
	one, _ := nd.Zeros(nd.Float32, 1)
	out := map[string]*nd.Array{"ro": one}
	switch u.mode {
	case "undeclared":
		out["nope"] = one
	case "private":
		out["priv"] = c.Buf("priv")
	case "kind":
		out["ro"], _ = nd.Zeros(nd.Int32, 1)
	case "unset":
		delete(out, "ro")
	case "mask":
		m, _ := nd.Zeros(nd.Bool, 3, 3, 3)
		if err := c.WithMask("nav", m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tBadAll has a merge_all returning the wrong things.
type tBadAll struct{ mode string }

func (u tBadAll) Name() string            { return "test.badall" }
func (u tBadAll) Params() ([]byte, error) { return []byte(u.mode), nil }
func (u tBadAll) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{SigBuffer("sig", nd.Float32)}, nil
}
func (u tBadAll) ProcessFrame(c *Ctx, f *nd.Array) error { return nil }
func (u tBadAll) MergeAll(c *MergeCtx, o []map[string]*nd.Array) (map[string]*nd.Array, error) {
	switch u.mode {
	case "name":
		return map[string]*nd.Array{"zzz": o[0]["sig"]}, nil
	case "dtype":
		a, _ := o[0]["sig"].AsType(nd.Float64)
		return map[string]*nd.Array{"sig": a}, nil
	default:
		a, _ := nd.Zeros(nd.Float32, 2)
		return map[string]*nd.Array{"sig": a}, nil
	}
}

func init() {
	RegisterUDF("test.bad", func(b []byte) (UDF, error) { return tBad{string(b)}, nil })
	RegisterUDF("test.badall", func(b []byte) (UDF, error) { return tBadAll{string(b)}, nil })
}

type tUnregistered struct{ tNavSum }

func (tUnregistered) Name() string { return "test.unregistered" }

func TestRunErrors(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Uint16)
	n := shapeProd(nav)
	wrong, _ := nd.Zeros(nd.Bool, n+1)
	intROI, _ := nd.Zeros(nd.Int8, n)
	ok, _ := nd.Zeros(nd.Bool, n)
	_ = ok
	for _, c := range []struct {
		name string
		udfs []UDF
		opts []RunOption
		want []string
	}{
		{"no udf", nil, nil, []string{"at least one UDF"}},
		{"roi size", []UDF{tNavSum{}}, []RunOption{WithROI(wrong)}, []string{"[25]", "[4 6]"}},
		{"roi dtype", []UDF{tNavSum{}}, []RunOption{WithROI(intROI)}, []string{"bool", "int8"}},
		{"undeclared", []UDF{tBad{"undeclared"}}, nil, []string{"test.bad", `"nope"`, "not declared"}},
		{"private", []UDF{tBad{"private"}}, nil, []string{"test.bad", `"priv"`, "private"}},
		{"kind", []UDF{tBad{"kind"}}, nil, []string{"test.bad", `"ro"`, "kind"}},
		{"result_only unset", []UDF{tBad{"unset"}}, nil, []string{"test.bad", `"ro"`, "result_only"}},
		{"bad mask", []UDF{tBad{"mask"}}, nil, []string{"test.bad", `"nav"`, "with_mask"}},
		{"no merge", []UDF{tBad{"nomerge"}}, nil, []string{"test.bad", "no Merge"}},
		{"method", []UDF{tBad{"method"}}, nil, []string{"test.bad", "process_tile"}},
		{"merge_all name", []UDF{tBadAll{"name"}}, []RunOption{WithMerge(MergeAllNode)}, []string{"test.badall", `"zzz"`}},
		{"merge_all dtype", []UDF{tBadAll{"dtype"}}, []RunOption{WithMerge(MergeAllNode)}, []string{"test.badall", `"sig"`, "float64"}},
		{"merge_all shape", []UDF{tBadAll{"shape"}}, []RunOption{WithMerge(MergeAllNode)}, []string{"test.badall", `"sig"`, "[2]"}},
		{"merge_all but tree", []UDF{tBadAll{"name"}}, nil, []string{"test.badall", "no Merge"}},
		{"unregistered", []UDF{tUnregistered{}}, nil, []string{"test.unregistered", "not registered"}},
		{"backend", []UDF{tNavSum{}}, []RunOption{WithBackend(BackendCUDA)}, []string{"test.navsum", "cupy"}},
	} {
		for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{}} {
			res, err := Run(context.Background(), ds, c.udfs, append(c.opts, WithScheduler(s), WithPartitions(3))...)
			if err == nil {
				t.Errorf("%s: no error", c.name)
				continue
			}
			if res != nil {
				t.Errorf("%s: partial results with the error", c.name)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not name %q", c.name, err, w)
				}
			}
		}
	}
}
