/**
 * Regression tests for the disagreements the differential oracle
 * (`deno task oracle`, Go 1.23.5) found in chain verification and in the CSR
 * signature check: tests/fixtures/oracle/{chain,csr}/ (see the README there).
 *
 * The three chain cases turned out to be Go 1.23 → 1.25 differences, not
 * porting bugs: Go 1.25.x (≥ 1.25.5), which joinkit follows, refuses them, and
 * a Go 1.23.5 patched with just the 1.25 rule named in each test (built with
 * `-overlay`) gives joinkit's verdict byte for byte. The oracle only
 * classifies such a change as intended when its own error comes back; here it
 * changes *which* candidate's error is returned (go-exact.md §1.2).
 *
 * The CSR case was a real bug: Deno's node:crypto does not verify an ECDSA
 * signature whose digest is shorter than half the field size (SHA-1 on P-384).
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { type Cert, parseCertificate } from "../../lib/pki/cert_info.ts";
import { readTlv } from "../../lib/pki/der.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { matchDomainConstraint, verify } from "../../lib/pki/x509_verify.ts";
import {
  checkSignature,
  rsaPublicKeyError,
  rsaPublicNumbers,
} from "../../lib/pki/x509_signature.ts";

const ORACLE = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  "..",
  "fixtures",
  "oracle",
);

const certs = (pem: string): Cert[] => decodePem(pem).map((b) => parseCertificate(b.der));

/** What the oracle prints for a certificate: the first 6 bytes of SHA-256(DER), hex. */
const certId = (c: Cert) => createHash("sha256").update(c.der).digest("hex").slice(0, 12);

interface ChainFixture {
  leaf: Cert;
  roots: Cert[];
  intermediates: Cert[];
  opts: { time: string; keyUsages: string[]; dnsName: string };
  /** Go 1.23.5's verdict, as the oracle recorded it. */
  go: { ok: boolean; chains?: string[]; err?: string };
}

function chainFixture(name: string): ChainFixture {
  const f = (ext: string) =>
    fs.readFileSync(path.join(ORACLE, "chain", `${name}.${ext}`), "latin1");
  return {
    leaf: certs(f("leaf.pem"))[0]!,
    roots: certs(f("roots.pem")),
    intermediates: certs(f("intermediates.pem")),
    opts: JSON.parse(f("opts.json")),
    go: JSON.parse(f("verdicts.json")).go,
  };
}

function run(fx: ChainFixture, roots = fx.roots, intermediates = fx.intermediates): string {
  const r = verify(fx.leaf, {
    roots,
    intermediates,
    currentTime: new Date(fx.opts.time),
    keyUsages: fx.opts.keyUsages,
    dnsName: fx.opts.dnsName,
  });
  return r.ok ? "ok: " + r.chains.map((ch) => ch.map(certId).join(">")).sort().join(" ") : r.error;
}

const EXPIRED_2024 =
  "x509: certificate has expired or is not yet valid: current time 2025-06-01T00:00:00Z is after 2024-01-01T00:00:00Z";
const NC = "x509: a root or intermediate certificate is not authorized to sign for this name: ";

// Every verify() verdict in the three tests below, including the variants with
// roots removed or reordered, is what Go 1.23.5 patched with the named 1.25 rule
// (`go build -overlay`) returns.
Deno.test("verify() chain-1-1863: a fresh root failing the 1.25.5 wildcard exclusion and its expired twin: the expired error", () => {
  const fx = chainFixture("chain-1-1863");
  const [fresh, expired] = fx.roots;
  // Go 1.23.5 built the chain through the fresh root (serial 1).
  assert.deepEqual(fx.go, {
    ok: true,
    chains: [[fx.leaf, fx.intermediates[0]!, fresh!].map(certId).join(">")],
    facts: {},
  });
  assert.equal(expired!.notAfter.toISOString(), "2024-01-01T00:00:00.000Z");
  // Go 1.25.5 (CVE-2025-61727): the roots' excluded "foo.example.com" now
  // rules out the leaf's "*.example.com"; before, only foo.example.com itself.
  assert.deepEqual(matchDomainConstraint("*.example.com", "foo.example.com", true), { ok: true });
  assert.deepEqual(matchDomainConstraint("*.example.com", "foo.example.com", false), { ok: false });
  assert.equal(
    run(fx, [fresh!]),
    NC + 'DNS name "*.example.com" is excluded by constraint "foo.example.com"',
  );
  // Both roots fail isValid; the last candidate tried (the expired one) decides the error.
  assert.equal(run(fx), EXPIRED_2024);
  assert.equal(
    run(fx, [expired!, fresh!]),
    NC + 'DNS name "*.example.com" is excluded by constraint "foo.example.com"',
  );
});

Deno.test("verify() chain-1-9707: a fresh root failing the 1.25.5 wildcard exclusion, its expired copy among intermediates: the expired error", () => {
  const fx = chainFixture("chain-1-9707");
  const [root] = fx.roots;
  const copy = fx.intermediates.find((c) => c.subject.commonName === "Root CA")!;
  assert.deepEqual(fx.go.ok, true);
  assert.equal(copy.notAfter.toISOString(), "2024-01-01T00:00:00.000Z");
  // The leaf claims *.foo.example.com; the root excludes foo.com. Go 1.25.5
  // drops the leftmost label of both (foo.example.com vs com), so it matches.
  assert.deepEqual(matchDomainConstraint("*.foo.example.com", "foo.com", true), { ok: true });
  assert.deepEqual(matchDomainConstraint("*.foo.example.com", "foo.com", false), { ok: false });
  const inter = fx.intermediates.filter((c) => c !== copy);
  assert.equal(
    run(fx, [root!], inter),
    NC + 'DNS name "*.foo.example.com" is excluded by constraint "foo.com"',
  );
  // Roots first (NC error), then the expired copy as an intermediate: its error is the last.
  assert.equal(run(fx), EXPIRED_2024);
});

const UNKNOWN = (why: string, who: string) =>
  `x509: certificate signed by unknown authority (possibly because of ${
    JSON.stringify(why)
  } while trying to verify candidate authority certificate ${JSON.stringify(who)})`;
const CANNOT_SIGN =
  "x509: invalid signature: parent certificate cannot sign this kind of certificate";

Deno.test("verify() chain-1-4252: with rsa1024min the 512-bit intermediate never gets to the root; the hint names the first intermediate", () => {
  const fx = chainFixture("chain-1-4252");
  // Go 1.23.5 accepted the second intermediate's signature, recursed, and the
  // deeper call's UnknownAuthorityError (root without basicConstraints) won.
  assert.equal(fx.go.err, UNKNOWN(CANNOT_SIGN, "Root CA"));
  // Go 1.24+ rsa1024min: both intermediates hold a 512-bit key, so the second
  // one's signature check fails too and only hints remain; the first hint wins.
  for (const c of fx.intermediates) {
    const { n, e } = rsaPublicNumbers(c.key.spki)!;
    assert.equal(
      rsaPublicKeyError(n, e),
      "crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)",
    );
  }
  assert.equal(run(fx), UNKNOWN(CANNOT_SIGN, "Intermediate 0"));
});

// chain-1-4252's shape with P-256 keys (made with Go's CreateCertificate): two
// "Intermediate 0" under one key, the first without certSign, and a v3 "Root CA"
// without basicConstraints. Go 1.23.5: unknown authority naming "Root CA".
const DEEPER_ROOT = `-----BEGIN CERTIFICATE-----
MIIBIzCBy6ADAgECAgEBMAoGCCqGSM49BAMCMBIxEDAOBgNVBAMTB1Jvb3QgQ0Ew
HhcNMjAwMTAxMDAwMDAwWhcNMzAwMTAxMDAwMDAwWjASMRAwDgYDVQQDEwdSb290
IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAERiivl1ejdGp8uPpWMd4qzJlE
A2GnJLovcASAm3wTDN4PdMBL8uCbe5ptKp4JkOFrTK0zsKulECr29Y8C1gknrqMS
MBAwDgYDVR0PAQH/BAQDAgKEMAoGCCqGSM49BAMCA0cAMEQCIFz2lPIvYxSJ6YVZ
zIdUaIOQUbtz/x4oFyS7p+S5dNZCAiBkobESQEhA3BA7FqjL7QI8mr4TCl6Xwtwc
gtl3qLT2Ug==
-----END CERTIFICATE-----
`;
const DEEPER_INTERMEDIATES = `-----BEGIN CERTIFICATE-----
MIIBXTCCAQKgAwIBAgIBAjAKBggqhkjOPQQDAjASMRAwDgYDVQQDEwdSb290IENB
MB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowGTEXMBUGA1UEAxMOSW50
ZXJtZWRpYXRlIDAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQDTCCod8uH20aY
Xr4Gdh2PA4WwXrTGKFdljLHNEqiLtKtawgBbJuEunIh1vPEdQyXEQ4zabHHVF9Jt
ZIJlpznjo0IwQDAOBgNVHQ8BAf8EBAMCB4AwDwYDVR0TAQH/BAUwAwEB/zAdBgNV
HQ4EFgQUysvprtYwLmLmBR+ub+uyCykRWngwCgYIKoZIzj0EAwIDSQAwRgIhAIIb
QcZb6eKacwU8I24B40Fv57uJFixISQzYOvfHTsBsAiEA28v9IRaOsjTnU/HAy6Jg
VtI8gqVkpJibQ7liUFVwfEU=
-----END CERTIFICATE-----
-----BEGIN CERTIFICATE-----
MIIBXDCCAQKgAwIBAgIBAzAKBggqhkjOPQQDAjASMRAwDgYDVQQDEwdSb290IENB
MB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowGTEXMBUGA1UEAxMOSW50
ZXJtZWRpYXRlIDAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQDTCCod8uH20aY
Xr4Gdh2PA4WwXrTGKFdljLHNEqiLtKtawgBbJuEunIh1vPEdQyXEQ4zabHHVF9Jt
ZIJlpznjo0IwQDAOBgNVHQ8BAf8EBAMCAgQwDwYDVR0TAQH/BAUwAwEB/zAdBgNV
HQ4EFgQUysvprtYwLmLmBR+ub+uyCykRWngwCgYIKoZIzj0EAwIDSAAwRQIhAI1U
1jngJQZL+krtWdn/uK0TljLUapDBIVgpXbMd+PcEAiAbr1o0KiVnSXExAUDF21Hd
PKYwJp99T29aMavi42rS7g==
-----END CERTIFICATE-----
`;
const DEEPER_LEAF = `-----BEGIN CERTIFICATE-----
MIIBVjCB/aADAgECAgEEMAoGCCqGSM49BAMCMBkxFzAVBgNVBAMTDkludGVybWVk
aWF0ZSAwMB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowDzENMAsGA1UE
AxMEbGVhZjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABLmUxm/q4DS3C7yKx6+T
3Ca82wZ0JKma6aidzLvkODK5At5xz/3KdACa5ud+wrMcg1618M05MqEcNzYwmBWa
s/yjQDA+MB8GA1UdIwQYMBaAFMrL6a7WMC5i5gUfrm/rsgspEVp4MBsGA1UdEQQU
MBKCEGxlYWYuZXhhbXBsZS5jb20wCgYIKoZIzj0EAwIDSAAwRQIhAN46E4zR9Wer
CVQGwZ/0MMYIPaf/4gzzKGEzsrBsrTQgAiAYkz4z8Fwf5a6HMykNayEKvNpA9Mdj
CmF11HIsf4UWRg==
-----END CERTIFICATE-----
`;

Deno.test("verify() the error of a deeper buildChains call wins over the caller's hints (4252's shape, P-256)", () => {
  const r = verify(certs(DEEPER_LEAF)[0]!, {
    roots: certs(DEEPER_ROOT),
    intermediates: certs(DEEPER_INTERMEDIATES),
    currentTime: new Date("2025-06-01T00:00:00Z"),
    keyUsages: ["Any"],
  });
  assert.equal(r.ok ? "ok" : r.error, UNKNOWN(CANNOT_SIGN, "Root CA"));
});

Deno.test("checkSignature() csr-1-1038: an ECDSA-SHA1 CSR on P-384 verifies (Go CheckSignature, openssl req -verify)", () => {
  const der = new Uint8Array(fs.readFileSync(path.join(ORACLE, "csr", "csr-1-1038.der")));
  const go =
    JSON.parse(fs.readFileSync(path.join(ORACLE, "csr", "csr-1-1038.verdicts.json"), "utf8")).go;
  assert.equal(go.check, "");
  assert.equal(go.fields.sigAlg, "ECDSA-SHA1");
  const outer = readTlv(der, 0);
  const tbs = readTlv(der, outer.contentStart, outer.end);
  const alg = readTlv(der, tbs.end, outer.end);
  const sig = readTlv(der, alg.end, outer.end);
  const version = readTlv(der, tbs.contentStart, tbs.end);
  const subject = readTlv(der, version.end, tbs.end);
  const spki = readTlv(der, subject.end, tbs.end);
  const signed = der.subarray(tbs.start, tbs.end);
  const signature = der.subarray(sig.contentStart + 1, sig.end);
  const key = der.subarray(spki.start, spki.end);
  assert.equal(checkSignature("ECDSA-SHA1", signed, signature, "ECDSA", key, true), undefined);
  const other = signed.slice();
  other[other.length - 1]! ^= 1;
  assert.equal(
    checkSignature("ECDSA-SHA1", other, signature, "ECDSA", key, true),
    "x509: ECDSA verification failure",
  );
});
