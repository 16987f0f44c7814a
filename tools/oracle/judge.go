package main

import (
	"bytes"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"
)

// Facts are properties of the input that the intended-difference classifier
// (intended.ts) needs and that are easiest to establish with Go's parser.
type Facts struct {
	NegPathLen bool `json:"negPathLen,omitempty"` // a BasicConstraints pathLen < 0 (rejected by Go 1.25)
	T61High    bool `json:"t61High,omitempty"`    // a T61String with a byte >= 0x80 (Go 1.25 maps it as Latin-1)
	BMPStrict  bool `json:"bmpStrict,omitempty"`  // a BMPString Go 1.25 refuses (surrogates, U+FFFE/FFFF, U+FDD0-FDEF)
	RSASmall   bool `json:"rsaSmall,omitempty"`   // an RSA key below 1024 bits (rsa1024min, Go 1.24)
	RSAOddKey  bool `json:"rsaOddKey,omitempty"`  // an RSA key the Go 1.24 FIPS check refuses (even N or E, E<2, E>2^31-1)
	BadBool    bool `json:"badBool,omitempty"`    // a BOOLEAN that is not DER (encoding/asn1 parses it into any since golang/go#68241)
}

var ekuByName = map[string]x509.ExtKeyUsage{
	"Any": x509.ExtKeyUsageAny, "ServerAuth": x509.ExtKeyUsageServerAuth,
	"ClientAuth": x509.ExtKeyUsageClientAuth, "CodeSigning": x509.ExtKeyUsageCodeSigning,
	"EmailProtection": x509.ExtKeyUsageEmailProtection, "IPSECEndSystem": x509.ExtKeyUsageIPSECEndSystem,
	"IPSECTunnel": x509.ExtKeyUsageIPSECTunnel, "IPSECUser": x509.ExtKeyUsageIPSECUser,
	"TimeStamping": x509.ExtKeyUsageTimeStamping, "OCSPSigning": x509.ExtKeyUsageOCSPSigning,
	"MicrosoftServerGatedCrypto":     x509.ExtKeyUsageMicrosoftServerGatedCrypto,
	"NetscapeServerGatedCrypto":      x509.ExtKeyUsageNetscapeServerGatedCrypto,
	"MicrosoftCommercialCodeSigning": x509.ExtKeyUsageMicrosoftCommercialCodeSigning,
	"MicrosoftKernelCodeSigning":     x509.ExtKeyUsageMicrosoftKernelCodeSigning,
}

func ekuName(u x509.ExtKeyUsage) string {
	for n, v := range ekuByName {
		if v == u {
			return n
		}
	}
	return fmt.Sprint(int(u))
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func unb64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// certID names a certificate in chain verdicts: the first 12 hex digits of SHA-256(DER).
func certID(raw []byte) string {
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:6])
}

// ---- chain ----

// parsePEMCerts parses every PEM block as a certificate. Key facts are
// recorded only for issuers (withKeys): a leaf's key checks no signature.
func parsePEMCerts(s string, facts *Facts, withKeys bool) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	rest := []byte(s)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return out, nil
		}
		scanDER(b.Bytes, facts)
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		certFacts(c, facts, withKeys)
		out = append(out, c)
	}
}

func judgeChain(r *Request) interface{} {
	var facts Facts
	ans := map[string]interface{}{"facts": &facts}
	leafs, err := parsePEMCerts(r.Leaf, &facts, false)
	if err == nil && len(leafs) != 1 {
		err = errors.New("want one leaf")
	}
	var inters, roots []*x509.Certificate
	if err == nil {
		inters, err = parsePEMCerts(r.Intermediates, &facts, true)
	}
	if err == nil {
		roots, err = parsePEMCerts(r.Roots, &facts, true)
	}
	if err != nil {
		ans["ok"] = false
		ans["err"] = "parse: " + err.Error()
		return ans
	}
	now, err := time.Parse(time.RFC3339, r.Time)
	if err != nil {
		return map[string]interface{}{"fatal": "bad time: " + err.Error()}
	}
	opts := x509.VerifyOptions{
		Roots:         x509.NewCertPool(),
		Intermediates: x509.NewCertPool(),
		CurrentTime:   now,
		DNSName:       r.DNSName,
	}
	for _, c := range roots {
		opts.Roots.AddCert(c)
	}
	for _, c := range inters {
		opts.Intermediates.AddCert(c)
	}
	for _, n := range r.KeyUsages {
		u, ok := ekuByName[n]
		if !ok {
			return map[string]interface{}{"fatal": "unknown key usage " + n}
		}
		opts.KeyUsages = append(opts.KeyUsages, u)
	}
	chains, err := leafs[0].Verify(opts)
	if err != nil {
		ans["ok"] = false
		ans["err"] = err.Error()
		return ans
	}
	ids := []string{}
	for _, ch := range chains {
		var p []string
		for _, c := range ch {
			p = append(p, certID(c.Raw))
		}
		ids = append(ids, strings.Join(p, ">"))
	}
	sort.Strings(ids)
	ans["ok"] = true
	ans["chains"] = ids
	return ans
}

// ---- cert ----

type nameConstraints struct {
	Critical       bool     `json:"critical"`
	PermittedDNS   []string `json:"permittedDNS"`
	ExcludedDNS    []string `json:"excludedDNS"`
	PermittedIP    []string `json:"permittedIP"`
	ExcludedIP     []string `json:"excludedIP"`
	PermittedEmail []string `json:"permittedEmail"`
	ExcludedEmail  []string `json:"excludedEmail"`
	PermittedURI   []string `json:"permittedURI"`
	ExcludedURI    []string `json:"excludedURI"`
}

func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func judgeCert(r *Request) interface{} {
	var facts Facts
	der, err := unb64(r.DER)
	if err != nil {
		return map[string]interface{}{"fatal": err.Error()}
	}
	scanDER(der, &facts)
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return map[string]interface{}{"ok": false, "err": err.Error(), "facts": &facts}
	}
	certFacts(c, &facts, false)
	f := map[string]interface{}{
		"version":      c.Version,
		"serial":       c.SerialNumber.String(),
		"subjectCN":    c.Subject.CommonName,
		"subjectO":     strs(c.Subject.Organization),
		"issuerCN":     c.Issuer.CommonName,
		"notBefore":    c.NotBefore.UTC().Format(time.RFC3339),
		"notAfter":     c.NotAfter.UTC().Format(time.RFC3339),
		"dns":          strs(c.DNSNames),
		"emails":       strs(c.EmailAddresses),
		"ips":          ipStrings(c),
		"uris":         uriStrings(c.URIs),
		"bcValid":      c.BasicConstraintsValid,
		"isCA":         c.IsCA,
		"maxPathLen":   c.MaxPathLen,
		"keyUsage":     int(c.KeyUsage),
		"sigAlg":       c.SignatureAlgorithm.String(),
		"pubKeyAlg":    c.PublicKeyAlgorithm.String(),
		"unhandled":    len(c.UnhandledCriticalExtensions),
		"eku":          ekuNames(c.ExtKeyUsage),
		"unknownEku":   oidStrings(c.UnknownExtKeyUsage),
		"subjectKeyId": hex.EncodeToString(c.SubjectKeyId),
	}
	if !c.BasicConstraintsValid {
		// Without the extension MaxPathLen is Go's zero value and means nothing.
		delete(f, "maxPathLen")
	}
	for _, e := range c.Extensions {
		if e.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 30}) {
			nc := nameConstraints{
				Critical:       e.Critical,
				PermittedDNS:   strs(c.PermittedDNSDomains),
				ExcludedDNS:    strs(c.ExcludedDNSDomains),
				PermittedEmail: strs(c.PermittedEmailAddresses),
				ExcludedEmail:  strs(c.ExcludedEmailAddresses),
				PermittedURI:   strs(c.PermittedURIDomains),
				ExcludedURI:    strs(c.ExcludedURIDomains),
				PermittedIP:    []string{},
				ExcludedIP:     []string{},
			}
			for _, n := range c.PermittedIPRanges {
				nc.PermittedIP = append(nc.PermittedIP, n.String())
			}
			for _, n := range c.ExcludedIPRanges {
				nc.ExcludedIP = append(nc.ExcludedIP, n.String())
			}
			f["nameConstraints"] = nc
		}
	}
	return map[string]interface{}{"ok": true, "fields": f, "facts": &facts}
}

func ipStrings(c *x509.Certificate) []string {
	out := []string{}
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	return out
}

func ekuNames(us []x509.ExtKeyUsage) []string {
	out := []string{}
	for _, u := range us {
		out = append(out, ekuName(u))
	}
	return out
}

func oidStrings(os []asn1.ObjectIdentifier) []string {
	out := []string{}
	for _, o := range os {
		out = append(out, o.String())
	}
	return out
}

// certFacts records the key and extension facts of a parsed certificate.
func certFacts(c *x509.Certificate, f *Facts, withKeys bool) {
	if withKeys {
		keyFacts(c.PublicKey, f)
	}
	for _, e := range c.Extensions {
		if !e.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 19}) {
			continue
		}
		negativePathLen(e.Value, f)
	}
}

func negativePathLen(value []byte, f *Facts) {
	var bc struct {
		IsCA bool     `asn1:"optional"`
		Len  *big.Int `asn1:"optional"`
	}
	if _, err := asn1.Unmarshal(value, &bc); err == nil && bc.Len != nil && bc.Len.Sign() < 0 {
		f.NegPathLen = true
	}
}

func keyFacts(pub interface{}, f *Facts) {
	k, ok := pub.(*rsa.PublicKey)
	if !ok || k == nil || k.N == nil {
		return
	}
	if k.N.BitLen() < 1024 {
		f.RSASmall = true
	}
	if k.N.Bit(0) == 0 || k.E < 2 || k.E&1 == 0 || int64(k.E) > 1<<31-1 {
		f.RSAOddKey = true
	}
}

// scanDER walks a DER tree as far as it is well-formed and notes T61String
// (20) and BMPString (30) values, whose rules changed in Go 1.25.
func scanDER(b []byte, f *Facts) {
	for depth := 0; len(b) > 0 && depth < 10000; depth++ {
		var rv asn1.RawValue
		rest, err := asn1.Unmarshal(b, &rv)
		if err != nil {
			return
		}
		if rv.Class == 0 && rv.Tag == 20 {
			for _, c := range rv.Bytes {
				if c >= 0x80 {
					f.T61High = true
				}
			}
		}
		if rv.Class == 0 && rv.Tag == 1 && !rv.IsCompound && (len(rv.Bytes) != 1 || rv.Bytes[0] != 0 && rv.Bytes[0] != 0xff) {
			f.BadBool = true
		}
		if rv.Class == 0 && rv.Tag == 30 {
			for i := 0; i+1 < len(rv.Bytes); i += 2 {
				u := uint16(rv.Bytes[i])<<8 | uint16(rv.Bytes[i+1])
				if u >= 0xd800 && u <= 0xdfff || u == 0xfffe || u == 0xffff || u >= 0xfdd0 && u <= 0xfdef {
					f.BMPStrict = true
				}
			}
		}
		if rv.IsCompound {
			var ext pkix.Extension
			if rv.Tag == 16 {
				if _, err := asn1.Unmarshal(rv.FullBytes, &ext); err == nil && ext.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 19}) {
					negativePathLen(ext.Value, f)
				}
			}
			scanDER(rv.Bytes, f)
		} else if rv.Class == 0 && rv.Tag == 4 || rv.Class == 0 && rv.Tag == 3 && len(rv.Bytes) > 1 {
			// Extension values are OCTET STRINGs holding DER.
			inner := rv.Bytes
			if rv.Tag == 3 {
				inner = inner[1:]
			}
			scanDER(inner, f)
		}
		b = rest
	}
}

// ---- csr ----

func judgeCSR(r *Request) interface{} {
	var facts Facts
	der, err := unb64(r.DER)
	if err != nil {
		return map[string]interface{}{"fatal": err.Error()}
	}
	scanDER(der, &facts)
	c, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return map[string]interface{}{"ok": false, "err": err.Error(), "facts": &facts}
	}
	keyFacts(c.PublicKey, &facts)
	f := map[string]interface{}{
		"subjectCN": c.Subject.CommonName,
		"subjectO":  strs(c.Subject.Organization),
		"dns":       strs(c.DNSNames),
		"emails":    strs(c.EmailAddresses),
		"ips":       []string{},
		"uris":      uriStrings(c.URIs),
		"sigAlg":    c.SignatureAlgorithm.String(),
		"pubKeyAlg": c.PublicKeyAlgorithm.String(),
	}
	ips := []string{}
	for _, ip := range c.IPAddresses {
		ips = append(ips, ip.String())
	}
	f["ips"] = ips
	return map[string]interface{}{
		"ok": true, "fields": f, "check": errText(c.CheckSignature()), "facts": &facts,
	}
}

// ---- pem ----

// parseCertsPEM is client-go's k8s.io/client-go/util/cert.ParseCertsPEM
// (util/cert/pem.go), ported line for line.
func parseCertsPEM(pemCerts []byte) ([]*x509.Certificate, error) {
	return parseCertsPEMWith(pemCerts, pem.Decode)
}

func parseCertsPEMWith(pemCerts []byte, decode func([]byte) (*pem.Block, []byte)) ([]*x509.Certificate, error) {
	ok := false
	certs := []*x509.Certificate{}
	for len(pemCerts) > 0 {
		var block *pem.Block
		block, pemCerts = decode(pemCerts)
		if block == nil {
			break
		}
		// Only use PEM "CERTIFICATE" blocks without extra headers
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return certs, err
		}
		certs = append(certs, cert)
		ok = true
	}
	if !ok {
		return certs, errors.New("data does not contain any valid RSA or ECDSA certificates")
	}
	return certs, nil
}

type pemBlock struct {
	Type    string `json:"type"`
	Headers int    `json:"headers"`
	Len     int    `json:"len"`
	SHA     string `json:"sha"`
}

func judgePEM(r *Request) interface{} {
	data, err := unb64(r.Data)
	if err != nil {
		return map[string]interface{}{"fatal": err.Error()}
	}
	run := func(decode func([]byte) (*pem.Block, []byte)) map[string]interface{} {
		blocks := []pemBlock{}
		rest := data
		for len(blocks) < 10000 {
			var b *pem.Block
			b, rest = decode(rest)
			if b == nil {
				break
			}
			blocks = append(blocks, pemBlock{b.Type, len(b.Headers), len(b.Bytes), certID(b.Bytes)})
		}
		certs, err := parseCertsPEMWith(data, decode)
		ids := []string{}
		for _, c := range certs {
			ids = append(ids, certID(c.Raw))
		}
		return map[string]interface{}{
			"ok": err == nil, "err": errText(err), "certs": ids, "blocks": blocks,
		}
	}
	ans := run(pem.Decode)
	ans["model125"] = run(decode125)
	// For --go123-plain's classifier: what the blocks hold (e.g. a negative pathLen).
	var facts Facts
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		scanDER(b.Bytes, &facts)
	}
	ans["facts"] = &facts
	return ans
}

// ---- rfc3339 ----

func judgeRFC3339(r *Request) interface{} {
	t, err := time.Parse(time.RFC3339, r.S)
	if err != nil {
		return map[string]interface{}{"ok": false, "err": err.Error()}
	}
	return map[string]interface{}{"ok": true, "sec": t.Unix(), "nsec": t.Nanosecond()}
}

// ---- kubeconfig ----

// judgeKubeconfig is a TRANSCRIPTION, not client-go or kubeadm themselves
// (neither can be fetched here): client-go's clientcmd.Load list->map
// conversion (tools/clientcmd/api/v1/conversion.go: a repeated name in
// clusters, users, contexts or extensions is an error, in that order),
// kubeadm's GetClusterFromKubeConfig as of k/k#134715 (the unnamed cluster ""
// first, else current-context -> context -> cluster, an error otherwise;
// its inner error texts are unconfirmed, so only the stage is compared), and
// token discovery's validateClusterCA pin check, done over
// certutil.ParseCertsPEM of the chosen cluster's certificate-authority-data
// (what joinkit promises; kubeadm itself reads the last cluster in map order).
func judgeKubeconfig(r *Request) interface{} {
	fail := func(stage, msg string) interface{} {
		return map[string]interface{}{"ok": false, "stage": stage, "err": msg}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(r.Kubeconfig, &doc); err != nil {
		return fail("load", err.Error())
	}
	type entry struct {
		name string
		body map[string]json.RawMessage
	}
	// Field names are matched case-sensitively, as apimachinery's decoder does.
	list := func(key string) ([]entry, error) {
		raw, ok := doc[key]
		if !ok || string(raw) == "null" {
			return nil, nil
		}
		var items []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		out := []entry{}
		for _, it := range items {
			var e entry
			if n, ok := it["name"]; ok {
				if err := json.Unmarshal(n, &e.name); err != nil {
					return nil, err
				}
			}
			e.body = it
			out = append(out, e)
		}
		return out, nil
	}
	str := func(m map[string]json.RawMessage, k string) (string, error) {
		var s string
		if v, ok := m[k]; ok && string(v) != "null" {
			err := json.Unmarshal(v, &s)
			return s, err
		}
		return "", nil
	}
	sub := func(m map[string]json.RawMessage, k string) (map[string]json.RawMessage, error) {
		out := map[string]json.RawMessage{}
		if v, ok := m[k]; ok && string(v) != "null" {
			err := json.Unmarshal(v, &out)
			return out, err
		}
		return out, nil
	}
	type cluster struct {
		server string
		caData []byte
	}
	clusters := map[string]cluster{}
	contexts := map[string]string{}
	lists := []struct{ key, goType, mapType string }{
		{"clusters", "*[]NamedCluster", "*map[string]*api.Cluster"},
		{"users", "*[]NamedAuthInfo", "*map[string]*api.AuthInfo"},
		{"contexts", "*[]NamedContext", "*map[string]*api.Context"},
		{"extensions", "*[]NamedExtension", "*map[string]runtime.Object"},
	}
	for _, l := range lists {
		items, err := list(l.key)
		if err != nil {
			return fail("load", err.Error())
		}
		seen := map[string]bool{}
		for _, e := range items {
			if seen[e.name] {
				// The upstream text goes on with ": %v" of the whole list (Go structs); cut there.
				return fail("load", fmt.Sprintf("error converting %s into %s: duplicate name %q in list", l.goType, l.mapType, e.name))
			}
			seen[e.name] = true
			switch l.key {
			case "clusters":
				c, err := sub(e.body, "cluster")
				if err != nil {
					return fail("load", err.Error())
				}
				var cl cluster
				if cl.server, err = str(c, "server"); err != nil {
					return fail("load", err.Error())
				}
				if v, ok := c["certificate-authority-data"]; ok && string(v) != "null" {
					// []byte fields are base64 in JSON (std encoding, \r\n ignored).
					if err := json.Unmarshal(v, &cl.caData); err != nil {
						return fail("load", err.Error())
					}
				}
				clusters[e.name] = cl
			case "contexts":
				c, err := sub(e.body, "context")
				if err != nil {
					return fail("load", err.Error())
				}
				cn, err := str(c, "cluster")
				if err != nil {
					return fail("load", err.Error())
				}
				contexts[e.name] = cn
			}
		}
	}
	current, err := str(doc, "current-context")
	if err != nil {
		return fail("load", err.Error())
	}
	// GetClusterFromKubeConfig
	name := ""
	cl, ok := clusters[""]
	if !ok {
		ctxCluster, ok := contexts[current]
		if !ok {
			return fail("choose", fmt.Sprintf("no context %q", current))
		}
		if cl, ok = clusters[ctxCluster]; !ok {
			return fail("choose", fmt.Sprintf("no cluster %q", ctxCluster))
		}
		name = ctxCluster
	}
	ans := map[string]interface{}{"cluster": name, "server": cl.server}
	if len(r.Pins) > 0 {
		certs, err := parseCertsPEM(cl.caData)
		if err != nil {
			return fail("parseCA", "failed to parse cluster CA from the cluster-info ConfigMap: "+err.Error())
		}
		allowed := map[string]bool{}
		for _, p := range r.Pins {
			allowed[strings.ToLower(p)] = true
		}
		pinned := -1
		for i, c := range certs {
			h := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			if allowed["sha256:"+hex.EncodeToString(h[:])] && pinned < 0 {
				pinned = i
			}
		}
		if pinned < 0 {
			return fail("pin", "cluster CA found in cluster-info ConfigMap is invalid: none of the public keys are pinned")
		}
		ans["pinned"] = pinned
		ans["certs"] = len(certs)
	}
	ans["ok"] = true
	return ans
}

var _ = bytes.Equal
