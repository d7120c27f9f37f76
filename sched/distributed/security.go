package distributed

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Security is how the processes of a cluster (scheduler, workers, clients)
// authenticate each other. With CAFile, CertFile and KeyFile set, every
// connection is mutual TLS: each side presents a certificate signed by the
// CA and checks the other's. With Token set, every call carries it and a
// call without it is refused. Both may be used together, and should be
// on any network that others share. The zero value is plaintext with no
// token, for loopback use (LocalCluster's default).
type Security struct {
	CAFile   string // PEM CA certificate that signs every peer's certificate
	CertFile string // PEM certificate of this process
	KeyFile  string // PEM private key of CertFile
	// ServerName is the name checked in the certificates of the servers
	// this process dials; "" checks the host of the dialed address.
	// Certificates from GenerateCerts all carry the name "tessera", which
	// lets a cluster dial peers by any IP address.
	ServerName string
	Token      string // shared secret; "" for none
}

// TLS reports whether s asks for mutual TLS.
func (s Security) TLS() bool { return s.CAFile != "" || s.CertFile != "" || s.KeyFile != "" }

// ErrUnauthenticated is the cause of errors from calls refused for a
// missing or wrong token or certificate.
var ErrUnauthenticated = errors.New("distributed: peer refused: missing or wrong token or certificate")

// ErrInsecure is the cause of the error a scheduler or worker returns
// when asked to listen beyond loopback without mutual TLS and a token,
// unless its options say Insecure (`-insecure`): secure by default, so
// that a port opened to a network never runs a stranger's tasks by
// mistake.
var ErrInsecure = errors.New("refusing to listen beyond loopback without TLS and a token: give certificates and a token (tessera certs), or Insecure (-insecure) to accept anyone who reaches the port")

// authenticated reports whether s asks peers for both a certificate of
// the cluster and the token.
func (s Security) authenticated() bool { return s.TLS() && s.Token != "" }

// exposure checks a listening address against s: loopback, or a network
// address with TLS and a token, is fine; a network address without them is
// ErrInsecure unless insecure, and then insecure reports true so that the
// caller logs and shows it.
func exposure(what, addr string, s Security, allow bool) (insecure bool, err error) {
	if isLoopback(addr) || s.authenticated() {
		return false, nil
	}
	if !allow {
		return false, fmt.Errorf("distributed: %s on %s: %w", what, addr, ErrInsecure)
	}
	return true, nil
}

const tokenHeader = "tessera-token"

func (s Security) tlsConfig(server bool) (*tls.Config, error) {
	if s.CAFile == "" || s.CertFile == "" || s.KeyFile == "" {
		return nil, fmt.Errorf("distributed: TLS needs CAFile, CertFile and KeyFile, got ca=%q cert=%q key=%q", s.CAFile, s.CertFile, s.KeyFile)
	}
	caPEM, err := os.ReadFile(s.CAFile)
	if err != nil {
		return nil, fmt.Errorf("distributed: TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("distributed: TLS CA %s: no PEM certificate in it", s.CAFile)
	}
	cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("distributed: TLS certificate %s / key %s: %w", s.CertFile, s.KeyFile, err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}}
	if server {
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	} else {
		cfg.RootCAs = pool
		cfg.ServerName = s.ServerName
	}
	return cfg, nil
}

// serverOptions returns the gRPC server options that enforce s: TLS
// credentials and interceptors that check the token. Refusals are logged
// on log with the peer's address.
func (s Security) serverOptions(log *slog.Logger) ([]grpc.ServerOption, error) {
	var opts []grpc.ServerOption
	if s.TLS() {
		cfg, err := s.tlsConfig(true)
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.Creds(handshakeLogger{credentials.NewTLS(cfg), log}))
	}
	if s.Token != "" {
		var limit warnLimit
		check := func(ctx context.Context, method string) error {
			md, _ := metadata.FromIncomingContext(ctx)
			got := md.Get(tokenHeader)
			if len(got) == 1 && subtle.ConstantTimeCompare([]byte(got[0]), []byte(s.Token)) == 1 {
				return nil
			}
			addr := "unknown"
			if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
				addr = p.Addr.String()
			}
			why := "missing"
			if len(got) > 0 {
				why = "wrong"
			}
			limit.warn(log, "refused a call without the cluster token", "token", why, "peer", addr, "method", method)
			return status.Error(codes.Unauthenticated, "tessera: missing or wrong cluster token")
		}
		opts = append(opts,
			grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				if err := check(ctx, info.FullMethod); err != nil {
					return nil, err
				}
				return h(ctx, req)
			}),
			grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
				if err := check(ss.Context(), info.FullMethod); err != nil {
					return err
				}
				return h(srv, ss)
			}))
	}
	return opts, nil
}

// handshakeLogger logs the peers refused at the TLS handshake: a client
// without a certificate, with one the CA did not sign, or speaking
// plaintext.
type handshakeLogger struct {
	credentials.TransportCredentials
	log *slog.Logger
}

func (h handshakeLogger) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c, info, err := h.TransportCredentials.ServerHandshake(conn)
	if err != nil && h.log != nil {
		h.log.Warn("refused a connection at the TLS handshake", "peer", conn.RemoteAddr().String(), "err", err)
	}
	return c, info, err
}

func (h handshakeLogger) Clone() credentials.TransportCredentials {
	return handshakeLogger{h.TransportCredentials.Clone(), h.log}
}

type tokenCreds struct {
	token  string
	secure bool
}

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{tokenHeader: t.token}, nil
}

func (t tokenCreds) RequireTransportSecurity() bool { return t.secure }

// dialOptions returns the gRPC dial options that present s to a server.
func (s Security) dialOptions() ([]grpc.DialOption, error) {
	var opts []grpc.DialOption
	if s.TLS() {
		cfg, err := s.tlsConfig(false)
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if s.Token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(tokenCreds{token: s.Token, secure: s.TLS()}))
	}
	return opts, nil
}

// unauthenticated maps a refused call's error to one that wraps
// ErrUnauthenticated, and returns other errors unchanged. A TLS handshake
// that fails for a missing or foreign certificate shows as Unavailable
// with a TLS message, which is mapped too.
func unauthenticated(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch {
	case st.Code() == codes.PermissionDenied:
		return fmt.Errorf("%w: %w: %s", ErrUnauthenticated, ErrWrongRole, st.Message())
	case st.Code() == codes.Unauthenticated,
		st.Code() == codes.Unavailable && (strings.Contains(st.Message(), "certificate") || strings.Contains(st.Message(), "tls:")):
		return fmt.Errorf("%w: %s", ErrUnauthenticated, st.Message())
	}
	return err
}

// The roles a certificate can carry (GenerateCerts writes one certificate
// per role). The scheduler accepts worker sessions only from worker
// certificates and jobs and status requests only from client
// certificates, so that a client holding the cluster's token cannot
// register as a worker and hand other clients forged results. A
// certificate without a role (node.pem from older versions of
// GenerateCerts) is accepted in every role, with a warning in the log.
const (
	RoleScheduler = "scheduler"
	RoleWorker    = "worker"
	RoleClient    = "client"
)

// roleOU marks a certificate's role in its subject's organizational unit.
const roleOU = "tessera-role:"

// certRole returns the role a certificate carries, or "" for none.
func certRole(c *x509.Certificate) string {
	for _, ou := range c.Subject.OrganizationalUnit {
		if r, ok := strings.CutPrefix(ou, roleOU); ok {
			return r
		}
	}
	return ""
}

// peerRole returns the role in the certificate of the peer of ctx: ok is
// false when the connection has no verified certificate (no TLS), and role
// is "" for a certificate without a role.
func peerRole(ctx context.Context) (role string, ok bool) {
	p, found := peer.FromContext(ctx)
	if !found || p.AuthInfo == nil {
		return "", false
	}
	info, isTLS := p.AuthInfo.(credentials.TLSInfo)
	if !isTLS || len(info.State.PeerCertificates) == 0 {
		return "", false
	}
	return certRole(info.State.PeerCertificates[0]), true
}

// ErrWrongRole is the cause of a refusal of a peer whose certificate is
// for another role (a client certificate registering as a worker).
var ErrWrongRole = errors.New("distributed: the peer's certificate is not for this role")

// GenerateCerts writes a self-signed CA and one certificate per role signed
// by it into dir, for tests and clusters: ca.pem and ca-key.pem (keep
// ca-key.pem off the cluster), scheduler.pem, worker.pem and client.pem
// with their keys scheduler-key.pem, worker-key.pem and client-key.pem.
// Each names "tessera", "localhost", 127.0.0.1, ::1 and hosts (names or
// IP addresses) and carries its role; the scheduler's authenticates a
// server, the client's a client, the worker's both (workers serve data
// and dial the scheduler and each other). Keys are ECDSA P-256;
// certificates are valid for validFor from now. Private keys are written
// with mode 0600. Existing files are not overwritten: that is an error.
func GenerateCerts(dir string, hosts []string, validFor time.Duration) error {
	if validFor <= 0 {
		return fmt.Errorf("distributed: GenerateCerts: validity %v is not positive", validFor)
	}
	roles := []struct {
		role string
		eku  []x509.ExtKeyUsage
	}{
		{RoleScheduler, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}},
		{RoleWorker, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}},
		{RoleClient, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
	}
	names := []string{"ca.pem", "ca-key.pem"}
	for _, r := range roles {
		names = append(names, r.role+".pem", r.role+"-key.pem")
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return fmt.Errorf("distributed: GenerateCerts: %s exists; not overwriting it", filepath.Join(dir, n))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("distributed: GenerateCerts: %w", err)
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial := func() *big.Int {
		n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
		return n
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "tessera cluster CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	caKeyDER, err := x509.MarshalECPrivateKey(caKey)
	if err != nil {
		return err
	}
	type file struct {
		name, typ string
		der       []byte
		mode      os.FileMode
	}
	files := []file{{"ca.pem", "CERTIFICATE", caDER, 0o644}, {"ca-key.pem", "EC PRIVATE KEY", caKeyDER, 0o600}}
	for _, r := range roles {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial(),
			Subject:      pkix.Name{CommonName: "tessera", OrganizationalUnit: []string{roleOU + r.role}},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(validFor),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  r.eku,
			DNSNames:     []string{"tessera", "localhost"},
			IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		}
		for _, h := range hosts {
			h = strings.TrimSpace(h)
			switch ip := net.ParseIP(h); {
			case h == "":
			case ip != nil:
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			default:
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return err
		}
		files = append(files, file{r.role + ".pem", "CERTIFICATE", der, 0o644}, file{r.role + "-key.pem", "EC PRIVATE KEY", keyDER, 0o600})
	}
	for _, f := range files {
		b := pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der})
		if err := os.WriteFile(filepath.Join(dir, f.name), b, f.mode); err != nil {
			return fmt.Errorf("distributed: GenerateCerts: %w", err)
		}
	}
	return nil
}

// CertSecurity returns the client's Security from the files GenerateCerts
// wrote into dir (client.pem; node.pem where an older GenerateCerts wrote
// that one instead), with the server name "tessera" and token. Use
// RoleSecurity for a scheduler or a worker.
func CertSecurity(dir, token string) Security { return RoleSecurity(dir, RoleClient, token) }

// RoleSecurity returns the Security of a process in role (RoleScheduler,
// RoleWorker or RoleClient) from the files GenerateCerts wrote into dir:
// ca.pem, ROLE.pem and ROLE-key.pem, or node.pem and node-key.pem where
// ROLE.pem does not exist (certificates without roles); the server name
// is "tessera".
func RoleSecurity(dir, role, token string) Security {
	cert, key := filepath.Join(dir, role+".pem"), filepath.Join(dir, role+"-key.pem")
	if _, err := os.Stat(cert); err != nil {
		if _, lerr := os.Stat(filepath.Join(dir, "node.pem")); lerr == nil {
			cert, key = filepath.Join(dir, "node.pem"), filepath.Join(dir, "node-key.pem")
		}
	}
	return Security{
		CAFile:     filepath.Join(dir, "ca.pem"),
		CertFile:   cert,
		KeyFile:    key,
		ServerName: "tessera",
		Token:      token,
	}
}

// ForRole returns s for a process in role: when s's certificate is one of
// the role files GenerateCerts writes (scheduler.pem, worker.pem,
// client.pem) and the file of role lies beside it, s with that file and
// its key; otherwise s unchanged. StartCluster uses it to give each of its
// processes its own certificate from one Security.
func (s Security) ForRole(role string) Security {
	if !s.TLS() {
		return s
	}
	dir, base := filepath.Split(s.CertFile)
	switch base {
	case RoleScheduler + ".pem", RoleWorker + ".pem", RoleClient + ".pem":
	default:
		return s
	}
	cert, key := filepath.Join(dir, role+".pem"), filepath.Join(dir, role+"-key.pem")
	if _, err := os.Stat(cert); err != nil {
		return s
	}
	s.CertFile, s.KeyFile = cert, key
	return s
}

// speaksTLS reports whether a TLS server answers at addr (host:port). A
// peer without TLS dialing a TLS scheduler sees only connections closed
// before the server's HTTP/2 preface, which read like a scheduler not up
// yet; this probe tells the two apart, so that such a peer fails at once
// instead of retrying until its timeout. It sends a ClientHello (no
// certificate, no verification: it learns only whether TLS answers) and
// counts a completed handshake or a TLS alert as TLS; a refused or timed
// out dial, a closed connection or a reply that is not TLS are not. The
// scheduler logs the probe as a peer refused at the handshake.
func speaksTLS(ctx context.Context, addr string) bool {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return false // a resolver target (dns:///...): not probed
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12})
	err = tc.HandshakeContext(ctx)
	var alert tls.AlertError
	return err == nil || errors.As(err, &alert)
}

// errSpeaksTLS is the error of a peer without TLS that dialed a TLS
// scheduler at addr.
func errSpeaksTLS(addr string) error {
	return fmt.Errorf("%w: the scheduler at %s speaks TLS and this side has none configured (CA, certificate and key files)", ErrUnauthenticated, addr)
}
