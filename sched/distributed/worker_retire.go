package distributed

import "time"

// A retired worker's exit. The scheduler sends SchedulerMessage.retire
// once the worker runs nothing and every value it holds that the cluster
// still needs has another holder (server_retire.go). The worker then
// stops as when its context is cancelled: it closes its side of the
// session (the scheduler forgets it as a worker that left), its runners
// end, and it exits; RunWorker returns nil, so a worker process (tessera
// worker, MaybeWorker) exits with status 0. Only its data plane ends
// differently: the fetches under way from it (a peer's task given its
// address before the copies were made, a client gathering a value) are
// let finish, for up to retireDrain, where a stopping worker cuts them
// off.

// retireDrain bounds the wait for the fetches under way from a retired
// worker's data plane.
const retireDrain = 10 * time.Second

// retire: the scheduler retired this worker; it exits.
func (w *Worker) retire() {
	w.mu.Lock()
	w.retired = true
	w.mu.Unlock()
	w.log.Info("retired by the scheduler; exiting", "scheduler", w.opts.Scheduler)
	w.cancel()
}

// Retired reports whether the worker stopped because its scheduler
// retired it (Server.RetireWorkers).
func (w *Worker) Retired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.retired
}

// stopData stops the data plane: at once, or for a retired worker after
// the fetches under way have finished (at most retireDrain).
func (w *Worker) stopData() {
	w.mu.Lock()
	retired := w.retired
	w.mu.Unlock()
	if !retired {
		w.srv.Stop()
		return
	}
	done := make(chan struct{})
	go func() {
		w.srv.GracefulStop()
		close(done)
	}()
	t := time.NewTimer(retireDrain)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		w.srv.Stop()
		<-done
	}
}
