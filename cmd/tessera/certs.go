package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/tessera-go/tessera/sched/distributed"
)

// runCerts is `tessera certs`: a self-signed CA and one certificate per
// role, scheduler, worker and client (distributed.GenerateCerts).
func runCerts(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("certs", "tessera certs -dir D [-hosts h1,10.0.0.2] [-days 365]")
	dir := fs.String("dir", "", "`directory` to write ca.pem, ca-key.pem and the scheduler, worker and client certificates and keys into (required)")
	hosts := fs.String("hosts", "", "comma-separated `list` of host names and IP addresses the certificate covers, besides tessera, localhost, 127.0.0.1 and ::1")
	days := fs.Int("days", 365, "validity in days")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "tessera certs: unexpected arguments %q\n", fs.Args())
		return 2
	case *dir == "":
		fmt.Fprintln(stderr, "tessera certs: -dir is required")
		return 2
	case *days < 1:
		fmt.Fprintf(stderr, "tessera certs: -days %d: want at least 1\n", *days)
		return 2
	}
	var hs []string
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hs = append(hs, h)
		}
	}
	if err := distributed.GenerateCerts(*dir, hs, time.Duration(*days)*24*time.Hour); err != nil {
		fmt.Fprintf(stderr, "tessera certs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote ca.pem, ca-key.pem, scheduler.pem, worker.pem and client.pem with their keys to %s\n", *dir)
	fmt.Fprintf(stdout, "copy ca.pem and each process's pair to its machine (keep ca-key.pem to yourself); the scheduler\n"+
		"accepts worker sessions only from worker certificates and jobs only from client certificates.\n")
	for _, r := range []struct{ role, cmd string }{{distributed.RoleScheduler, "tessera scheduler"}, {distributed.RoleWorker, "tessera worker"}} {
		sec := distributed.RoleSecurity(*dir, r.role, "")
		fmt.Fprintf(stdout, "%s:\n  -tls-ca %s -tls-cert %s -tls-key %s -tls-server-name %s\n", r.cmd, sec.CAFile, sec.CertFile, sec.KeyFile, sec.ServerName)
	}
	fmt.Fprintf(stdout, "a client: TESSERA_TLS_DIR=%s, or distributed.CertSecurity(dir, token) (client.pem)\n", filepath.Clean(*dir))
	return 0
}
