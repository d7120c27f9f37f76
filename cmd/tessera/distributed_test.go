package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCerts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"certs", "-dir", dir, "-hosts", "sched.example.org,10.0.0.2", "-days", "30"}, &out, &errb); code != 0 {
		t.Fatalf("certs exit %d: %s", code, errb.String())
	}
	// Loadable: the pair parses, and the CA verifies the node certificate
	// for the names asked for.
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "node.pem"), filepath.Join(dir, "node-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tessera", "sched.example.org", "10.0.0.2", "127.0.0.1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("node.pem for %s: %v", name, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "node-key.pem")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("node-key.pem mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	// The flags it prints are the files it wrote.
	for _, f := range []string{"-tls-ca " + filepath.Join(dir, "ca.pem"), "-tls-cert " + filepath.Join(dir, "node.pem"), "-tls-key " + filepath.Join(dir, "node-key.pem"), "-tls-server-name tessera"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("output lacks %q:\n%s", f, out.String())
		}
	}
	// Never overwrites.
	errb.Reset()
	if code := run(context.Background(), []string{"certs", "-dir", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "exists") {
		t.Errorf("certs again: exit %d, stderr %q; want 1 and a refusal to overwrite", code, errb.String())
	}
}

// TestBenchDistributed runs one small array workload on a local cluster
// of two worker processes (this test binary, see TestMain); the bench
// checks the result against the workload's formula.
func TestBenchDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"bench", "-json", "-reps", "1", "-schedulers", "distributed", "normalize_3x1000x1000"}, &out, &errb)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errb.String())
	}
	var r map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &r); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if r["workload"] != "normalize_3x1000x1000" || r["scheduler"] != "distributed" {
		t.Errorf("got workload %v scheduler %v", r["workload"], r["scheduler"])
	}
}
