package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// The JSON form of a graph, for saved graphs (cmd/graphviz reads them) and
// for people to read:
//
//	{"tessera_graph": 1, "nodes": [
//	  {"key": "x", "literal": {"t": "int", "v": 2}},
//	  {"key": "y", "alias": "x"},
//	  {"key": "z", "op": "add", "args": [{"ref": "x"}, {"lit": {"t": "int", "v": 1}}]}
//	]}
//
// An arg is {"ref": key}, {"lit": value}, {"list": [args]} or a nested task
// {"op": name, "params": ..., "args": [args]}. A value is {"t": type, "v": ...}
// for scalars, strings, keys, bytes (base64) and lists; other registered
// types are {"t": "codec", "v": base64 of EncodeValue}. Floats that JSON
// cannot hold are the strings "NaN", "+Inf", "-Inf". Op parameters are a
// string when they are UTF-8 and "params64" (base64) when not, so that
// decoding gives back the exact bytes. Every op must be registered.

const jsonVersion = 1

type jsonGraph struct {
	Version int        `json:"tessera_graph"`
	Nodes   []jsonNode `json:"nodes"`
}

type jsonNode struct {
	Key       string             `json:"key"`
	Literal   *jsonValue         `json:"literal,omitempty"`
	Alias     *string            `json:"alias,omitempty"`
	Op        string             `json:"op,omitempty"`
	Params    *string            `json:"params,omitempty"`
	Params64  []byte             `json:"params64,omitempty"`
	Args      []jsonArg          `json:"args,omitempty"`
	Resources map[string]float64 `json:"resources,omitempty"`
}

type jsonArg struct {
	Ref      *string    `json:"ref,omitempty"`
	Lit      *jsonValue `json:"lit,omitempty"`
	List     *[]jsonArg `json:"list,omitempty"`
	Op       string     `json:"op,omitempty"`
	Params   *string    `json:"params,omitempty"`
	Params64 []byte     `json:"params64,omitempty"`
	Args     []jsonArg  `json:"args,omitempty"`
}

type jsonValue struct {
	T string          `json:"t"`
	V json.RawMessage `json:"v,omitempty"`
}

// JSONError reports a graph file that cannot be decoded.
type JSONError struct {
	Key Key // the node being decoded, if known
	Err error
}

func (e *JSONError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("graph: json: node %q: %v", string(e.Key), e.Err)
	}
	return "graph: json: " + e.Err.Error()
}

func (e *JSONError) Unwrap() error { return e.Err }

// MarshalJSON encodes g. Every op must be registered and every literal
// encodable.
func (g *Graph) MarshalJSON() ([]byte, error) {
	jg := jsonGraph{Version: jsonVersion, Nodes: make([]jsonNode, 0, g.Len())}
	for i, k := range g.keys {
		n := &g.nodes[i]
		jn := jsonNode{Key: string(k)}
		var err error
		// encoding/json would replace invalid UTF-8 with U+FFFD and the
		// file would name other keys than the graph; refuse instead.
		if !utf8.ValidString(string(k)) {
			return nil, &JSONError{Key: k, Err: errNotUTF8("key")}
		}
		switch n.Kind {
		case KindLiteral:
			jn.Literal, err = valueToJSON(n.Value)
		case KindAlias:
			t := string(n.Target)
			jn.Alias = &t
			if !utf8.ValidString(t) {
				err = errNotUTF8("alias target")
			}
		case KindTask:
			for name, v := range n.Resources {
				if !utf8.ValidString(name) {
					err = errNotUTF8("resource name")
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					err = fmt.Errorf("resource %s is %v, which JSON cannot hold", name, v)
				}
			}
			if err == nil {
				jn.Op, jn.Params, jn.Params64, err = opToJSON(n.Op)
			}
			if err == nil {
				jn.Args, err = argsToJSON(n.Args)
			}
			jn.Resources = n.Resources
		}
		if err != nil {
			return nil, &JSONError{Key: k, Err: err}
		}
		jg.Nodes = append(jg.Nodes, jn)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jg); err != nil {
		return nil, &JSONError{Err: err}
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// UnmarshalJSON replaces g's contents with the decoded graph. Unknown ops,
// malformed values and conflicting keys are errors; on error g is left
// empty.
func (g *Graph) UnmarshalJSON(b []byte) error {
	*g = Graph{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var jg jsonGraph
	if err := dec.Decode(&jg); err != nil {
		return &JSONError{Err: err}
	}
	if dec.More() {
		return &JSONError{Err: fmt.Errorf("trailing data after the graph")}
	}
	if jg.Version != jsonVersion {
		return &JSONError{Err: fmt.Errorf("unsupported tessera_graph version %d", jg.Version)}
	}
	out := New(len(jg.Nodes))
	for _, jn := range jg.Nodes {
		k := Key(jn.Key)
		n, err := nodeFromJSON(&jn)
		if err != nil {
			return &JSONError{Key: k, Err: err}
		}
		if err := out.Set(k, n); err != nil {
			return &JSONError{Key: k, Err: err}
		}
	}
	*g = *out
	return nil
}

// WriteJSON writes g's JSON form and a newline to w.
func (g *Graph) WriteJSON(w io.Writer) error {
	b, err := g.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadJSON decodes a graph from r.
func ReadJSON(r io.Reader) (*Graph, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &JSONError{Err: err}
	}
	g := &Graph{}
	if err := g.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return g, nil
}

func nodeFromJSON(jn *jsonNode) (Node, error) {
	set := 0
	if jn.Literal != nil {
		set++
	}
	if jn.Alias != nil {
		set++
	}
	if jn.Op != "" {
		set++
	}
	if set != 1 {
		return Node{}, fmt.Errorf("a node needs exactly one of literal, alias, op")
	}
	switch {
	case jn.Literal != nil:
		if jn.Args != nil || jn.Params != nil || jn.Params64 != nil || jn.Resources != nil {
			return Node{}, fmt.Errorf("literal node with task fields")
		}
		v, err := valueFromJSON(jn.Literal, 0)
		if err != nil {
			return Node{}, err
		}
		return Literal(v), nil
	case jn.Alias != nil:
		if jn.Args != nil || jn.Params != nil || jn.Params64 != nil || jn.Resources != nil {
			return Node{}, fmt.Errorf("alias node with task fields")
		}
		return Alias(Key(*jn.Alias)), nil
	}
	op, err := opFromJSON(jn.Op, jn.Params, jn.Params64)
	if err != nil {
		return Node{}, err
	}
	args, err := argsFromJSON(jn.Args, 0)
	if err != nil {
		return Node{}, err
	}
	n := Task(op, args...)
	if len(jn.Resources) > 0 {
		n.Resources = jn.Resources
	}
	return n, nil
}

func opToJSON(op Op) (name string, params *string, params64 []byte, err error) {
	name = op.Name()
	if name == "" {
		return "", nil, nil, fmt.Errorf("op with an empty name")
	}
	if !utf8.ValidString(name) {
		return "", nil, nil, errNotUTF8("op name")
	}
	if !IsRegistered(name) {
		return "", nil, nil, &UnknownOpError{Name: name}
	}
	p, err := OpParams(op)
	if err != nil {
		return "", nil, nil, fmt.Errorf("op %s params: %w", name, err)
	}
	if p == nil {
		return name, nil, nil, nil
	}
	if utf8.Valid(p) {
		s := string(p)
		return name, &s, nil, nil
	}
	return name, nil, p, nil
}

func errNotUTF8(what string) error {
	return fmt.Errorf("%s is not valid UTF-8; JSON cannot hold it exactly", what)
}

func opFromJSON(name string, params *string, params64 []byte) (Op, error) {
	if params != nil && params64 != nil {
		return nil, fmt.Errorf("op %s has both params and params64", name)
	}
	var p []byte
	switch {
	case params != nil:
		p = []byte(*params)
	case params64 != nil:
		p = params64
	}
	return LookupOp(name, p)
}

const maxJSONDepth = 256

func argsToJSON(args []Arg) ([]jsonArg, error) {
	if args == nil {
		return nil, nil
	}
	out := make([]jsonArg, len(args))
	for i := range args {
		a := &args[i]
		switch a.Kind {
		case ArgRef:
			r := string(a.Ref)
			if !utf8.ValidString(r) {
				return nil, errNotUTF8("reference")
			}
			out[i].Ref = &r
		case ArgLit:
			v, err := valueToJSON(a.Lit)
			if err != nil {
				return nil, err
			}
			out[i].Lit = v
		case ArgList:
			l, err := argsToJSON(a.List)
			if err != nil {
				return nil, err
			}
			if l == nil {
				l = []jsonArg{}
			}
			out[i].List = &l
		case ArgNested:
			var err error
			out[i].Op, out[i].Params, out[i].Params64, err = opToJSON(a.Op)
			if err != nil {
				return nil, err
			}
			if out[i].Args, err = argsToJSON(a.List); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("invalid argument kind %d", a.Kind)
		}
	}
	return out, nil
}

func argsFromJSON(in []jsonArg, depth int) ([]Arg, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("arguments nested too deeply")
	}
	if in == nil {
		return nil, nil
	}
	out := make([]Arg, len(in))
	for i := range in {
		ja := &in[i]
		set := 0
		if ja.Ref != nil {
			set++
		}
		if ja.Lit != nil {
			set++
		}
		if ja.List != nil {
			set++
		}
		if ja.Op != "" {
			set++
		}
		if set != 1 {
			return nil, fmt.Errorf("argument %d needs exactly one of ref, lit, list, op", i)
		}
		if ja.Op == "" && (ja.Args != nil || ja.Params != nil || ja.Params64 != nil) {
			return nil, fmt.Errorf("argument %d has args or params without an op", i)
		}
		switch {
		case ja.Ref != nil:
			out[i] = Ref(Key(*ja.Ref))
		case ja.Lit != nil:
			// A value's depth is counted on its own: a "codec" value
			// decodes to lists up to the codec's depth, which encode back
			// as JSON lists, and must still decode under deep arguments.
			v, err := valueFromJSON(ja.Lit, 0)
			if err != nil {
				return nil, err
			}
			out[i] = Lit(v)
		case ja.List != nil:
			l, err := argsFromJSON(*ja.List, depth+1)
			if err != nil {
				return nil, err
			}
			if l == nil {
				l = []Arg{}
			}
			out[i] = List(l...)
		default:
			op, err := opFromJSON(ja.Op, ja.Params, ja.Params64)
			if err != nil {
				return nil, err
			}
			args, err := argsFromJSON(ja.Args, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = Nested(op, args...)
		}
	}
	return out, nil
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v) // only called with ints, strings, bools, slices of those
	return b
}

func floatJSON(f float64, bits int) json.RawMessage {
	switch {
	case math.IsNaN(f):
		return raw("NaN")
	case math.IsInf(f, 1):
		return raw("+Inf")
	case math.IsInf(f, -1):
		return raw("-Inf")
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, bits))
}

// valueToJSON writes v in the JSON form its row of the table of kinds
// gives, or as {"t": "codec"} when the row has none.
func valueToJSON(v any) (*jsonValue, error) {
	if k := lookupKind(v); k != nil && k.toJSON != nil {
		r, ok, err := k.toJSON(v)
		if err != nil {
			return nil, err
		}
		if ok {
			return &jsonValue{T: k.name, V: r}, nil
		}
	}
	b, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return &jsonValue{T: "codec", V: raw(b)}, nil
}

func valueFromJSON(jv *jsonValue, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("value nested too deeply")
	}
	if jv.T == "nil" {
		if len(jv.V) != 0 && string(jv.V) != "null" {
			return nil, fmt.Errorf("nil value with a payload")
		}
		return nil, nil
	}
	if len(jv.V) == 0 {
		return nil, fmt.Errorf("value of type %q without v", jv.T)
	}
	if jv.T == "codec" {
		var b []byte
		if err := json.Unmarshal(jv.V, &b); err != nil {
			return nil, fmt.Errorf("codec value: %w", err)
		}
		return Unmarshal(b)
	}
	if k := kindByName[jv.T]; k != nil && k.fromJSON != nil {
		return k.fromJSON(jv.V, depth)
	}
	return nil, fmt.Errorf("unknown value type %q", jv.T)
}

// listToJSON is the list row's JSON form: an array of values.
func listToJSON(v any) (json.RawMessage, bool, error) {
	x := v.([]any)
	parts := make([]json.RawMessage, len(x))
	for i, e := range x {
		jv, err := valueToJSON(e)
		if err != nil {
			return nil, false, err
		}
		b, err := json.Marshal(jv)
		if err != nil {
			return nil, false, err
		}
		parts[i] = b
	}
	return raw(parts), true, nil
}

func listFromJSON(r json.RawMessage, depth int) (any, error) {
	var parts []jsonValue
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&parts); err != nil {
		return nil, fmt.Errorf("list value: %w", err)
	}
	out := make([]any, len(parts))
	for i := range parts {
		v, err := valueFromJSON(&parts[i], depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func floatFromJSON(b json.RawMessage, bits int) (float64, error) {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "+Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("bad float %q", s)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, fmt.Errorf("bad float: %w", err)
	}
	return strconv.ParseFloat(n.String(), bits)
}
