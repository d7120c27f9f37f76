package distributed

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Secure by default: a scheduler or worker listening beyond loopback
// without mutual TLS and a token refuses to start with ErrInsecure unless
// told Insecure (-insecure), and then says so in its log and status.
func TestInsecureRefusedByDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if err := GenerateCerts(dir, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	full := RoleSecurity(dir, RoleScheduler, "tok")
	tlsOnly := RoleSecurity(dir, RoleScheduler, "")
	for _, tc := range []struct {
		name     string
		opts     SchedulerOptions
		refused  bool
		insecure bool
	}{
		{"loopback, nothing", SchedulerOptions{Address: "127.0.0.1:0"}, false, false},
		{"localhost, nothing", SchedulerOptions{Address: "localhost:0"}, false, false},
		{"every interface, nothing", SchedulerOptions{Address: ":0"}, true, false},
		{"every interface, token only", SchedulerOptions{Address: ":0", Security: Security{Token: "tok"}}, true, false},
		{"every interface, TLS only", SchedulerOptions{Address: ":0", Security: tlsOnly}, true, false},
		{"every interface, TLS and token", SchedulerOptions{Address: ":0", Security: full}, false, false},
		{"status beyond loopback", SchedulerOptions{Address: "127.0.0.1:0", StatusAddress: ":0"}, true, false},
		{"every interface, -insecure", SchedulerOptions{Address: ":0", Insecure: true}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs logBuffer
			tc.opts.Logger = logs.logger()
			s, err := NewServer(tc.opts)
			if tc.refused {
				if !errors.Is(err, ErrInsecure) {
					t.Fatalf("NewServer: %v, want ErrInsecure", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Status().Insecure; got != tc.insecure {
				t.Errorf("Status().Insecure = %v, want %v", got, tc.insecure)
			}
			if got := strings.Contains(logs.String(), "INSECURE"); got != tc.insecure {
				t.Errorf("log says INSECURE: %v, want %v\n%s", got, tc.insecure, logs.String())
			}
		})
	}

	// A worker's data plane: refused on every interface without TLS and a
	// token, before it dials anything.
	_, err := StartWorker(context.Background(), WorkerOptions{Scheduler: "127.0.0.1:1", ListenAddress: ":0", Threads: 1, Logger: quietLogger(), ConnectTimeout: time.Second})
	if !errors.Is(err, ErrInsecure) {
		t.Errorf("StartWorker on :0 without TLS and token: %v, want ErrInsecure", err)
	}

	// The flag reaches the options.
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	build := SchedulerFlags(fs)
	if err := fs.Parse([]string{"-insecure"}); err != nil {
		t.Fatal(err)
	}
	if o, err := build(); err != nil || !o.Insecure {
		t.Errorf("scheduler -insecure: %+v, %v", o, err)
	}
	fs = flag.NewFlagSet("worker", flag.ContinueOnError)
	wbuild := WorkerFlags(fs)
	if err := fs.Parse([]string{"-scheduler", "h:1", "-insecure"}); err != nil {
		t.Fatal(err)
	}
	if o, err := wbuild(); err != nil || !o.Insecure {
		t.Errorf("worker -insecure: %+v, %v", o, err)
	}
}
