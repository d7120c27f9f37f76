package distributed

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// GenerateCerts writes one certificate per role, each carrying its role and
// the key usages of what the role does (the scheduler serves, the client
// dials, a worker does both).
func TestGenerateCertsRoles(t *testing.T) {
	dir := t.TempDir()
	if err := GenerateCerts(dir, []string{"sched.example.org", "10.0.0.2"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role string
		eku  []x509.ExtKeyUsage
	}{
		{RoleScheduler, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}},
		{RoleWorker, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}},
		{RoleClient, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
	} {
		sec := RoleSecurity(dir, tc.role, "")
		pair, err := tls.LoadX509KeyPair(sec.CertFile, sec.KeyFile)
		if err != nil {
			t.Fatalf("%s: %v", tc.role, err)
		}
		c, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := certRole(c); got != tc.role {
			t.Errorf("%s.pem carries role %q", tc.role, got)
		}
		if !slices.Equal(c.ExtKeyUsage, tc.eku) {
			t.Errorf("%s.pem key usages %v, want %v", tc.role, c.ExtKeyUsage, tc.eku)
		}
		if !slices.Contains(c.DNSNames, "sched.example.org") || !slices.Contains(c.DNSNames, "tessera") {
			t.Errorf("%s.pem names %v", tc.role, c.DNSNames)
		}
		if fi, err := os.Stat(sec.KeyFile); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v (%v), want 0600", sec.KeyFile, fi.Mode().Perm(), err)
		}
	}
	if err := GenerateCerts(dir, nil, time.Hour); err == nil || !strings.Contains(err.Error(), "not overwriting") {
		t.Errorf("GenerateCerts over existing files: %v", err)
	}
	if got := CertSecurity(dir, "").CertFile; filepath.Base(got) != "client.pem" {
		t.Errorf("CertSecurity uses %s, want client.pem", got)
	}
	if got := CertSecurity(dir, "").ForRole(RoleWorker).KeyFile; filepath.Base(got) != "worker-key.pem" {
		t.Errorf("ForRole(worker) uses %s, want worker-key.pem", got)
	}
}

// The scheduler admits worker sessions only from worker certificates and
// jobs and status requests only from client certificates: a client holding
// the token cannot register as a worker. A certificate without a role
// (an older node.pem) is admitted in every role, with a warning.
func TestSchedulerRoles(t *testing.T) {
	dir := t.TempDir()
	if err := GenerateCerts(dir, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	writeLegacyCert(t, dir)
	var logs logBuffer
	s := newTestServer(t, SchedulerOptions{StatusAddress: "127.0.0.1:0", Security: RoleSecurity(dir, RoleScheduler, "tok"), Logger: logs.logger()})
	worker, client := RoleSecurity(dir, RoleWorker, "tok"), RoleSecurity(dir, RoleClient, "tok")
	legacy := Security{CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "node.pem"), KeyFile: filepath.Join(dir, "node-key.pem"), ServerName: "tessera", Token: "tok"}

	register := func(sec Security) error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		stream, err := pb.NewSchedulerClient(dialTest(t, s.Addr(), sec)).Connect(ctx)
		if err != nil {
			return err
		}
		// io.EOF: the scheduler refused the stream before the message
		// went out (it does not wait for it); Recv has its status.
		if err := stream.Send(&pb.WorkerMessage{Register: &pb.Register{Name: "w", DataAddress: "sim-w", Nthreads: 1}}); err != nil && err != io.EOF {
			return err
		}
		_, err = stream.Recv()
		return err
	}
	submitJob := func(sec Security) error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		stream, err := pb.NewSchedulerClient(dialTest(t, s.Addr(), sec)).Compute(ctx)
		if err != nil {
			return err
		}
		if err := stream.Send(&pb.ClientMessage{Tasks: tdefs([]tnode{{key: "x"}}), Run: &pb.Run{Outputs: []int32{0}}}); err != nil && err != io.EOF {
			return err
		}
		_, err = stream.Recv()
		return err
	}
	for _, tc := range []struct {
		name string
		call func(Security) error
		sec  Security
		ok   bool
	}{
		{"worker registers", register, worker, true},
		{"client registers as a worker", register, client, false},
		{"legacy registers", register, legacy, true},
		{"client submits", submitJob, client, true},
		{"worker submits", submitJob, worker, false},
		{"legacy submits", submitJob, legacy, true},
	} {
		err := tc.call(tc.sec)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && status.Code(err) != codes.PermissionDenied {
			t.Errorf("%s: %v, want PermissionDenied", tc.name, err)
		}
	}
	if !strings.Contains(logs.String(), "refused a peer whose certificate is for another role") {
		t.Errorf("the refusals are not logged:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "certificate without a role") {
		t.Errorf("the legacy certificate is not warned about:\n%s", logs.String())
	}

	// The status endpoint: a client certificate reads it, a worker's does not.
	for _, tc := range []struct {
		sec  Security
		want int
	}{{client, http.StatusOK}, {worker, http.StatusForbidden}} {
		cfg, err := tc.sec.tlsConfig(false)
		if err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
		req, _ := http.NewRequest("GET", "https://"+s.StatusAddr()+"/status", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		hc.CloseIdleConnections()
		if resp.StatusCode != tc.want {
			t.Errorf("status with %s: HTTP %d, want %d", filepath.Base(tc.sec.CertFile), resp.StatusCode, tc.want)
		}
	}
}

// writeLegacyCert writes node.pem and node-key.pem into dir, signed by its
// CA, without a role: what GenerateCerts wrote before roles.
func writeLegacyCert(t *testing.T, dir string) {
	t.Helper()
	caPair, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caPair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(99),
		Subject:      pkix.Name{CommonName: "tessera"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:     []string{"tessera", "localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caPair.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}
