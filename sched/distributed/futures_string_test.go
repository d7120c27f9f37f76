package distributed

import (
	"fmt"
	"testing"
)

// A Future prints its state and key without waiting.
func TestFutureString(t *testing.T) {
	st := &futState{key: "inc-1", done: make(chan struct{}), started: make(chan struct{})}
	f := &Future{st: st}
	if got := f.String(); got != "Future(pending, inc-1)" {
		t.Errorf("pending: %q", got)
	}
	close(st.done)
	if got := fmt.Sprint(f); got != "Future(finished, inc-1)" {
		t.Errorf("finished: %q", got)
	}
	st.err = ErrCancelled
	if got := fmt.Sprintf("%v", []*Future{f}); got != "[Future(error, inc-1)]" {
		t.Errorf("error: %q", got)
	}
	f.released.Store(true)
	if got := f.String(); got != "Future(released, inc-1)" {
		t.Errorf("released: %q", got)
	}
}
