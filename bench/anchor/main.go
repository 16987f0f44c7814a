// Copied from ../shared/anchors/go-x509/main.go (the shared anchors directory may be absent on
// other machines); standard library only. Keep in step with that copy.
// goanchor: the native in-process anchor for joinkit's fleet operations. Go's crypto/x509
// is what kube-controller-manager's signer and kube-apiserver use; an in-process Go loop is
// what a user would otherwise write (or run, as cfssl). Subcommands:
//   gen N DIR      ECDSA P-256 CA (DIR/ca.crt, ca.key) and N kubelet client CSRs as one
//                  kubectl-shaped v1 List (DIR/csrs.yaml) and as PEM (DIR/csrs.pem)
//   sign DIR       sign every CSR in DIR/csrs.pem like KCM (check sig, 1y, backdate 5m);
//                  writes DIR/certs.pem, prints elapsed ms for the signing loop
//   verify DIR     verify every cert in DIR/certs.pem against DIR/ca.crt (client auth);
//                  prints elapsed ms
//   inspect DIR    parse every cert in DIR/certs.pem and format what `cert inspect` shows
//                  (subject, issuer, serial, validity, SANs, usages, key, SPKI pin); prints ms
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func die(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func readBlocks(path string) [][]byte {
	b, err := os.ReadFile(path)
	die(err)
	var out [][]byte
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return out
		}
		out = append(out, blk.Bytes)
	}
}

func gen(n int, dir string) {
	die(os.MkdirAll(dir, 0o755))
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(10 * 365 * 24 * time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &caKey.PublicKey, caKey)
	die(err)
	die(os.WriteFile(filepath.Join(dir, "ca.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	kd, _ := x509.MarshalECPrivateKey(caKey)
	die(os.WriteFile(filepath.Join(dir, "ca.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600))
	var list, pems strings.Builder
	list.WriteString("apiVersion: v1\nitems:\n")
	for i := 0; i < n; i++ {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		node := fmt.Sprintf("node-%05d", i)
		csr, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
			Subject: pkix.Name{CommonName: "system:node:" + node, Organization: []string{"system:nodes"}}}, k)
		die(err)
		p := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: csr})
		pems.Write(p)
		fmt.Fprintf(&list, "- apiVersion: certificates.k8s.io/v1\n  kind: CertificateSigningRequest\n  metadata:\n    name: csr-%05d\n  spec:\n    groups:\n    - system:bootstrappers\n    - system:bootstrappers:kubeadm:default-node-token\n    - system:authenticated\n    request: %s\n    signerName: kubernetes.io/kube-apiserver-client-kubelet\n    usages:\n    - digital signature\n    - client auth\n    username: system:bootstrap:abcdef\n", i, base64.StdEncoding.EncodeToString(p))
	}
	list.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	die(os.WriteFile(filepath.Join(dir, "csrs.yaml"), []byte(list.String()), 0o644))
	die(os.WriteFile(filepath.Join(dir, "csrs.pem"), []byte(pems.String()), 0o644))
}

func loadCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey) {
	ca, err := x509.ParseCertificate(readBlocks(filepath.Join(dir, "ca.crt"))[0])
	die(err)
	key, err := x509.ParseECPrivateKey(readBlocks(filepath.Join(dir, "ca.key"))[0])
	die(err)
	return ca, key
}

func sign(dir string) {
	ca, key := loadCA(dir)
	reqs := readBlocks(filepath.Join(dir, "csrs.pem"))
	var out strings.Builder
	start := time.Now()
	for _, der := range reqs {
		csr, err := x509.ParseCertificateRequest(der)
		die(err)
		die(csr.CheckSignature())
		serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
		now := time.Now()
		tmpl := &x509.Certificate{SerialNumber: serial, Subject: csr.Subject, NotBefore: now.Add(-5 * time.Minute),
			NotAfter: now.Add(365 * 24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, BasicConstraintsValid: true}
		c, err := x509.CreateCertificate(rand.Reader, tmpl, ca, csr.PublicKey, key)
		die(err)
		out.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c}))
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	die(os.WriteFile(filepath.Join(dir, "certs.pem"), []byte(out.String()), 0o644))
	fmt.Printf("go sign %d CSRs: %.1f ms\n", len(reqs), ms)
}

func verify(dir string) {
	ca, _ := loadCA(dir)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	certs := readBlocks(filepath.Join(dir, "certs.pem"))
	start := time.Now()
	for _, der := range certs {
		c, err := x509.ParseCertificate(der)
		die(err)
		_, err = c.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		die(err)
	}
	fmt.Printf("go verify %d certs: %.1f ms\n", len(certs), float64(time.Since(start).Microseconds())/1000)
}

func inspect(dir string) {
	certs := readBlocks(filepath.Join(dir, "certs.pem"))
	var out strings.Builder
	start := time.Now()
	for _, der := range certs {
		c, err := x509.ParseCertificate(der)
		die(err)
		pin := sha256.Sum256(c.RawSubjectPublicKeyInfo)
		fmt.Fprintf(&out, "%s|%s|%x|%s|%s|%v|%v|%v|%d|%T|sha256:%x\n", c.Subject, c.Issuer, c.SerialNumber,
			c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339), c.DNSNames,
			c.IPAddresses, c.ExtKeyUsage, c.KeyUsage, c.PublicKey, pin)
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	os.Stdout.WriteString(out.String())
	fmt.Fprintf(os.Stderr, "go inspect %d certs: %.1f ms\n", len(certs), ms)
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goanchor gen N DIR | sign DIR | verify DIR | inspect DIR")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "gen":
		n, err := strconv.Atoi(os.Args[2])
		die(err)
		gen(n, os.Args[3])
	case "sign":
		sign(os.Args[2])
	case "verify":
		verify(os.Args[2])
	case "inspect":
		inspect(os.Args[2])
	}
}
