package cli

// The fleet's commands on a NATS server of the user's own that asks for
// credentials by NATS's means: TLS with client certificates, and a creds
// file of operator mode (a user's JWT and nkey seed). The servers run in
// the test's process; the commands are the real rooda and rooda-fleet.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// pemFiles writes a certificate and its key as PEM files in dir, named
// name.pem and name-key.pem.
func pemFiles(t *testing.T, dir, name string, der []byte, key *ecdsa.PrivateKey) (cert, keyFile string) {
	t.Helper()
	cert, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	must(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	k, err := x509.MarshalECPrivateKey(key)
	must(t, err)
	must(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: k}), 0o600))
	return cert, keyFile
}

// testPKI is a certificate authority made for the test, and the files of
// its certificate, a server's for 127.0.0.1 and a client's.
type testPKI struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "rooda test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	must(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	must(t, err)
	var p testPKI
	p.ca, _ = pemFiles(t, dir, "ca", caDER, caKey)
	issue := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		must(t, err)
		der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: name},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
			IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		}, caCert, &key.PublicKey, caKey)
		must(t, err)
		return pemFiles(t, dir, name, der, key)
	}
	p.serverCert, p.serverKey = issue("server", 2, x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = issue("client", 3, x509.ExtKeyUsageClientAuth)
	return p
}

// startNATS starts a NATS server with JetStream of opts (completed with a
// port of 127.0.0.1 and a store of the test's) and returns its URL.
func startNATS(t *testing.T, opts *server.Options) string {
	t.Helper()
	opts.Host, opts.Port, opts.JetStream, opts.StoreDir, opts.NoSigs = "127.0.0.1", server.RANDOM_PORT, true, t.TempDir(), true
	ns, err := server.NewServer(opts)
	must(t, err)
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(hangGuard) {
		t.Fatal("the NATS server did not start")
	}
	return fmt.Sprintf("nats://%s", ns.Addr())
}

// runFleet runs `rooda fleet args…` in w with env added, and returns
// its exit code and output.
func runFleet(w *workspace, env []string, args ...string) (int, string) {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), append([]string{"fleet"}, args...)...)
	cmd.Dir, cmd.Env = w.dir, append(append([]string{}, w.env...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		w.t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

func newCredentialsWorkspace(t *testing.T) *workspace {
	t.Helper()
	fleetBinaries(t)
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	w.gitInit()
	w.env = append(w.env, "XDG_STATE_HOME="+t.TempDir())
	return w
}

// TestFleetOverTLS: on a NATS server that speaks only TLS and asks for a
// client certificate its authority signed, `rooda fleet add` and `rooda
// fleet status` given the authority, the certificate and its key (as
// flags, or as ROODA_FLEET_TLS_* variables) queue a run and list it; given
// no client certificate, or not the authority, they are refused.
func TestFleetOverTLS(t *testing.T) {
	t.Parallel()
	pki := newTestPKI(t)
	tlsConfig, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: pki.serverCert, KeyFile: pki.serverKey, CaFile: pki.ca, Verify: true})
	must(t, err)
	url := startNATS(t, &server.Options{TLS: true, TLSVerify: true, TLSConfig: tlsConfig, TLSTimeout: 5})
	w := newCredentialsWorkspace(t)

	env := []string{"ROODA_FLEET_SERVER=" + url, "ROODA_FLEET_TLS_CA=" + pki.ca, "ROODA_FLEET_TLS_CERT=" + pki.clientCert, "ROODA_FLEET_TLS_KEY=" + pki.clientKey}
	if code, out := runFleet(w, env, "add", "--name", "over-tls", "build", "-n", "1", "--ai-cmd", w.aiCmd()); code != 0 || strings.TrimSpace(out) != "over-tls" {
		t.Fatalf("fleet add over TLS: exit %d\n%s", code, out)
	}
	flags := []string{"status", "--json", "--server", url, "--tls-ca", pki.ca, "--tls-cert", pki.clientCert, "--tls-key", pki.clientKey}
	if code, out := runFleet(w, nil, flags...); code != 0 || !strings.Contains(out, `"name": "over-tls"`) {
		t.Errorf("fleet status over TLS, by flags: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		what string
		args []string
	}{
		{"no client certificate", []string{"status", "--server", url, "--tls-ca", pki.ca}},
		{"not the server's authority", []string{"status", "--server", url, "--tls-cert", pki.clientCert, "--tls-key", pki.clientKey}},
	} {
		if code, out := runFleet(w, nil, c.args...); code == 0 {
			t.Errorf("with %s, fleet status was let in:\n%s", c.what, out)
		}
	}
	if code, out := runFleet(w, nil, "status", "--server", url, "--tls-cert", pki.clientCert); code == 0 || !strings.Contains(out, "--tls-key") {
		t.Errorf("a client certificate without its key: exit %d, want one naming --tls-key\n%s", code, out)
	}
}

// operatorCreds sets a NATS server up in operator mode, as a NATS
// account service would: an operator, its system account and an account
// with JetStream, and a user of that account. It returns the server's
// options and the user's creds file.
func operatorCreds(t *testing.T) (*server.Options, string) {
	t.Helper()
	operator, err := nkeys.CreateOperator()
	must(t, err)
	operatorPub, _ := operator.PublicKey()
	account := func(name string, jetStream bool) (nkeys.KeyPair, string, string) {
		kp, err := nkeys.CreateAccount()
		must(t, err)
		pub, _ := kp.PublicKey()
		claims := jwt.NewAccountClaims(pub)
		claims.Name = name
		if jetStream {
			claims.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		}
		token, err := claims.Encode(operator)
		must(t, err)
		return kp, pub, token
	}
	_, sysPub, sysJWT := account("SYS", false)
	fleetKP, fleetPub, fleetJWT := account("FLEET", true)
	operatorClaims := jwt.NewOperatorClaims(operatorPub)
	operatorClaims.SystemAccount = sysPub
	operatorJWT, err := operatorClaims.Encode(operator)
	must(t, err)

	user, err := nkeys.CreateUser()
	must(t, err)
	userPub, _ := user.PublicKey()
	userJWT, err := jwt.NewUserClaims(userPub).Encode(fleetKP)
	must(t, err)
	seed, _ := user.Seed()
	creds, err := jwt.FormatUserConfig(userJWT, seed)
	must(t, err)
	dir := t.TempDir()
	credsFile := filepath.Join(dir, "fleet.creds")
	must(t, os.WriteFile(credsFile, creds, 0o600))

	conf := filepath.Join(dir, "nats.conf")
	must(t, os.WriteFile(conf, fmt.Appendf(nil, "operator: %s\nsystem_account: %s\nresolver: MEMORY\nresolver_preload: {\n  %s: %s\n  %s: %s\n}\n",
		operatorJWT, sysPub, sysPub, sysJWT, fleetPub, fleetJWT), 0o600))
	opts, err := server.ProcessConfigFile(conf)
	must(t, err)
	return opts, credsFile
}

// TestFleetWithACredsFile: on a NATS server in operator mode, `rooda
// fleet add` and `status` given the user's creds file (--creds, or
// ROODA_FLEET_CREDS) queue a run and list it; without it they are
// refused; a creds file that is not there is said so.
func TestFleetWithACredsFile(t *testing.T) {
	t.Parallel()
	opts, creds := operatorCreds(t)
	url := startNATS(t, opts)
	w := newCredentialsWorkspace(t)

	if code, out := runFleet(w, nil, "add", "--server", url, "--creds", creds, "--name", "with-creds", "build", "-n", "1", "--ai-cmd", w.aiCmd()); code != 0 || strings.TrimSpace(out) != "with-creds" {
		t.Fatalf("fleet add --creds: exit %d\n%s", code, out)
	}
	if code, out := runFleet(w, []string{"ROODA_FLEET_SERVER=" + url, "ROODA_FLEET_CREDS=" + creds}, "status", "--json"); code != 0 || !strings.Contains(out, `"name": "with-creds"`) {
		t.Errorf("fleet status with ROODA_FLEET_CREDS: exit %d\n%s", code, out)
	}
	if code, out := runFleet(w, nil, "status", "--server", url); code == 0 {
		t.Errorf("without the creds file, fleet status was let in:\n%s", out)
	}
	missing := filepath.Join(t.TempDir(), "none.creds")
	if code, out := runFleet(w, nil, "status", "--server", url, "--creds", missing); code == 0 || !strings.Contains(out, missing) {
		t.Errorf("a creds file that is not there: exit %d, want one naming it\n%s", code, out)
	}
}
