package graph

// Kind says what a Node is. Nodes carry their kind explicitly; nothing in
// tessera recognises a task by its shape.
type Kind uint8

// The node kinds.
const (
	KindTask    Kind = iota + 1 // an Op applied to Args
	KindLiteral                 // a value
	KindAlias                   // another key's value
)

func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindLiteral:
		return "literal"
	case KindAlias:
		return "alias"
	}
	return "invalid"
}

// Node is one entry of a graph.
type Node struct {
	Kind   Kind
	Op     Op    // KindTask
	Args   []Arg // KindTask
	Value  any   // KindLiteral
	Target Key   // KindAlias
	// Resources are abstract resources a task needs on the worker that runs
	// it, such as {"GPU": 1}; nil for most tasks. Schedulers that do not
	// place tasks ignore them.
	Resources map[string]float64
}

// Task returns a task node.
func Task(op Op, args ...Arg) Node { return Node{Kind: KindTask, Op: op, Args: args} }

// Literal returns a literal node.
func Literal(v any) Node { return Node{Kind: KindLiteral, Value: v} }

// Alias returns a node that stands for target.
func Alias(target Key) Node { return Node{Kind: KindAlias, Target: target} }

// ArgKind says what an Arg is.
type ArgKind uint8

// The argument kinds.
const (
	ArgRef    ArgKind = iota + 1 // the value of another key
	ArgLit                       // a literal value
	ArgList                      // a list of args, resolved to []any
	ArgNested                    // a task run in place, resolved to its result
)

// Arg is one argument of a task.
type Arg struct {
	Kind ArgKind
	Ref  Key   // ArgRef
	Lit  any   // ArgLit
	List []Arg // ArgList; for ArgNested, the nested task's args
	Op   Op    // ArgNested
}

// Ref returns an argument that refers to key k.
func Ref(k Key) Arg { return Arg{Kind: ArgRef, Ref: k} }

// Lit returns a literal argument.
func Lit(v any) Arg { return Arg{Kind: ArgLit, Lit: v} }

// List returns a list argument; it resolves to []any.
func List(args ...Arg) Arg { return Arg{Kind: ArgList, List: args} }

// Nested returns an argument that runs op on args when its parent task's
// arguments are resolved.
func Nested(op Op, args ...Arg) Arg { return Arg{Kind: ArgNested, Op: op, List: args} }

// Refs appends to dst every key that n refers to, in argument order, with
// repeats.
func (n *Node) Refs(dst []Key) []Key {
	switch n.Kind {
	case KindTask:
		return appendRefs(dst, n.Args)
	case KindAlias:
		return append(dst, n.Target)
	}
	return dst
}

func appendRefs(dst []Key, args []Arg) []Key {
	for i := range args {
		a := &args[i]
		switch a.Kind {
		case ArgRef:
			dst = append(dst, a.Ref)
		case ArgList, ArgNested:
			dst = appendRefs(dst, a.List)
		}
	}
	return dst
}
