package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ExtSpec is an extra extension, added verbatim (it replaces the one Go would
// make for the same OID; two with one OID give a duplicate).
type ExtSpec struct {
	OID      string `json:"oid"`
	Critical bool   `json:"critical"`
	Value    string `json:"value"` // base64 DER
}

// PostSpec rewrites the TBS after x509.CreateCertificate and signs it again,
// for what Go refuses to create: v1 certificates, negative serials, odd keys,
// MD5 or odd RSA-PSS parameters.
type PostSpec struct {
	V1        bool   `json:"v1,omitempty"`
	SerialHex string `json:"serialHex,omitempty"` // INTEGER content bytes
	SPKIFrom  string `json:"spkiFrom,omitempty"`  // a key reference whose public key replaces the SPKI
	AlgHex    string `json:"algHex,omitempty"`    // AlgorithmIdentifier DER, inner and outer
	OuterHex  string `json:"outerHex,omitempty"`  // AlgorithmIdentifier DER, outer only
	Hash      string `json:"hash"`                // MD5, SHA1, SHA256, SHA384, SHA512
	PSSSalt   int    `json:"pssSalt,omitempty"`   // > 0: sign RSA-PSS with this salt
}

// CertSpec describes one certificate of a generated set.
type CertSpec struct {
	Key            string    `json:"key"`    // key reference, e.g. "p256:0", "rsa2048:1"
	Issuer         int       `json:"issuer"` // index of an earlier spec; -1 = self-signed
	Serial         string    `json:"serial,omitempty"`
	SubjectDER     string    `json:"subjectDer,omitempty"` // base64 Name DER, used verbatim
	CN             string    `json:"cn,omitempty"`
	O              []string  `json:"o,omitempty"`
	NotBefore      string    `json:"notBefore"`
	NotAfter       string    `json:"notAfter"`
	BCValid        bool      `json:"bcValid,omitempty"`
	IsCA           bool      `json:"isCA,omitempty"`
	MaxPathLen     int       `json:"maxPathLen,omitempty"`
	MaxPathLenZero bool      `json:"maxPathLenZero,omitempty"`
	KeyUsage       int       `json:"keyUsage,omitempty"`
	EKU            []string  `json:"eku,omitempty"`
	UnknownEKU     []string  `json:"unknownEku,omitempty"`
	DNS            []string  `json:"dns,omitempty"`
	Emails         []string  `json:"emails,omitempty"`
	IPs            []string  `json:"ips,omitempty"`
	URIs           []string  `json:"uris,omitempty"`
	PermittedDNS   []string  `json:"permittedDNS,omitempty"`
	ExcludedDNS    []string  `json:"excludedDNS,omitempty"`
	PermittedEmail []string  `json:"permittedEmail,omitempty"`
	ExcludedEmail  []string  `json:"excludedEmail,omitempty"`
	PermittedURI   []string  `json:"permittedURI,omitempty"`
	ExcludedURI    []string  `json:"excludedURI,omitempty"`
	PermittedIP    []string  `json:"permittedIP,omitempty"`
	ExcludedIP     []string  `json:"excludedIP,omitempty"`
	NCCritical     bool      `json:"ncCritical,omitempty"`
	SKID           string    `json:"skid,omitempty"` // hex
	Extra          []ExtSpec `json:"extra,omitempty"`
	SigAlg         string    `json:"sigAlg,omitempty"` // Go's name, e.g. "SHA256-RSA"
	Post           *PostSpec `json:"post,omitempty"`
}

// CSRSpec describes a generated certificate request.
type CSRSpec struct {
	Key        string    `json:"key"`
	SubjectDER string    `json:"subjectDer,omitempty"`
	CN         string    `json:"cn,omitempty"`
	O          []string  `json:"o,omitempty"`
	DNS        []string  `json:"dns,omitempty"`
	Emails     []string  `json:"emails,omitempty"`
	IPs        []string  `json:"ips,omitempty"`
	URIs       []string  `json:"uris,omitempty"`
	Extra      []ExtSpec `json:"extra,omitempty"`
	SigAlg     string    `json:"sigAlg,omitempty"`
	Post       *PostSpec `json:"post,omitempty"`
}

var keys = map[string]crypto.Signer{}

// keyFor returns the key a reference names, generating it on first use (a
// process keeps a small pool: key generation dominates otherwise).
func keyFor(ref string) (crypto.Signer, error) {
	if k, ok := keys[ref]; ok {
		return k, nil
	}
	kind := ref
	if i := strings.IndexByte(ref, ':'); i >= 0 {
		kind = ref[:i]
	}
	var k crypto.Signer
	var err error
	switch kind {
	case "p224":
		k, err = ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	case "p256":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "p384":
		k, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "p521":
		k, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "ed25519":
		_, k, err = ed25519.GenerateKey(rand.Reader)
	default:
		if strings.HasPrefix(kind, "rsa") {
			bits, perr := strconv.Atoi(kind[3:])
			if perr != nil {
				return nil, fmt.Errorf("bad key reference %q", ref)
			}
			k, err = rsa.GenerateKey(rand.Reader, bits)
		} else {
			return nil, fmt.Errorf("bad key reference %q", ref)
		}
	}
	if err != nil {
		return nil, err
	}
	keys[ref] = k
	return k, nil
}

// publicFor is the public key a reference names; "rsaEvenE", "rsaEvenN",
// "rsaE1" are RSA public keys no private key matches (N or E altered).
func publicFor(ref string) (interface{}, error) {
	switch ref {
	case "rsaEvenE", "rsaEvenN", "rsaE1":
		k, err := keyFor("rsa2048:0")
		if err != nil {
			return nil, err
		}
		pub := *k.Public().(*rsa.PublicKey)
		switch ref {
		case "rsaEvenE":
			pub.E = 65538
		case "rsaEvenN":
			pub.N = new(big.Int).Add(pub.N, big.NewInt(1))
		case "rsaE1":
			pub.E = 1
		}
		return &pub, nil
	}
	k, err := keyFor(ref)
	if err != nil {
		return nil, err
	}
	return k.Public(), nil
}

var sigAlgByName = map[string]x509.SignatureAlgorithm{}

func init() {
	for a := x509.MD2WithRSA; a <= x509.PureEd25519+4; a++ {
		sigAlgByName[a.String()] = a
	}
}

func parseOID(s string) (asn1.ObjectIdentifier, error) {
	var oid asn1.ObjectIdentifier
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("bad OID %q", s)
		}
		oid = append(oid, n)
	}
	return oid, nil
}

func extensions(specs []ExtSpec) ([]pkix.Extension, error) {
	var out []pkix.Extension
	for _, e := range specs {
		oid, err := parseOID(e.OID)
		if err != nil {
			return nil, err
		}
		v, err := unb64(e.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, pkix.Extension{Id: oid, Critical: e.Critical, Value: v})
	}
	return out, nil
}

func parseIPs(ss []string) ([]net.IP, error) {
	var out []net.IP
	for _, s := range ss {
		ip := net.ParseIP(s)
		if ip == nil {
			return nil, fmt.Errorf("bad IP %q", s)
		}
		if v4 := ip.To4(); v4 != nil {
			ip = v4
		}
		out = append(out, ip)
	}
	return out, nil
}

func parseCIDRs(ss []string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, s := range ss {
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func parseURIs(ss []string) ([]*url.URL, error) {
	var out []*url.URL
	for _, s := range ss {
		u, err := url.Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func uriStrings(us []*url.URL) []string {
	out := []string{}
	for _, u := range us {
		out = append(out, u.String())
	}
	return out
}

func genCerts(specs []CertSpec) interface{} {
	ders, err := makeCerts(specs)
	if err != nil {
		return map[string]interface{}{"err": err.Error()}
	}
	out := []string{}
	for _, d := range ders {
		out = append(out, b64(d))
	}
	return map[string]interface{}{"certs": out}
}

func makeCerts(specs []CertSpec) ([][]byte, error) {
	var ders [][]byte
	var parsed []*x509.Certificate
	for i, s := range specs {
		t := &x509.Certificate{
			Subject:                     pkix.Name{CommonName: s.CN, Organization: s.O},
			BasicConstraintsValid:       s.BCValid,
			IsCA:                        s.IsCA,
			MaxPathLen:                  s.MaxPathLen,
			MaxPathLenZero:              s.MaxPathLenZero,
			KeyUsage:                    x509.KeyUsage(s.KeyUsage),
			DNSNames:                    s.DNS,
			EmailAddresses:              s.Emails,
			PermittedDNSDomains:         s.PermittedDNS,
			ExcludedDNSDomains:          s.ExcludedDNS,
			PermittedEmailAddresses:     s.PermittedEmail,
			ExcludedEmailAddresses:      s.ExcludedEmail,
			PermittedURIDomains:         s.PermittedURI,
			ExcludedURIDomains:          s.ExcludedURI,
			PermittedDNSDomainsCritical: s.NCCritical,
		}
		var err error
		if t.NotBefore, err = time.Parse(time.RFC3339, s.NotBefore); err != nil {
			return nil, err
		}
		if t.NotAfter, err = time.Parse(time.RFC3339, s.NotAfter); err != nil {
			return nil, err
		}
		t.SerialNumber = big.NewInt(int64(i + 1))
		if s.Serial != "" {
			if _, ok := t.SerialNumber.SetString(s.Serial, 10); !ok {
				return nil, fmt.Errorf("bad serial %q", s.Serial)
			}
		}
		if s.SubjectDER != "" {
			if t.RawSubject, err = unb64(s.SubjectDER); err != nil {
				return nil, err
			}
		}
		for _, n := range s.EKU {
			u, ok := ekuByName[n]
			if !ok {
				return nil, fmt.Errorf("unknown EKU %q", n)
			}
			t.ExtKeyUsage = append(t.ExtKeyUsage, u)
		}
		for _, o := range s.UnknownEKU {
			oid, err := parseOID(o)
			if err != nil {
				return nil, err
			}
			t.UnknownExtKeyUsage = append(t.UnknownExtKeyUsage, oid)
		}
		if t.IPAddresses, err = parseIPs(s.IPs); err != nil {
			return nil, err
		}
		if t.URIs, err = parseURIs(s.URIs); err != nil {
			return nil, err
		}
		if t.PermittedIPRanges, err = parseCIDRs(s.PermittedIP); err != nil {
			return nil, err
		}
		if t.ExcludedIPRanges, err = parseCIDRs(s.ExcludedIP); err != nil {
			return nil, err
		}
		if s.SKID != "" {
			if t.SubjectKeyId, err = hex.DecodeString(s.SKID); err != nil {
				return nil, err
			}
		}
		if t.ExtraExtensions, err = extensions(s.Extra); err != nil {
			return nil, err
		}
		if s.SigAlg != "" {
			a, ok := sigAlgByName[s.SigAlg]
			if !ok {
				return nil, fmt.Errorf("unknown signature algorithm %q", s.SigAlg)
			}
			t.SignatureAlgorithm = a
		}
		key, err := keyFor(s.Key)
		if err != nil {
			return nil, err
		}
		parent, signer := t, key
		if s.Issuer >= 0 {
			if s.Issuer >= i {
				return nil, fmt.Errorf("cert %d: issuer %d is not earlier", i, s.Issuer)
			}
			parent = parsed[s.Issuer]
			if signer, err = keyFor(specs[s.Issuer].Key); err != nil {
				return nil, err
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, t, parent, key.Public(), signer)
		if err != nil {
			return nil, fmt.Errorf("cert %d: %v", i, err)
		}
		if s.Post != nil {
			if der, err = rewrite(der, false, s.Post, signer); err != nil {
				return nil, fmt.Errorf("cert %d: %v", i, err)
			}
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			// Unparseable certificates are fine as leaves (the verdict is the parse error),
			// not as issuers.
			c = &x509.Certificate{Raw: der}
		}
		parsed = append(parsed, c)
		ders = append(ders, der)
	}
	return ders, nil
}

func genCSR(s *CSRSpec) interface{} {
	if s == nil {
		return map[string]interface{}{"err": "no csr spec"}
	}
	der, err := makeCSR(s)
	if err != nil {
		return map[string]interface{}{"err": err.Error()}
	}
	return map[string]interface{}{"der": b64(der)}
}

func makeCSR(s *CSRSpec) ([]byte, error) {
	t := &x509.CertificateRequest{
		Subject:        pkix.Name{CommonName: s.CN, Organization: s.O},
		DNSNames:       s.DNS,
		EmailAddresses: s.Emails,
	}
	var err error
	if s.SubjectDER != "" {
		if t.RawSubject, err = unb64(s.SubjectDER); err != nil {
			return nil, err
		}
	}
	if t.IPAddresses, err = parseIPs(s.IPs); err != nil {
		return nil, err
	}
	if t.URIs, err = parseURIs(s.URIs); err != nil {
		return nil, err
	}
	if t.ExtraExtensions, err = extensions(s.Extra); err != nil {
		return nil, err
	}
	if s.SigAlg != "" {
		a, ok := sigAlgByName[s.SigAlg]
		if !ok {
			return nil, fmt.Errorf("unknown signature algorithm %q", s.SigAlg)
		}
		t.SignatureAlgorithm = a
	}
	key, err := keyFor(s.Key)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, t, key)
	if err != nil {
		return nil, err
	}
	if s.Post != nil {
		return rewrite(der, true, s.Post, key)
	}
	return der, nil
}

// rewrite edits a signed structure's TBS per p and signs it again with key.
func rewrite(der []byte, csr bool, p *PostSpec, key crypto.Signer) ([]byte, error) {
	var outer struct {
		TBS asn1.RawValue
		Alg asn1.RawValue
		Sig asn1.BitString
	}
	if _, err := asn1.Unmarshal(der, &outer); err != nil {
		return nil, err
	}
	var elems [][]byte
	for rest := outer.TBS.Bytes; len(rest) > 0; {
		var rv asn1.RawValue
		var err error
		if rest, err = asn1.Unmarshal(rest, &rv); err != nil {
			return nil, err
		}
		elems = append(elems, rv.FullBytes)
	}
	alg := outer.Alg.FullBytes
	spkiAt := 2 // CSR: version, subject, spki, attributes
	if !csr {
		v := 0
		if elems[0][0] == 0xa0 {
			v = 1
		}
		spkiAt = v + 5
		if p.SerialHex != "" {
			b, err := hex.DecodeString(p.SerialHex)
			if err != nil {
				return nil, err
			}
			elems[v] = tlv(0x02, b)
		}
		if p.AlgHex != "" {
			b, err := hex.DecodeString(p.AlgHex)
			if err != nil {
				return nil, err
			}
			elems[v+1], alg = b, b
		}
		if p.V1 {
			elems = elems[v : v+6]
			spkiAt -= v
		}
	} else if p.AlgHex != "" {
		b, err := hex.DecodeString(p.AlgHex)
		if err != nil {
			return nil, err
		}
		alg = b
	}
	if p.OuterHex != "" {
		b, err := hex.DecodeString(p.OuterHex)
		if err != nil {
			return nil, err
		}
		alg = b
	}
	if p.SPKIFrom != "" {
		pub, err := publicFor(p.SPKIFrom)
		if err != nil {
			return nil, err
		}
		spki, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			return nil, err
		}
		elems[spkiAt] = spki
	}
	var body []byte
	for _, e := range elems {
		body = append(body, e...)
	}
	tbs := tlv(0x30, body)
	sig, err := signWith(key, tbs, p.Hash, p.PSSSalt)
	if err != nil {
		return nil, err
	}
	bits, err := asn1.Marshal(asn1.BitString{Bytes: sig, BitLength: 8 * len(sig)})
	if err != nil {
		return nil, err
	}
	return tlv(0x30, append(append(append([]byte{}, tbs...), alg...), bits...)), nil
}

func tlv(tag byte, body []byte) []byte {
	n := len(body)
	var l []byte
	switch {
	case n < 0x80:
		l = []byte{byte(n)}
	case n < 0x100:
		l = []byte{0x81, byte(n)}
	case n < 0x10000:
		l = []byte{0x82, byte(n >> 8), byte(n)}
	default:
		l = []byte{0x83, byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return append(append([]byte{tag}, l...), body...)
}

func signWith(key crypto.Signer, tbs []byte, hashName string, pssSalt int) ([]byte, error) {
	if k, ok := key.(ed25519.PrivateKey); ok {
		return ed25519.Sign(k, tbs), nil
	}
	var h crypto.Hash
	var digest []byte
	switch hashName {
	case "MD5":
		s := md5.Sum(tbs)
		h, digest = crypto.MD5, s[:]
	case "SHA1":
		s := sha1.Sum(tbs)
		h, digest = crypto.SHA1, s[:]
	case "", "SHA256":
		s := sha256.Sum256(tbs)
		h, digest = crypto.SHA256, s[:]
	case "SHA384":
		s := sha512.Sum384(tbs)
		h, digest = crypto.SHA384, s[:]
	case "SHA512":
		s := sha512.Sum512(tbs)
		h, digest = crypto.SHA512, s[:]
	default:
		return nil, errors.New("unknown hash " + hashName)
	}
	if k, ok := key.(*rsa.PrivateKey); ok && pssSalt > 0 {
		return rsa.SignPSS(rand.Reader, k, h, digest, &rsa.PSSOptions{SaltLength: pssSalt, Hash: h})
	}
	return key.Sign(rand.Reader, digest, h)
}
