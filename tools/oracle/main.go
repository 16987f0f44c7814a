// Command oracle renders Go's verdicts for joinkit's differential oracle
// (`deno task oracle`). It reads JSON requests, one per line, on stdin and
// writes one JSON answer per line, in order, on stdout, so that thousands of
// cases cost one process. Only the standard library is used.
//
// Requests carry an "op":
//
//	chain       x509 (*Certificate).Verify
//	cert        x509.ParseCertificate
//	csr         x509.ParseCertificateRequest + CheckSignature
//	pem         pem.Decode loop + client-go's certutil.ParseCertsPEM (ported)
//	rfc3339     time.Parse(time.RFC3339, s)
//	kubeconfig  client-go's list->map conversion + kubeadm's cluster choice + pin check (transcribed)
//	gen         create a set of certificates (x509.CreateCertificate) from a spec
//	gencsr      create a CSR (x509.CreateCertificateRequest) from a spec
//
// The Go version that builds this (see run.ts) is the reference; where it
// differs from the Go joinkit targets, tools/oracle/intended.ts says so.
//
// go.mod says go 1.19 (so Debian's Go builds it), which would select Go 1.19's
// GODEBUG defaults; the line below restores the toolchain's own defaults (for
// example x509negativeserial=0: negative serials refused).

//go:debug default=go1.23

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Request is the union of every op's fields.
type Request struct {
	Op string `json:"op"`

	// chain
	Leaf          string   `json:"leaf,omitempty"`
	Intermediates string   `json:"intermediates,omitempty"`
	Roots         string   `json:"roots,omitempty"`
	Time          string   `json:"time,omitempty"`
	KeyUsages     []string `json:"keyUsages,omitempty"`
	DNSName       string   `json:"dnsName,omitempty"`

	// cert, csr: base64 DER; pem: base64 bytes
	DER  string `json:"der,omitempty"`
	Data string `json:"data,omitempty"`

	// rfc3339
	S string `json:"s,omitempty"`

	// kubeconfig
	Kubeconfig json.RawMessage `json:"kubeconfig,omitempty"`
	Pins       []string        `json:"pins,omitempty"`

	// gen, gencsr
	Certs []CertSpec `json:"certs,omitempty"`
	CSR   *CSRSpec   `json:"csr,omitempty"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req Request
			var ans interface{}
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				ans = map[string]interface{}{"fatal": "bad request: " + jerr.Error()}
			} else {
				ans = handle(&req)
			}
			if werr := enc.Encode(ans); werr != nil {
				fmt.Fprintln(os.Stderr, "oracle:", werr)
				os.Exit(1)
			}
		}
		if err != nil {
			return
		}
	}
}

func handle(req *Request) (ans interface{}) {
	defer func() {
		if r := recover(); r != nil {
			ans = map[string]interface{}{"panic": fmt.Sprint(r)}
		}
	}()
	switch req.Op {
	case "chain":
		return judgeChain(req)
	case "cert":
		return judgeCert(req)
	case "csr":
		return judgeCSR(req)
	case "pem":
		return judgePEM(req)
	case "rfc3339":
		return judgeRFC3339(req)
	case "kubeconfig":
		return judgeKubeconfig(req)
	case "gen":
		return genCerts(req.Certs)
	case "gencsr":
		return genCSR(req.CSR)
	}
	return map[string]interface{}{"fatal": "unknown op " + req.Op}
}
