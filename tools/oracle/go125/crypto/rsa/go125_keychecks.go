// Copyright 2024 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// GO125 PATCH: a file added to Go 1.23.5's crypto/rsa by the joinkit oracle
// overlay (tools/oracle/go125/README.md). It holds the two public-key checks
// Go 1.24 runs before every RSA signature verification, as upstream words
// them; pkcs1v15.go and pss.go call them first.

package rsa

import (
	"errors"
	"internal/godebug"
	"strconv"
)

// rsa1024min is Go 1.24's GODEBUG setting ("#": not in Go 1.23's table).
// The oracle sets rsa1024min=0 only while it creates test certificates, as
// x509.CreateCertificate checks its own signature.
var rsa1024min = godebug.New("#rsa1024min")

// checkPublicKeySize125 is Go 1.24's checkPublicKeySize (crypto/rsa/rsa.go)
// and its GODEBUG rsa1024min (default on): keys below 1024 bits fail.
func checkPublicKeySize125(k *PublicKey) error {
	if k.N == nil {
		return errors.New("crypto/rsa: missing public modulus")
	}
	if k.N.BitLen() < 1024 {
		if rsa1024min.Value() == "0" {
			return nil
		}
		return errors.New("crypto/rsa: " + strconv.Itoa(k.N.BitLen()) + "-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)")
	}
	return nil
}

// checkPublicKey125 is the hard-failure part of Go 1.24's FIPS 140-3 module
// check (crypto/internal/fips140/rsa/rsa.go checkPublicKey), which
// VerifyPKCS1v15 and VerifyPSS run after the size check.
func checkPublicKey125(pub *PublicKey) error {
	if pub.N == nil {
		return errors.New("crypto/rsa: missing public modulus")
	}
	if pub.N.Bit(0) == 0 {
		return errors.New("crypto/rsa: public modulus is even")
	}
	if pub.E < 2 {
		return errors.New("crypto/rsa: public exponent too small or negative")
	}
	if pub.E&1 == 0 {
		return errors.New("crypto/rsa: public exponent is even")
	}
	if pub.E > 1<<31-1 {
		return errors.New("crypto/rsa: public exponent too large")
	}
	return nil
}
