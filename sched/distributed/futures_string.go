package distributed

import "fmt"

// String describes the Future as Dask's repr does: its state and key,
// "Future(pending, inc-3f2a…)", "Future(finished, …)", "Future(error, …)",
// or "Future(released, …)" after Release. It does not wait.
func (f *Future) String() string {
	if f == nil {
		return "Future(nil)"
	}
	state := "pending"
	select {
	case <-f.st.done:
		state = "finished"
		if f.st.err != nil {
			state = "error"
		}
	default:
	}
	if f.released.Load() {
		state = "released"
	}
	return fmt.Sprintf("Future(%s, %s)", state, f.st.key)
}
