package main

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
	"path/filepath"
	"time"
)

// pki is the files of the harness's own certificate authority: the CA,
// the API server's serving pair, the admin client pair, the
// service-account signing pair and, for a node, the pairs of its
// components (node.go).
type pki struct {
	dir string
}

func (p pki) path(name string) string { return filepath.Join(p.dir, name) }

// adminGroup is the group the admin client certificate names: RBAC's
// bootstrap policy binds it to cluster-admin, so the kubeconfig may do
// anything, as kind's or kubeadm's admin.conf may.
const adminGroup = "system:masters"

// authority is the CA while start runs: its key stays in memory, since
// every certificate the harness needs is issued at start.
type authority struct {
	p    pki
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// makePKI writes a fresh CA and the pairs every mode needs into dir: the
// API server's serving pair, the admin client pair and the
// service-account signing pair. The serving certificate names
// servingIPs (where clients dial, and the kubernetes Service's IP) and
// the in-cluster names of the kubernetes Service.
func makePKI(dir string, servingIPs []net.IP) (*authority, error) {
	p := pki{dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make pki directory: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("make CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "kube-harness CA"},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := sign(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("read CA back: %w", err)
	}
	if err := writeCert(p.path("ca.crt"), caDER); err != nil {
		return nil, err
	}
	a := &authority{p: p, cert: ca, key: caKey}
	if err := a.serving("apiserver", "kube-apiserver",
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		servingIPs); err != nil {
		return nil, err
	}
	if err := a.client("admin", "kube-harness-admin", adminGroup); err != nil {
		return nil, err
	}
	// The service-account pair signs and checks the tokens the API
	// server issues (TokenRequest); nothing else uses it.
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("make service-account key: %w", err)
	}
	if err := writeKey(p.path("sa.key"), saKey); err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("encode service-account public key: %w", err)
	}
	if err := os.WriteFile(p.path("sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600); err != nil {
		return nil, fmt.Errorf("write service-account public key: %w", err)
	}
	return a, nil
}

// client issues name.crt/name.key, a client certificate for user cn in
// groups: what the API server (and the kubelet) authenticate.
func (a *authority) client(name, cn string, groups ...string) error {
	return a.issue(name, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// serving issues name.crt/name.key, a serving certificate for the names
// and addresses given.
func (a *authority) serving(name, cn string, dnsNames []string, ips []net.IP) error {
	return a.issue(name, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    dnsNames,
		IPAddresses: ips,
	})
}

// issue makes a key, has the CA sign tmpl for it and writes name.crt
// and name.key.
func (a *authority) issue(name string, tmpl *x509.Certificate) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("make %s key: %w", name, err)
	}
	der, err := sign(tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return fmt.Errorf("sign %s certificate: %w", name, err)
	}
	if err := writeCert(a.p.path(name+".crt"), der); err != nil {
		return err
	}
	return writeKey(a.p.path(name+".key"), key)
}

// sign fills in a serial and a validity of a day either side of now (a
// harness lives for minutes; the day before absorbs clock skew) and
// signs.
func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, key *ecdsa.PrivateKey) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-24 * time.Hour)
	tmpl.NotAfter = time.Now().Add(30 * 24 * time.Hour)
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, key)
}

func writeCert(path string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write certificate: %w", err)
	}
	return nil
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode key %s: %w", path, err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write key: %w", err)
	}
	return nil
}
