package graph_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-go/tessera/graph"
)

// jsonTestGraph has a literal of every codec type, aliases, lists, nested
// tasks, ops with JSON and with binary parameters, and resources.
func jsonTestGraph(t testing.TB) *graph.Graph {
	g := graph.New(0)
	set := func(k graph.Key, n graph.Node) {
		if err := g.Set(k, n); err != nil {
			t.Fatalf("Set(%q): %v", k, err)
		}
	}
	for _, tt := range codecValues {
		set(graph.Key("lit-"+tt.name), graph.Literal(tt.v))
	}
	set("x", graph.Literal(2))
	set("alias", graph.Alias("x"))
	set(graph.BlockKey("scale-00ff00ff00ff00ff", 0, 1), graph.Task(scaleOp{Factor: 3}, graph.Ref("alias")))
	set("bin", graph.Task(binOp{C: math.Pi}))
	set("bin-nan", graph.Task(binOp{C: math.NaN()}))
	set("sum", graph.Node{
		Kind: graph.KindTask,
		Op:   addOp{},
		Args: []graph.Arg{
			graph.Ref("x"),
			graph.Lit(5),
			graph.List(graph.Ref("x"), graph.Lit("s"), graph.List(), graph.List(graph.Lit(math.Inf(-1)))),
			graph.Nested(scaleOp{Factor: -1}, graph.Nested(addOp{}, graph.Ref("bin"), graph.Lit(point{1, 2}))),
			graph.Nested(listOp{}),
		},
		Resources: map[string]float64{"GPU": 1, "memory": 2.5e9},
	})
	set("empty-resources", graph.Node{Kind: graph.KindTask, Op: addOp{}, Resources: map[string]float64{}})
	set("key \"quoted\" <html> & ünïcode", graph.Alias("sum"))
	return g
}

func TestJSONRoundTrip(t *testing.T) {
	g := jsonTestGraph(t)
	b, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back graph.Graph
	if err := back.UnmarshalJSON(b); err != nil {
		t.Fatalf("UnmarshalJSON: %v\n%s", err, b)
	}
	if !graph.Equal(&back, g) {
		for i, k := range g.Keys() {
			n, ok := back.Get(k)
			if !ok || !graph.NodesEqual(n, g.At(i)) {
				t.Errorf("node %q: got %+v, want %+v", k, n, g.At(i))
			}
		}
		t.Fatal("decode(encode(g)) != g")
	}
	if !slices.Equal(back.Keys(), g.Keys()) {
		t.Errorf("insertion order not kept")
	}
	if err := back.Validate(); err != nil {
		t.Errorf("Validate after round trip: %v", err)
	}
	// Byte-stable: encoding the decoded graph gives the same bytes.
	b2, err := back.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("re-encoding differs:\n%s\n%s", b, b2)
	}
	if !json.Valid(b) {
		t.Errorf("not valid JSON")
	}
}

func TestJSONParams(t *testing.T) {
	if p, _ := (binOp{C: math.Pi}).Params(); utf8.Valid(p) {
		t.Fatalf("test setup: binOp params %x are valid UTF-8", p)
	}
	g := graph.New(0)
	mustSet(t, g, "s", graph.Task(scaleOp{Factor: 7}))
	mustSet(t, g, "b", graph.Task(binOp{C: math.Pi}))
	b, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []map[string]json.RawMessage `json:"nodes"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Nodes[0]["params"]); got != `"{\"factor\":7}"` {
		t.Errorf("JSON params stored as %s, want the readable string", got)
	}
	if _, ok := doc.Nodes[1]["params64"]; !ok {
		t.Errorf("binary params not stored as params64: %s", b)
	}
	back, err := graph.ReadJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := back.Get("b")
	if op, ok := n.Op.(binOp); !ok || op.C != math.Pi {
		t.Errorf("binary params decoded to %#v", n.Op)
	}
}

func TestJSONWriteRead(t *testing.T) {
	g := jsonTestGraph(t)
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), "}\n") {
		t.Errorf("WriteJSON does not end in a newline")
	}
	back, err := graph.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !graph.Equal(back, g) {
		t.Errorf("ReadJSON(WriteJSON(g)) != g")
	}
}

func TestJSONDeepArgs(t *testing.T) {
	// Arguments nested close to the limit, holding a literal as deep as
	// the codec allows: the re-encoded graph still decodes.
	v := any(1)
	for i := 0; i < 60; i++ {
		v = []any{v}
	}
	a := graph.Lit(map[string]any{"deep": v})
	for i := 0; i < 250; i++ {
		a = graph.List(a)
	}
	g := graph.New(0)
	mustSet(t, g, "k", graph.Task(addOp{}, a))
	b, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back := &graph.Graph{}
	if err := back.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	b2, err := back.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := back.UnmarshalJSON(b2); err != nil {
		t.Fatal(err)
	}
	if !graph.Equal(back, g) {
		t.Errorf("deep graph changed in the round trip")
	}
}

func TestJSONDecodeErrors(t *testing.T) {
	lit := `{"t":"int","v":1}`
	doc := func(nodes ...string) string { return `{"tessera_graph":1,"nodes":[` + strings.Join(nodes, ",") + `]}` }
	tests := []struct {
		name    string
		in      string
		wantKey graph.Key
		check   func(error) bool
	}{
		{"unknown-op", doc(`{"key":"k","op":"graphtest.nope"}`), "k", func(err error) bool {
			var ue *graph.UnknownOpError
			return errors.As(err, &ue) && ue.Name == "graphtest.nope"
		}},
		{"unknown-nested-op", doc(`{"key":"k","op":"graphtest.add","args":[{"op":"graphtest.nope"}]}`), "k", func(err error) bool {
			var ue *graph.UnknownOpError
			return errors.As(err, &ue)
		}},
		{"conflicting-duplicate", doc(`{"key":"k","literal":{"t":"int","v":1}}`, `{"key":"k","literal":{"t":"int","v":2}}`), "k", func(err error) bool {
			var ce *graph.ConflictError
			return errors.As(err, &ce) && ce.Key == "k"
		}},
		{"empty-key", doc(`{"key":"","literal":` + lit + `}`), "", func(err error) bool {
			var ie *graph.InvalidNodeError
			return errors.As(err, &ie)
		}},
		{"literal-and-op", doc(`{"key":"k","literal":` + lit + `,"op":"graphtest.add"}`), "k", nil},
		{"literal-and-alias", doc(`{"key":"k","literal":` + lit + `,"alias":"x"}`), "k", nil},
		{"literal-with-args", doc(`{"key":"k","literal":` + lit + `,"args":[]}`), "k", nil},
		{"alias-with-resources", doc(`{"key":"k","alias":"x","resources":{"GPU":1}}`), "k", nil},
		{"nothing", doc(`{"key":"k"}`), "k", nil},
		{"arg-two-kinds", doc(`{"key":"k","op":"graphtest.add","args":[{"ref":"x","lit":` + lit + `}]}`), "k", nil},
		{"arg-nothing", doc(`{"key":"k","op":"graphtest.add","args":[{}]}`), "k", nil},
		{"arg-args-without-op", doc(`{"key":"k","op":"graphtest.add","args":[{"ref":"x","args":[]}]}`), "k", nil},
		{"both-params", doc(`{"key":"k","op":"graphtest.scale","params":"{}","params64":"AA=="}`), "k", nil},
		{"params-rejected", doc(`{"key":"k","op":"graphtest.add","params":"x"}`), "k", nil},
		{"bad-params", doc(`{"key":"k","op":"graphtest.bin","params":"short"}`), "k", nil},
		{"int8-overflow", doc(`{"key":"k","literal":{"t":"int8","v":300}}`), "k", nil},
		{"uint-negative", doc(`{"key":"k","literal":{"t":"uint","v":-1}}`), "k", nil},
		{"int-fraction", doc(`{"key":"k","literal":{"t":"int","v":1.5}}`), "k", nil},
		{"float32-overflow", doc(`{"key":"k","literal":{"t":"float32","v":1e39}}`), "k", nil},
		{"bad-float-string", doc(`{"key":"k","literal":{"t":"float64","v":"Infinity"}}`), "k", nil},
		{"complex-one-part", doc(`{"key":"k","literal":{"t":"complex128","v":[1]}}`), "k", nil},
		{"unknown-value-type", doc(`{"key":"k","literal":{"t":"quaternion","v":1}}`), "k", nil},
		{"missing-v", doc(`{"key":"k","literal":{"t":"int"}}`), "k", nil},
		{"nil-with-payload", doc(`{"key":"k","literal":{"t":"nil","v":1}}`), "k", nil},
		{"bad-codec", doc(`{"key":"k","literal":{"t":"codec","v":"/w=="}}`), "k", func(err error) bool {
			var ce *graph.CodecError
			return errors.As(err, &ce)
		}},
		{"list-unknown-field", doc(`{"key":"k","literal":{"t":"list","v":[{"t":"int","v":1,"x":2}]}}`), "k", nil},
		{"wrong-version", `{"tessera_graph":2,"nodes":[]}`, "", nil},
		{"missing-version", `{"nodes":[]}`, "", nil},
		{"unknown-field", `{"tessera_graph":1,"nodes":[],"extra":1}`, "", nil},
		{"trailing-data", doc() + ` {}`, "", nil},
		{"truncated", doc(`{"key":"k","literal":` + lit + `}`)[:30], "", nil},
		{"empty", ``, "", nil},
		{"array", `[]`, "", nil},
		{"nodes-not-array", `{"tessera_graph":1,"nodes":{}}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			mustSet(t, g, "old", graph.Literal(0))
			err := g.UnmarshalJSON([]byte(tt.in))
			var je *graph.JSONError
			if !errors.As(err, &je) {
				t.Fatalf("UnmarshalJSON = %v (%T), want a *JSONError", err, err)
			}
			if je.Key != tt.wantKey {
				t.Errorf("JSONError.Key = %q, want %q", je.Key, tt.wantKey)
			}
			if tt.wantKey != "" && !strings.Contains(err.Error(), string(tt.wantKey)) {
				t.Errorf("message %q does not name the key", err)
			}
			if tt.check != nil && !tt.check(err) {
				t.Errorf("error %v is not of the expected type", err)
			}
			if g.Len() != 0 {
				t.Errorf("graph not left empty on error: %v", g.Keys())
			}
			if _, err := graph.ReadJSON(strings.NewReader(tt.in)); err == nil {
				t.Errorf("ReadJSON accepted what UnmarshalJSON rejects")
			}
		})
	}
}

func TestJSONKeyNotUTF8(t *testing.T) {
	g := graph.New(0)
	mustSet(t, g, "\xffkey", graph.Literal(1))
	_, err := g.MarshalJSON()
	var je *graph.JSONError
	if !errors.As(err, &je) || je.Key != "\xffkey" {
		t.Fatalf("MarshalJSON = %v, want a *JSONError naming the key", err)
	}
	// A literal string that is not UTF-8 is fine: it goes through the codec.
	g = graph.New(0)
	mustSet(t, g, "k", graph.Literal("\xff"))
	b, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := graph.ReadJSON(bytes.NewReader(b))
	if err != nil || !graph.Equal(back, g) {
		t.Errorf("non-UTF-8 literal did not round trip: %v", err)
	}
}

func TestJSONDuplicateEqualKeys(t *testing.T) {
	in := `{"tessera_graph":1,"nodes":[{"key":"k","literal":{"t":"int","v":1}},{"key":"k","literal":{"t":"int","v":1}}]}`
	g, err := graph.ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 1 {
		t.Errorf("equal duplicates gave %d nodes, want 1", g.Len())
	}
}

func TestJSONEncodeErrors(t *testing.T) {
	type unregistered struct{}
	unregOp := &graph.FuncOp{OpName: "graphtest.unregistered", Fn: nil}
	tests := []struct {
		name  string
		node  graph.Node
		check func(error) bool
	}{
		{"unregistered-op", graph.Task(unregOp), func(err error) bool {
			var ue *graph.UnknownOpError
			return errors.As(err, &ue) && ue.Name == "graphtest.unregistered"
		}},
		{"unregistered-nested-op", graph.Task(addOp{}, graph.Nested(unregOp)), func(err error) bool {
			var ue *graph.UnknownOpError
			return errors.As(err, &ue)
		}},
		{"unregistered-literal", graph.Literal(unregistered{}), func(err error) bool {
			return errors.Is(err, graph.ErrUnregisteredType)
		}},
		{"unregistered-arg", graph.Task(addOp{}, graph.List(graph.Lit(unregistered{}))), func(err error) bool {
			return errors.Is(err, graph.ErrUnregisteredType)
		}},
		{"failing-params", graph.Task(failingParamsRegistered{}), nil},
		{"ref-not-utf8", graph.Task(addOp{}, graph.List(graph.Ref("\xff"))), nil},
		{"alias-not-utf8", graph.Alias("\xff"), nil},
		{"resource-nan", graph.Node{Kind: graph.KindTask, Op: addOp{}, Resources: map[string]float64{"GPU": math.NaN()}}, nil},
		{"resource-not-utf8", graph.Node{Kind: graph.KindTask, Op: addOp{}, Resources: map[string]float64{"\xff": 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			mustSet(t, g, "k", tt.node)
			b, err := g.MarshalJSON()
			var je *graph.JSONError
			if !errors.As(err, &je) || je.Key != "k" {
				t.Fatalf("MarshalJSON = %s, %v; want a *JSONError for k", b, err)
			}
			if tt.check != nil && !tt.check(err) {
				t.Errorf("error %v is not of the expected type", err)
			}
		})
	}
}

type failingParamsRegistered struct{ failingParams }

func (failingParamsRegistered) Name() string { return "graphtest.failing-registered" }

func init() { graph.Register(failingParamsRegistered{}) }

func FuzzGraphJSON(f *testing.F) {
	small := graph.New(0)
	mustSet(f, small, "x", graph.Literal(1.5))
	mustSet(f, small, "y", graph.Task(scaleOp{Factor: 2}, graph.Ref("x"), graph.List(graph.Lit("a"))))
	mustSet(f, small, "z", graph.Alias("y"))
	for _, g := range []*graph.Graph{graph.New(0), small, jsonTestGraph(f)} {
		b, err := g.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"tessera_graph":1,"nodes":[{"key":"k","op":"graphtest.bin","params64":"GC1EVPshCUA="}]}`))
	f.Add([]byte(`{"tessera_graph":1,"nodes":[{"key":"k","literal":{"t":"codec","v":"FAIA"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var g graph.Graph
		if err := g.UnmarshalJSON(b); err != nil {
			var je *graph.JSONError
			if !errors.As(err, &je) {
				t.Fatalf("error %v (%T) is not a *JSONError", err, err)
			}
			return
		}
		enc, err := g.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON of a decoded graph: %v", err)
		}
		var back graph.Graph
		if err := back.UnmarshalJSON(enc); err != nil {
			t.Fatalf("decoding the re-encoded graph: %v\n%s", err, enc)
		}
		if !graph.Equal(&g, &back) || !slices.Equal(g.Keys(), back.Keys()) {
			t.Fatalf("encode/decode changed the graph:\n%s", enc)
		}
	})
}
