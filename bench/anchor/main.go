// Started as a copy of ../shared/anchors/go-x509/main.go (the shared anchors directory may be
// absent on other machines); standard library only. This copy adds `split`, `verify-dir` and
// `inspect-dir`: the same certificates as separate files, read as joinkit reads them.
// goanchor: the native in-process anchor for joinkit's fleet operations. Go's crypto/x509
// is what kube-controller-manager's signer and kube-apiserver use; an in-process Go loop is
// what a user would otherwise write (or run, as cfssl). Subcommands:
//
//	gen N DIR      ECDSA P-256 CA (DIR/ca.crt, ca.key) and N kubelet client CSRs as one
//	               kubectl-shaped v1 List (DIR/csrs.yaml) and as PEM (DIR/csrs.pem)
//	sign DIR       sign every CSR in DIR/csrs.pem like KCM (check sig, 1y, backdate 5m);
//	               writes DIR/certs.pem, prints elapsed ms for the signing loop
//	verify DIR     verify every cert in DIR/certs.pem against DIR/ca.crt (client auth);
//	               prints elapsed ms
//	inspect DIR    parse every cert in DIR/certs.pem and format what `cert inspect` shows
//	               (subject, issuer, serial, validity, SANs, usages, key, SPKI pin); prints ms
//	split DIR      DIR/certs.pem as one file per certificate: DIR/certs/NNNNNN.crt
//	verify-dir CA CERTDIR
//	               every file under CERTDIR (sorted, recursive, dot-files skipped, as joinkit
//	               walks a directory) read, its PEM decoded, its first certificate verified
//	               against CA (client auth) with the file's other certificates as
//	               intermediates; one verdict line per file on stdout; prints ms on stderr
//	inspect-dir CERTDIR
//	               every file under CERTDIR read, each certificate in it parsed and formatted
//	               as `inspect` does; prints ms on stderr
package main

import (
	"bufio"
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

// certFiles lists the regular files under dir as joinkit's directory walk does: names sorted
// bytewise, dot-files skipped, subdirectories expanded in place.
func certFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	die(err)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			out = append(out, certFiles(p)...)
		} else if e.Type().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// fileCerts reads one file and parses every CERTIFICATE block in it.
func fileCerts(path string) []*x509.Certificate {
	b, err := os.ReadFile(path)
	die(err)
	var certs []*x509.Certificate
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		die(err)
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		die(fmt.Errorf("%s: no certificate found", path))
	}
	return certs
}

func split(dir string) {
	out := filepath.Join(dir, "certs")
	die(os.MkdirAll(out, 0o755))
	b, err := os.ReadFile(filepath.Join(dir, "certs.pem"))
	die(err)
	for i := 0; ; i++ {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return
		}
		name := filepath.Join(out, fmt.Sprintf("%06d.crt", i))
		die(os.WriteFile(name, pem.EncodeToMemory(blk), 0o644))
	}
}

func verifyDir(caFile, dir string) {
	pool := x509.NewCertPool()
	for _, der := range readBlocks(caFile) {
		ca, err := x509.ParseCertificate(der)
		die(err)
		pool.AddCert(ca)
	}
	w := bufio.NewWriter(os.Stdout)
	start := time.Now()
	files := certFiles(dir)
	for _, f := range files {
		certs := fileCerts(f)
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		chains, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if err != nil {
			fmt.Fprintf(w, "%s: %s: FAILED: %v\n", f, certs[0].Subject, err)
		} else {
			fmt.Fprintf(w, "%s: %s: ok, signed by %s\n", f, certs[0].Subject, chains[0][len(chains[0])-1].Subject)
		}
	}
	die(w.Flush())
	fmt.Fprintf(os.Stderr, "go verify-dir %d files: %.1f ms\n", len(files), float64(time.Since(start).Microseconds())/1000)
}

func inspectDir(dir string) {
	w := bufio.NewWriter(os.Stdout)
	start := time.Now()
	files := certFiles(dir)
	n := 0
	for _, f := range files {
		for _, c := range fileCerts(f) {
			pin := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			fmt.Fprintf(w, "%s|%d|%s|%s|%x|%s|%s|%v|%v|%v|%d|%T|sha256:%x\n", f, n, c.Subject, c.Issuer, c.SerialNumber,
				c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339), c.DNSNames,
				c.IPAddresses, c.ExtKeyUsage, c.KeyUsage, c.PublicKey, pin)
			n++
		}
	}
	die(w.Flush())
	fmt.Fprintf(os.Stderr, "go inspect-dir %d certs in %d files: %.1f ms\n", n, len(files), float64(time.Since(start).Microseconds())/1000)
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goanchor gen N DIR | sign DIR | verify DIR | inspect DIR | split DIR | verify-dir CA CERTDIR | inspect-dir CERTDIR")
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
	case "split":
		split(os.Args[2])
	case "verify-dir":
		if len(os.Args) < 4 {
			die(fmt.Errorf("usage: goanchor verify-dir CA CERTDIR"))
		}
		verifyDir(os.Args[2], os.Args[3])
	case "inspect-dir":
		inspectDir(os.Args[2])
	default:
		die(fmt.Errorf("unknown subcommand %q", os.Args[1]))
	}
}
