package delayed

import (
	"github.com/tessera-go/tessera/graph"
)

// callKey returns prefix-token for a call of opName on args, where the
// token is graph.Tokenize(opName, a1, a2, …) with ai the key of a
// reference and the value of a literal; ok is false when an argument is
// neither or a literal cannot be tokenized. It feeds graph.Hasher
// directly, which hashes names and keys without allocating, so the only
// allocation of a call's key is the key itself.
func callKey(prefix, opName string, args []graph.Arg) (graph.Key, bool) {
	h := graph.NewHasher()
	h.String(opName)
	for i := range args {
		switch a := &args[i]; a.Kind {
		case graph.ArgRef:
			h.Key(a.Ref)
		case graph.ArgLit:
			if h.Value(a.Lit) != nil {
				return "", false
			}
		default:
			return "", false
		}
	}
	buf := make([]byte, 0, len(prefix)+33)
	buf = append(append(buf, prefix...), '-')
	return graph.Key(h.AppendToken(buf)), true
}
