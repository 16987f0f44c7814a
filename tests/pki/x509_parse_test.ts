import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { goCertName, parseCertificate } from "../../lib/pki/cert_info.ts";
import { parseCsrDer } from "../../lib/kubelet/csr.ts";
import { repoPath } from "../_cli.ts";

/**
 * Hostile certificates and CSRs under tests/fixtures/x509/, built by hand
 * with cryptobyte, and the verdict Go's `x509.ParseCertificate` /
 * `ParseCertificateRequest` gave on them (Go 1.23.5). Where Go 1.25 differs,
 * the expected value is Go 1.25's and `_why` names the upstream change.
 * Fields: cn/o (Subject), sig (SignatureAlgorithm, "0" = Unknown), pk
 * (PublicKeyAlgorithm), unhandled (critical extensions), maxPathLen (0 when no
 * basicConstraints, as Go prints it), dns (SAN DNS names).
 */
// deno-lint-ignore no-explicit-any
const GO: Record<string, any> = {
  "cn-bmp-surrogate": {
    "error": "x509: invalid RDNSequence: invalid attribute value: invalid BMPString",
    "_why": "Go 1.25 rejects surrogates in BMPString (Go 1.23 decoded U+10000)",
  },
  "cn-printable-star-amp": {
    "cn": "a*b&c",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
  "cn-printable-underscore": {
    "error": "x509: invalid RDNSequence: invalid attribute value: invalid PrintableString",
  },
  "cn-t61-latin1": {
    "cn": "cé",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
    "_why": "Go 1.25 reads T61String as Latin-1 (Go 1.23 copied the raw byte)",
  },
  "cn-universalstring": {
    "error": "x509: invalid RDNSequence: invalid attribute value: unsupported string type: 28",
  },
  "csr-bad-attribute-ignored": { "cn": "x", "dns": ["n.example"], "o": null },
  "csr-cn-printable-underscore": {
    "error": "asn1: syntax error: PrintableString contains invalid character",
  },
  "csr-cn-universalstring": { "cn": "", "dns": null, "o": ["system:nodes"] },
  "csr-duplicate-extensions": {
    "error": "x509: certificate request contains duplicate requested extensions",
  },
  "csr-last-cn-wins": { "cn": "second", "dns": null, "o": null },
  "csr-trailing-byte": { "error": "asn1: syntax error: trailing data" },
  "duplicate-skid": {
    "error": 'x509: certificate contains duplicate extension with OID "2.5.29.14"',
  },
  "ec-secp256k1": { "error": "x509: unsupported elliptic curve" },
  "last-cn-wins": {
    "cn": "second",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": ["o1", "o2"],
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
  "nc-directoryname": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": ["2.5.29.30"],
  },
  "nc-dns-ok": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
  "nc-empty": { "error": "x509: empty name constraints extension" },
  "nc-ip-bad-mask": { "error": "x509: IP constraint contained invalid mask ff00ff00" },
  "nc-ip-length-5": { "error": "x509: IP constraint contained value of length 5" },
  "negative-serial": { "error": "x509: negative serial number" },
  "pathlen-minus-1": {
    "error": "x509: invalid basic constraints",
    "_why": "Go 1.25 reads pathLenConstraint as unsigned (Go 1.23 parsed -1 as unlimited)",
  },
  "pss-mgf1-sha1": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "0",
    "unhandled": null,
  },
  "pss-salt-20": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "0",
    "unhandled": null,
  },
  "pss-sha256-32": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "SHA256-RSAPSS",
    "unhandled": null,
  },
  "rsa-no-null-params": { "error": "x509: RSA key missing NULL parameters" },
  "san-dns-e-acute": { "error": "x509: SAN dNSName is malformed" },
  "san-dns-nul": {
    "cn": "x",
    "dns": ["a\u0000b"],
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
  "san-ip-length-5": { "error": "x509: cannot parse IP address of length 5" },
  "san-othername-critical": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": ["2.5.29.17"],
  },
  "san-uri-bad-escape": {
    "error":
      'x509: cannot parse URI "http://h/%zz": parse "http://h/%zz": invalid URL escape "%zz"',
  },
  "sigalg-mismatch": {
    "error": "x509: inner and outer signature algorithm identifiers don't match",
  },
  "trailing-byte": { "error": "x509: trailing data" },
  "unknown-critical": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": ["1.2.3.4"],
  },
  "unknown-key-alg": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "0",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
  "utctime-1950": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "1950-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
  "utctime-plus0000": { "error": "x509: malformed UTCTime" },
  "version-4": { "error": "x509: invalid version" },
  "zero-serial": {
    "cn": "x",
    "dns": null,
    "maxPathLen": 0,
    "notBefore": "2025-01-01T00:00:00Z",
    "o": null,
    "pk": "ECDSA",
    "sig": "ECDSA-SHA256",
    "unhandled": null,
  },
};

function fixture(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(repoPath(`tests/fixtures/x509/${name}.der`)));
}

const orNull = <T>(a: T[]) => (a.length ? a : null);

for (const [name, want] of Object.entries(GO)) {
  const expected = { ...want };
  delete expected._why;
  const kind = name.startsWith("csr-") ? "parseCsrDer()" : "parseCertificate()";
  Deno.test(`${kind} matches Go on ${name}${"error" in expected ? " (refused)" : ""}`, () => {
    // deno-lint-ignore no-explicit-any
    let got: any;
    try {
      if (name.startsWith("csr-")) {
        const c = parseCsrDer(fixture(name));
        got = {
          cn: c.subject.commonName,
          o: orNull(c.subject.organization),
          dns: orNull(c.sans.dns),
        };
      } else {
        const c = parseCertificate(fixture(name));
        got = {
          cn: c.subject.commonName,
          o: orNull(c.subject.organization),
          sig: c.signatureAlgorithm || "0",
          pk: c.publicKeyAlgorithm || "0",
          unhandled: orNull(c.unhandledCriticalExtensions),
          notBefore: c.notBefore.toISOString().replace(".000", ""),
          maxPathLen: c.basicConstraintsValid ? c.maxPathLen : 0,
          dns: orNull(c.sans.dns),
        };
      }
    } catch (e) {
      got = { error: (e as Error).message };
    }
    assert.deepEqual(got, expected);
  });
}

Deno.test("parseCertificate() keeps Go's raw issuer/subject/TBS bytes and fills the chain fields", () => {
  const der = fixture("nc-dns-ok");
  const c = parseCertificate(der);
  assert.equal(Buffer.from(c.subjectDer).toString("hex"), "300c310a300806035504030c0178");
  assert.ok(Buffer.from(der).includes(Buffer.from(c.tbs)));
  assert.deepEqual(c.nameConstraints?.permittedDns, [".example.com"]);
  assert.deepEqual(Array.from(c.nameConstraints!.excludedIp[0]!.mask), [255, 0, 0, 0]);
  assert.equal(c.nameConstraints?.critical, true);
  assert.equal(c.maxPathLen, -1);
  assert.equal(goCertName(c), "x");
});

Deno.test("parseCertificate() names RSA-PSS as Go does only for supported parameters", () => {
  assert.equal(parseCertificate(fixture("pss-sha256-32")).signatureAlgorithm, "SHA256-RSAPSS");
  assert.equal(parseCertificate(fixture("pss-salt-20")).signatureAlgorithm, "");
  assert.equal(parseCertificate(fixture("pss-mgf1-sha1")).signatureAlgorithm, "");
});
