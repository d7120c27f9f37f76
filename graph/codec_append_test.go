package graph

import (
	"errors"
	"testing"
)

type appendTestVal struct{ n int }

// A type whose size function lies for n == 3, to check the guard.
// Registered once, in init: registering in the test body panicked when the
// test ran again in one process (-count, -cpu lists).
func init() {
	RegisterTypeAppend[*appendTestVal]("graph.appendTestVal",
		func(v *appendTestVal) (int, error) {
			if v.n == 3 {
				return 2, nil
			}
			return v.n, nil
		},
		func(dst []byte, v *appendTestVal) ([]byte, error) {
			for i := 0; i < v.n; i++ {
				dst = append(dst, byte(i))
			}
			return dst, nil
		},
		func(b []byte) (*appendTestVal, error) { return &appendTestVal{n: len(b)}, nil })
}

func TestRegisterTypeAppend(t *testing.T) {
	for _, n := range []int{0, 1, 200, 70000} {
		b, err := Marshal(&appendTestVal{n: n})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.(*appendTestVal).n; got != n {
			t.Errorf("round trip of %d-byte payload gave %d", n, got)
		}
		// The same bytes as the plain path: Encode, then length-prefixed.
		c := typeRegistry.byName["graph.appendTestVal"]
		payload, _ := c.Encode(&appendTestVal{n: n})
		if len(payload) != n {
			t.Errorf("Encode gave %d bytes, want %d", len(payload), n)
		}
	}
	var ce *CodecError
	if _, err := Marshal(&appendTestVal{n: 3}); !errors.As(err, &ce) {
		t.Errorf("size mismatch: err %v, want *CodecError", err)
	}
}
