package distributed

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRefusalsLogged: a peer refused at the TLS handshake and a call
// without the token are both refused and logged with the peer's address.
func TestRefusalsLogged(t *testing.T) {
	dir, foreign := filepath.Join(t.TempDir(), "ours"), filepath.Join(t.TempDir(), "foreign")
	for _, d := range []string{dir, foreign} {
		if err := GenerateCerts(d, nil, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	var logs syncBuffer
	srv, err := NewServer(SchedulerOptions{
		Security: RoleSecurity(dir, RoleScheduler, "s3cret"),
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*hangGuard)
	defer cancel()
	tests := []struct {
		name string
		sec  Security
		log  string
	}{
		{"foreign CA", CertSecurity(foreign, "s3cret"), "refused a connection at the TLS handshake"},
		{"no token", CertSecurity(dir, ""), "refused a call without the cluster token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := StartWorker(ctx, WorkerOptions{Scheduler: srv.Addr(), Security: tt.sec, ConnectTimeout: hangGuard, Logger: slog.New(slog.DiscardHandler)})
			if err == nil {
				w.Close()
				t.Fatal("worker registered")
			}
			deadline := time.Now().Add(hangGuard)
			for !strings.Contains(logs.String(), tt.log) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(logs.String(), tt.log) || !strings.Contains(logs.String(), "peer=127.0.0.1:") {
				t.Errorf("log lacks %q with the peer's address:\n%s", tt.log, logs.String())
			}
			if n := len(srv.Status().Workers); n != 0 {
				t.Errorf("%d workers registered", n)
			}
		})
	}
}
