package distributed

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlaintextToTLS: a client or a worker without TLS dialing a TLS
// scheduler fails at once (not after ConnectTimeout's 30 s) with an
// error wrapping ErrUnauthenticated that says the scheduler speaks TLS;
// the calls run under a 20 s context, so a client that waited for the
// connect timeout would fail with the context's error instead (no
// wall-clock assertion, which a loaded machine could break);
// with nothing listening the probe says no, and a plaintext scheduler
// is not taken for a TLS one.
func TestPlaintextToTLS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if err := GenerateCerts(dir, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(SchedulerOptions{Security: RoleSecurity(dir, RoleScheduler, "tok"), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	plain, err := NewServer(SchedulerOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "speaks TLS") {
			t.Errorf("%s: %v; want ErrUnauthenticated saying the scheduler speaks TLS", what, err)
		}
	}
	cl, err := Connect(ctx, srv.Addr(), ClientOptions{Security: Security{Token: "tok"}})
	if err == nil {
		cl.Close()
	}
	check("plaintext Connect", err)

	w, err := StartWorker(ctx, WorkerOptions{Scheduler: srv.Addr(), Threads: 1, Logger: quietLogger(), Security: Security{Token: "tok"}})
	if err == nil {
		w.Close()
	}
	check("plaintext StartWorker", err)

	if !speaksTLS(ctx, srv.Addr()) {
		t.Error("speaksTLS(TLS scheduler) = false")
	}
	if speaksTLS(ctx, plain.Addr()) {
		t.Error("speaksTLS(plaintext scheduler) = true")
	}
	if speaksTLS(ctx, "127.0.0.1:1") {
		t.Error("speaksTLS(nothing listening) = true")
	}
}
