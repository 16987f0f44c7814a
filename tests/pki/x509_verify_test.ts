import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Cert, parseCertificate } from "../../lib/pki/cert_info.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import {
  checkChainForKeyUsage,
  goIpString,
  goParseIP,
  matchDomainConstraint,
  validHostname,
  verify,
  verifyHostname,
} from "../../lib/pki/x509_verify.ts";
import {
  checkSignature,
  ecdsaVerifyDigest,
  parseEcdsaSignature,
  rsaPublicKeyError,
} from "../../lib/pki/x509_signature.ts";
import { readTlv } from "../../lib/pki/der.ts";

const FIXTURES = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  "..",
  "fixtures",
  "verify",
);

/** One chain and the verdict Go 1.23.5's `Verify` gave (tests/fixtures/verify/generate_go.txt). */
interface Case {
  name: string;
  leaf: string;
  intermediates: string[];
  roots: string[];
  time: string;
  keyUsages?: string[];
  dnsName?: string;
  go: string;
  chains?: string[][];
}

const CASES: Case[] = JSON.parse(fs.readFileSync(path.join(FIXTURES, "cases.json"), "utf8"));

const SHA1_SUFFIX = " (temporarily override with GODEBUG=x509sha1=1)";

/**
 * Where Go 1.25 (≥ 1.25.5) differs from the 1.23.5 oracle that produced the
 * fixtures, joinkit follows 1.25: the expected verdict, with the reason.
 */
const GO125: Record<string, string> = {
  // Go 1.24 removed GODEBUG x509sha1; InsecureAlgorithmError lost the suffix
  // (TestInsecureAlgorithmErrorString).
  ...Object.fromEntries(
    CASES.filter((c) => c.go.includes(SHA1_SUFFIX)).map((c) => [
      c.name,
      c.go.replace(SHA1_SUFFIX, ""),
    ]),
  ),
  // Go 1.24 rsa1024min (default on): RSA keys < 1024 bits fail verification.
  "RSA-768 issuer":
    'x509: certificate signed by unknown authority (possibly because of "crypto/rsa: 768-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)" while trying to verify candidate authority certificate "Weak Root")',
  // CVE-2025-61727 (golang/go#76442, Go 1.24.11/1.25.5): excluded DNS
  // constraints apply to wildcard SANs — the leftmost label of both is
  // dropped after the length test, so this also catches *.bar.example.com.
  "NC excluded foo.example.com, leaf *.example.com":
    'x509: a root or intermediate certificate is not authorized to sign for this name: DNS name "*.example.com" is excluded by constraint "foo.example.com"',
  "NC excluded foo.example.com, leaf *.bar.example.com":
    'x509: a root or intermediate certificate is not authorized to sign for this name: DNS name "*.bar.example.com" is excluded by constraint "foo.example.com"',
};

const certs = (pems: string[]): Cert[] =>
  pems.flatMap((p) => decodePem(p).map((b) => parseCertificate(b.der)));

for (const c of CASES) {
  const expected = GO125[c.name] ?? c.go;
  Deno.test(`verify() ${c.name}: ${expected === "ok" ? "ok" : expected.slice(0, 60)}`, () => {
    const leaf = certs([c.leaf])[0]!;
    const r = verify(leaf, {
      roots: certs(c.roots),
      intermediates: certs(c.intermediates),
      currentTime: new Date(c.time),
      keyUsages: c.keyUsages,
      dnsName: c.dnsName,
    });
    assert.equal(r.ok ? "ok" : r.error, expected);
    if (r.ok && expected === c.go) {
      // Same chains, in Go's order (roots before intermediates, KID buckets).
      assert.deepEqual(r.chains.map((ch) => ch.map((x) => x.subject.commonName)), c.chains);
    }
  });
}

Deno.test("verify() the fixture table covers §7 vectors 1-23 and the listed constructions", () => {
  const names = new Set(CASES.map((c) => c.name));
  for (
    const n of [
      "NC permitted .example.com, leaf example.com", // 1
      "NC permitted .example.com, leaf foo.bar.example.com", // 2
      "NC root example.com, intermediate example.com+foo.com, leaf foo.com", // 3
      "NC excluded .example.com, leaf foo.example.com", // 4
      "NC excluded ip 10.0.0.0/8, leaf 10.0.0.1", // 5
      "NC same-subject intermediates, bad one first", // 6
      "NC two roots, neither permits bar.com", // 7
      "NC permitted ip 10.0.0.0/8, leaf 2000:abcd::", // 8
      "NC email foo@example.com, leaf quoted foo", // 9
      "NC excluded empty DNS constraint", // 10
      "NC permitted .example.com, leaf CN only", // 11
      "NC excluded foo.example.com, leaf *.example.com", // 12
      "root email restricts serverAuth below", // 13
      "expired root and its renewal under the same key", // 17
      "v1 root without extensions signs a leaf", // 18
      "intermediate with cA FALSE", // 19
      "issuer key usage extension with no bits", // 20
      "root pathlen 0 with one intermediate", // 21
      "SHA-1 signed intermediate", // 22
      "critical unknown extension on the leaf", // 23
      "cross-signed loop without a root",
      "101 wrong-key candidates exhaust the signature budget",
      "MD5 signed leaf",
      "RSA-768 issuer",
    ]
  ) assert.ok(names.has(n), n);
});

// §7 vector 14: Go's TestValidHostname.
const HOSTNAMES: [string, boolean, boolean][] = [
  ["example.com", true, true],
  ["eXample123-.com", true, true],
  ["-eXample123-.com", false, false],
  ["", false, false],
  [".", false, false],
  ["example..com", false, false],
  [".example.com", false, false],
  ["example.com.", true, false],
  ["*.example.com.", false, false],
  ["*.example.com", false, true],
  ["*foo.example.com", false, false],
  ["foo.*.example.com", false, false],
  ["exa_mple.com", true, true],
  ["foo,bar", false, false],
  ["project-dev:us-central1:main", false, false],
];
for (const [host, input, pattern] of HOSTNAMES) {
  Deno.test(`validHostname() ${JSON.stringify(host)}: input ${input}, pattern ${pattern}`, () => {
    assert.equal(validHostname(host, false), input);
    assert.equal(validHostname(host, true), pattern);
  });
}

const fakeCert = (o: Partial<Cert>): Cert =>
  ({
    hasSanExtension: true,
    sans: { dns: [], emails: [], ips: [], uris: [] },
    sanIpBytes: [],
    subject: { commonName: "" },
    extKeyUsage: undefined,
    ...o,
  }) as unknown as Cert;

Deno.test("verifyHostname() matches as Go: one wildcard label, trailing dot, exact fallback", () => {
  const c = fakeCert({
    sans: { dns: ["*.example.com", "Weird_Host!", "x..y"], emails: [], ips: [], uris: [] },
  });
  assert.equal(verifyHostname(c, "a.example.com"), undefined);
  assert.equal(verifyHostname(c, "A.EXAMPLE.COM."), undefined);
  // Not a valid pattern: only an exact case-insensitive match counts.
  assert.equal(verifyHostname(c, "weird_host!"), undefined);
  assert.equal(verifyHostname(c, "X..Y"), undefined);
  assert.equal(
    verifyHostname(c, "example.com"),
    "x509: certificate is valid for *.example.com, Weird_Host!, x..y, not example.com",
  );
});

Deno.test("verifyHostname() caps the listed names at 100 (Go 1.25.5, CVE-2025-61729)", () => {
  const dns = Array.from({ length: 100 }, (_, i) => `h${i}.example.com`);
  const c = fakeCert({ sans: { dns, emails: [], ips: [], uris: [] } });
  assert.equal(
    verifyHostname(c, "x.example.org"),
    "x509: certificate is valid for 100 names, but none matched x.example.org",
  );
  const ips = Array.from({ length: 100 }, (_, i) => Uint8Array.of(10, 0, 0, i));
  assert.equal(
    verifyHostname(fakeCert({ sanIpBytes: ips }), "10.1.1.1"),
    "x509: certificate is valid for 100 IP SANs, but none matched 10.1.1.1",
  );
});

Deno.test("verifyHostname() an IPv4 host equals a v4-mapped 16-byte SAN", () => {
  const mapped = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1);
  assert.equal(verifyHostname(fakeCert({ sanIpBytes: [mapped] }), "10.0.0.1"), undefined);
  assert.equal(verifyHostname(fakeCert({ sanIpBytes: [mapped] }), "[::ffff:10.0.0.1]"), undefined);
});

Deno.test("goParseIP() follows net.ParseIP: no leading zeros, no zones, one ::", () => {
  assert.ok(goParseIP("10.0.0.1"));
  assert.ok(goParseIP("::"));
  assert.ok(goParseIP("1:2:3:4:5:6:1.2.3.4"));
  for (
    const bad of [
      "10.0.0.01",
      "fe80::1%eth0",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1.2.3",
      "",
      "1:2:3:4:5:6:7::8",
    ]
  ) {
    assert.equal(goParseIP(bad), undefined, bad);
  }
});

Deno.test("goIpString() prints as net.IP.String(): dotted v4 (also v4-mapped), RFC 5952 v6", () => {
  const ip = (s: string) => goIpString(goParseIP(s)!);
  assert.equal(ip("10.0.0.1"), "10.0.0.1");
  assert.equal(ip("2001:0db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
  assert.equal(ip("2000:abcd::"), "2000:abcd::");
  assert.equal(ip("::1"), "::1");
  assert.equal(ip("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
});

Deno.test("matchDomainConstraint() Go 1.25.5 rules", () => {
  const m = (d: string, c: string, ex = false) => matchDomainConstraint(d, c, ex);
  assert.deepEqual(m("example.com", ""), { ok: true });
  assert.deepEqual(m("EXAMPLE.com", "example.COM"), { ok: true });
  assert.deepEqual(m("example.com", ".example.com"), { ok: false });
  assert.deepEqual(m("a.example.com", ".example.com"), { ok: true });
  assert.deepEqual(m("*.example.com", "foo.example.com", false), { ok: false });
  assert.deepEqual(m("*.example.com", "foo.example.com", true), { ok: true });
  assert.deepEqual(m("*.example.com", ".foo.example.com", true), { ok: false });
  // Go 1.25 reads a leading empty label as invalid (1.23 dropped it).
  assert.deepEqual(m(".example.com", "example.com"), {
    ok: false,
    err: 'x509: internal error: cannot parse domain ".example.com"',
  });
});

Deno.test("checkChainForKeyUsage() nests EKUs from the root down; no SGC equivalence", () => {
  const SERVER = "1.3.6.1.5.5.7.3.1", CLIENT = "1.3.6.1.5.5.7.3.2", ANY = "2.5.29.37.0";
  const NS_SGC = "2.16.840.1.113730.4.1";
  const c = (eku?: string[]) => fakeCert({ extKeyUsage: eku });
  assert.equal(checkChainForKeyUsage([c([CLIENT]), c()], ["ClientAuth"]), true);
  assert.equal(checkChainForKeyUsage([c([SERVER]), c()], ["ClientAuth"]), false);
  assert.equal(checkChainForKeyUsage([c(), c([])], ["ClientAuth"]), true);
  assert.equal(checkChainForKeyUsage([c([CLIENT]), c([ANY])], ["ClientAuth"]), true);
  assert.equal(checkChainForKeyUsage([c([CLIENT]), c([SERVER])], ["ClientAuth"]), false);
  assert.equal(
    checkChainForKeyUsage([c([CLIENT]), c([SERVER])], ["ClientAuth", "ServerAuth"]),
    false,
  );
  assert.equal(
    checkChainForKeyUsage([c([SERVER]), c([SERVER, CLIENT])], ["ClientAuth", "ServerAuth"]),
    true,
  );
  assert.equal(checkChainForKeyUsage([c([NS_SGC]), c()], ["ServerAuth"]), false);
  assert.equal(checkChainForKeyUsage([c(["1.2.3.4"])], ["ServerAuth"]), false);
});

// ---------------------------------------------------------------------------
// checkSignature (x509_signature.ts)

/** Minimal DER for crafted RSA keys. */
function der(tag: number, body: Uint8Array): Uint8Array {
  const len = body.length;
  const head = len < 0x80
    ? [tag, len]
    : len < 0x100
    ? [tag, 0x81, len]
    : [tag, 0x82, len >> 8, len & 0xff];
  return Uint8Array.from([...head, ...body]);
}
const cat = (...p: Uint8Array[]) => Uint8Array.from(p.flatMap((x) => [...x]));
function int(n: bigint): Uint8Array {
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = "00" + hex;
  return der(0x02, Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16))));
}
function rsaSpki(n: bigint, e: bigint): Uint8Array {
  const alg = der(0x30, Uint8Array.of(6, 9, 42, 134, 72, 134, 247, 13, 1, 1, 1, 5, 0));
  const key = der(0x30, cat(int(n), int(e)));
  return der(0x30, cat(alg, der(0x03, cat(Uint8Array.of(0), key))));
}
const ODD_2048 = (1n << 2047n) + 1n;

Deno.test("checkSignature() algorithm gate: unknown, MD2/MD5, SHA-1 per allowSha1", () => {
  const spki = rsaSpki(ODD_2048, 65537n);
  const none = new Uint8Array();
  const un = "x509: cannot verify signature: algorithm unimplemented";
  assert.equal(checkSignature("", none, none, "RSA", spki, true), un);
  assert.equal(checkSignature("MD2-RSA", none, none, "RSA", spki, true), un);
  assert.equal(
    checkSignature("MD5-RSA", none, none, "RSA", spki, true),
    "x509: cannot verify signature: insecure algorithm MD5-RSA",
  );
  for (const alg of ["SHA1-RSA", "ECDSA-SHA1", "DSA-SHA1"]) {
    assert.equal(
      checkSignature(alg, none, none, "RSA", spki, false),
      `x509: cannot verify signature: insecure algorithm ${alg}`,
    );
  }
  // allowSha1 (CSRs): past the gate, to the key checks.
  assert.equal(
    checkSignature("SHA1-RSA", none, none, "RSA", spki, true),
    "crypto/rsa: verification error",
  );
  assert.equal(
    checkSignature("DSA-SHA1", none, none, "RSA", spki, true),
    "x509: signature algorithm specifies an DSA public key, but have public key of type *rsa.PublicKey",
  );
  assert.equal(checkSignature("SHA256-RSA", none, none, "DSA", spki, true), un);
  assert.equal(checkSignature("SHA256-RSA", none, none, "", spki, true), un);
  assert.equal(checkSignature("SHA256-RSA", none, none, "X25519", spki, true), un);
  assert.equal(
    checkSignature("ECDSA-SHA256", none, none, "Ed25519", spki, true),
    "x509: signature algorithm specifies an ECDSA public key, but have public key of type ed25519.PublicKey",
  );
});

Deno.test("checkSignature() Go 1.24+ RSA key checks: size, then the FIPS checks", () => {
  const none = new Uint8Array();
  const check = (n: bigint, e: bigint) =>
    checkSignature("SHA256-RSA", none, none, "RSA", rsaSpki(n, e), false);
  assert.equal(
    check((1n << 511n) + 1n, 65537n),
    "crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)",
  );
  assert.equal(check(1n << 2047n, 65537n), "crypto/rsa: public modulus is even");
  assert.equal(check(ODD_2048, 1n), "crypto/rsa: public exponent too small or negative");
  assert.equal(check(ODD_2048, 4n), "crypto/rsa: public exponent is even");
  assert.equal(check(ODD_2048, (1n << 31n) + 1n), "crypto/rsa: public exponent too large");
  assert.equal(rsaPublicKeyError(ODD_2048, 3n), undefined);
});

Deno.test("checkSignature() a wrong-length RSA signature fails as in Go (OpenSSL would pad it)", () => {
  const c = CASES.find((x) => x.name === "RSA chain SHA256")!;
  const leaf = certs([c.leaf])[0]!;
  const inter = certs(c.intermediates)[0]!;
  const ok = checkSignature(
    leaf.signatureAlgorithm,
    leaf.tbs,
    leaf.signature,
    "RSA",
    inter.key.spki,
    false,
  );
  assert.equal(ok, undefined);
  assert.equal(
    checkSignature(
      leaf.signatureAlgorithm,
      leaf.tbs,
      cat(Uint8Array.of(0), leaf.signature),
      "RSA",
      inter.key.spki,
      false,
    ),
    "crypto/rsa: verification error",
  );
});

// Speed is the benchmark's (bench/RESULTS.md, `cert verify` against the Go anchor), never a test's.
Deno.test("verify() carries no state between calls: 2,000 verifications of one chain agree", () => {
  const c = CASES.find((x) => x.name === "basic chain through one intermediate")!;
  const leaf = certs([c.leaf])[0]!;
  const opts = {
    roots: certs(c.roots),
    intermediates: certs(c.intermediates),
    currentTime: new Date(c.time),
  };
  const first = verify(leaf, opts);
  assert.equal(first.ok, true);
  for (let i = 0; i < 2000; i++) assert.deepEqual(verify(leaf, opts), first);
  // And a later time still fails after the cached successes.
  const late = verify(leaf, { ...opts, currentTime: new Date("2999-01-01T00:00:00Z") });
  assert.equal(late.ok, false);
});

// ---------------------------------------------------------------------------
// ECDSA with a digest shorter than half the field size. Deno's node:crypto
// refuses such prehashes (SHA-1 on P-384/P-521, SHA-256 on P-521) and says
// "false"; Go (and OpenSSL) verify them. CSRs made by openssl; verdicts from
// Go 1.23.5 `CertificateRequest.CheckSignature` (no 1.25 change applies).

/** [what, CSR DER base64]; Go: CheckSignature() == nil for each. */
const SHORT_DIGEST_CSRS: [string, string][] = [
  [
    "P-384, ECDSA-SHA1",
    "MIIBCjCBkwIBADAUMRIwEAYDVQQDDAlwMzg0LXNoYTEwdjAQBgcqhkjOPQIBBgUrgQQAIgNiAAQvWyWITOJd4HOa" +
    "K5zkfZanXOmazADPshqocwZnwTrxK0ADqFDC39BNclMoTkCsd/CWYfzwJ0XnzwPW2KBs+VbFiEcjz9SmgD4dze8/" +
    "CyNh4mZPSLqjZGDXsu3mQFdq5uSgADAJBgcqhkjOPQQBA2cAMGQCMHDcH6b+7tl/sh4sykE297YqN4bgY6o2pVGt" +
    "7fXfKsk4iWPzDOmeONFm+toaH/8REwIwRXM2Fse0tONNFbXNVP5FmfPINCM5o5AlrskopfBypwLTxt0egzj2KP7n" +
    "Oy736F42",
  ],
  [
    "P-521, ECDSA-SHA1",
    "MIIBVTCBuQIBADAUMRIwEAYDVQQDDAlwNTIxLXNoYTEwgZswEAYHKoZIzj0CAQYFK4EEACMDgYYABAHM2MFZ35v+" +
    "ec9X3E8hHLsLlAB1b5vRRY/+9KRIkr4FxKKxuYBlwxlFPrRQwzHGRUIqeFYYHP6WyiBZgZOHMtoE3gDLttzOWqwY" +
    "TaF3Ab+L4GpdZkXnc8smU4sUrLZZytuO9ukXYyA6wMeQjP8qwKqVrDmh8CY6Vllw6ElPHUcFQlQMxqAAMAkGByqG" +
    "SM49BAEDgYsAMIGHAkIBfLK4/y7Ts6RGz5dP5VI2iXjfdA/TtONvkZ8J7iLOb1JeArx1J3AwOhrvteBi0eazSdh9" +
    "Pco6F1IdsYvBHq2sDNMCQWBVSJr4bOEpbIkSW1HF67MwLep0OWvN+zOZjnmvQXpAEPTOkzxAz+9z+3ocUU7qpoE8" +
    "C8uQKQrumQW0qrM/oYVF",
  ],
  [
    "P-521, ECDSA-SHA256",
    "MIIBWTCBuwIBADAWMRQwEgYDVQQDDAtwNTIxLXNoYTI1NjCBmzAQBgcqhkjOPQIBBgUrgQQAIwOBhgAEAczYwVnf" +
    "m/55z1fcTyEcuwuUAHVvm9FFj/70pEiSvgXEorG5gGXDGUU+tFDDMcZFQip4Vhgc/pbKIFmBk4cy2gTeAMu23M5a" +
    "rBhNoXcBv4vgal1mRedzyyZTixSstlnK24726RdjIDrAx5CM/yrAqpWsOaHwJjpWWXDoSU8dRwVCVAzGoAAwCgYI" +
    "KoZIzj0EAwIDgYwAMIGIAkIBqORr6zDDRtea3xRrafkOMzEsWVqYJQstTIjRHPWBXGv2RyTPDlgAVszzQ/k8IZSv" +
    "++SE9q4Qe4c+9cmyPHBY2BgCQgDFYLdv5fJF6iLl7dTJWorJPLCeoQIwz704jRnuSUnrVFENpaNGNSdwbbpe/sSn" +
    "Zus6/Z2p7OeHj8Xedwtt5i+sqg==",
  ],
];

/** The signed TBS, the signature and the SPKI of a DER CSR (no CSR parser needed). */
function csrParts(der: Uint8Array): { tbs: Uint8Array; signature: Uint8Array; spki: Uint8Array } {
  const outer = readTlv(der, 0);
  const tbs = readTlv(der, outer.contentStart, outer.end);
  const alg = readTlv(der, tbs.end, outer.end);
  const sig = readTlv(der, alg.end, outer.end);
  const version = readTlv(der, tbs.contentStart, tbs.end);
  const subject = readTlv(der, version.end, tbs.end);
  const spki = readTlv(der, subject.end, tbs.end);
  return {
    tbs: der.subarray(tbs.start, tbs.end),
    signature: der.subarray(sig.contentStart + 1, sig.end),
    spki: der.subarray(spki.start, spki.end),
  };
}

for (const [what, b64] of SHORT_DIGEST_CSRS) {
  Deno.test(`checkSignature() ECDSA CSR ${what} verifies as in Go; a changed TBS does not`, () => {
    const p = csrParts(Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)));
    const alg = what.slice(what.indexOf(" ") + 1);
    assert.equal(checkSignature(alg, p.tbs, p.signature, "ECDSA", p.spki, true), undefined);
    const tampered = p.tbs.slice();
    tampered[tampered.length - 1]! ^= 1;
    assert.equal(
      checkSignature(alg, tampered, p.signature, "ECDSA", p.spki, true),
      "x509: ECDSA verification failure",
    );
    // Chains refuse SHA-1 before any key is looked at.
    if (alg === "ECDSA-SHA1") {
      assert.equal(
        checkSignature(alg, p.tbs, p.signature, "ECDSA", p.spki, false),
        "x509: cannot verify signature: insecure algorithm ECDSA-SHA1",
      );
    }
  });
}

// A P-521 root and intermediate signing with ECDSA-SHA256 (Go 1.23.5 Verify: ok,
// one chain; this failed with "ECDSA verification failure" before).
const P521_ROOT = `-----BEGIN CERTIFICATE-----
MIIB4jCCAUSgAwIBAgIBCjAKBggqhkjOPQQDAjAVMRMwEQYDVQQDEwpQLTUyMSBS
b290MB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowFTETMBEGA1UEAxMK
UC01MjEgUm9vdDCBmzAQBgcqhkjOPQIBBgUrgQQAIwOBhgAEAPWxLqMY7QPsYcxc
DalZeqmwDO+BbSLHuoWRaESx5NItE15GLVY60tD6PYHr1eQTsPzlEF2xLFchmiEl
8Gb6vl2pAJlGTK2TkL0MsIM0NEqFEv4R/cRquz2iJbFiTGTw5ZO5pIC5eUadu0sj
c6MSqM00lhvPDUHLjsQ07C5BLa6faXbUo0IwQDAOBgNVHQ8BAf8EBAMCAgQwDwYD
VR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQU/tmN7HQsXbP4Mm8yQaEKxDU4IxAwCgYI
KoZIzj0EAwIDgYsAMIGHAkIBiaF24vPDu6GBsK48bDpAyRdo8JLd+ZTM2UHZB7ws
Tu95kdJ3EY0JLAH9D0WCynWmimPWzecD+xQdgXgHy8ejFtQCQVb63YwTiDg9roq/
hvDppyp1oZZrqUS5ctnrhoUjQ6aR13l41TutnTnRAxZLHsg7jtLoHNOD6tV+a1m2
a8CxLEbr
-----END CERTIFICATE-----
`;
const P521_INTERMEDIATE = `-----BEGIN CERTIFICATE-----
MIICDDCCAW2gAwIBAgIBCzAKBggqhkjOPQQDAjAVMRMwEQYDVQQDEwpQLTUyMSBS
b290MB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowHTEbMBkGA1UEAxMS
UC01MjEgSW50ZXJtZWRpYXRlMIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQAziE+
j/+4RdiKOyQsQ3zcxGLTo4TOfjtg7qMDA32K7+BVPA9HA7Ss/FWguo4iISKKvm+L
NEXsz4Zm7KQwewmK/C8ALbWV9ZQL4CZraINbo35ZgzzAcHZGAIAGOohUy0IYWJ0d
VL2fVO1xkuZz6ajwkU2LvBT4WlSTeI0f1LI9cNpMW1GjYzBhMA4GA1UdDwEB/wQE
AwICBDAPBgNVHRMBAf8EBTADAQH/MB0GA1UdDgQWBBRvjA0CJ3A+uNGJm+waxL42
IfMq9DAfBgNVHSMEGDAWgBT+2Y3sdCxds/gybzJBoQrENTgjEDAKBggqhkjOPQQD
AgOBjAAwgYgCQgFl+aexWjjn3uKHkhCtJ3FVnwslz/mIKj8aKsK1EHOiy0exNMRz
75RreTYhWQw/HDLzNeIztFv5r5YMAZUgoFMZbQJCAXIE/2f+ieEs9IPB2xhIW6Un
s4gBDtCb6tb0t9cknVyIWkuOZy0oDoBI13o+/yuGnDXy08t+o58tRFM90Q/rCMl9
-----END CERTIFICATE-----
`;
const P521_LEAF = `-----BEGIN CERTIFICATE-----
MIIBujCCARugAwIBAgIBDDAKBggqhkjOPQQDAjAdMRswGQYDVQQDExJQLTUyMSBJ
bnRlcm1lZGlhdGUwHhcNMjAwMTAxMDAwMDAwWhcNMzAwMTAxMDAwMDAwWjAUMRIw
EAYDVQQDEwlwNTIxIGxlYWYwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARaDKaf
FWrH6Bp6ZOUnNm6anIpsq1OCj/E1KQL2GSNdJn32ES5qo+HnsmrfIQ+D0ll4t577
sH2E2Cut0LeE4a03o1UwUzATBgNVHSUEDDAKBggrBgEFBQcDATAfBgNVHSMEGDAW
gBRvjA0CJ3A+uNGJm+waxL42IfMq9DAbBgNVHREEFDASghBsZWFmLmV4YW1wbGUu
Y29tMAoGCCqGSM49BAMCA4GMADCBiAJCAQMxaAnYzb0Dh5xONN48IVrqBOH6GeNy
TEuBkJ3fo6fZz2yTOjq/nOMnA/LYZZM9NZHds1qze6PUv6pl0U3kRyyAAkIBwNMV
1+mED8nsLQE/t+z9noUg1p7h3Ec8oisGrnHPxu+/sOqAQUFrM2oNnLmv6hMWsWch
YJVhZ8UATg2Q8suoa7g=
-----END CERTIFICATE-----
`;

Deno.test("verify() a P-521 CA signing with ECDSA-SHA256: ok, as in Go", () => {
  const r = verify(certs([P521_LEAF])[0]!, {
    roots: certs([P521_ROOT]),
    intermediates: certs([P521_INTERMEDIATE]),
    currentTime: new Date("2025-06-01T00:00:00Z"),
    keyUsages: ["ServerAuth"],
    dnsName: "leaf.example.com",
  });
  assert.equal(r.ok ? "ok" : r.error, "ok");
  assert.deepEqual(
    r.ok && r.chains.map((ch) => ch.map((c) => c.subject.commonName)),
    [["p521 leaf", "P-521 Intermediate", "P-521 Root"]],
  );
});

// Go's parseSignature: one SEQUENCE of two minimal, non-negative INTEGERs, nothing after.
const ECDSA_SIGS: [string, number[], boolean][] = [
  ["well formed", [0x30, 6, 2, 1, 1, 2, 1, 2], true],
  ["leading 00 where the value needs it", [0x30, 7, 2, 2, 0, 0x80, 2, 1, 2], true],
  ["trailing byte after the SEQUENCE", [0x30, 6, 2, 1, 1, 2, 1, 2, 0], false],
  ["a third INTEGER", [0x30, 9, 2, 1, 1, 2, 1, 2, 2, 1, 3], false],
  ["one INTEGER", [0x30, 3, 2, 1, 1], false],
  ["non-minimal INTEGER", [0x30, 7, 2, 2, 0, 1, 2, 1, 2], false],
  ["negative INTEGER", [0x30, 6, 2, 1, 0x81, 2, 1, 2], false],
  ["empty INTEGER", [0x30, 5, 2, 0, 2, 1, 2], false],
  ["long-form length under 128", [0x30, 0x81, 6, 2, 1, 1, 2, 1, 2], false],
  ["SET instead of SEQUENCE", [0x31, 6, 2, 1, 1, 2, 1, 2], false],
  ["indefinite length", [0x30, 0x80, 2, 1, 1, 2, 1, 2, 0, 0], false],
];
for (const [what, bytes, ok] of ECDSA_SIGS) {
  Deno.test(`parseEcdsaSignature() ${what}: ${ok ? "parsed" : "refused"}`, () => {
    assert.equal(parseEcdsaSignature(Uint8Array.from(bytes)) !== undefined, ok);
  });
}

Deno.test("ecdsaVerifyDigest() r or s outside [1, n-1] fails before any arithmetic", () => {
  const p = csrParts(Uint8Array.from(atob(SHORT_DIGEST_CSRS[1]![1]), (ch) => ch.charCodeAt(0)));
  const n521 = (1n << 521n) - 0x5ae79787c40d069948033feb708f65a2fc44a36477663b851449048e16ec79bf7n;
  const digest = new Uint8Array(20);
  for (const [r, s] of [[0n, 1n], [1n, 0n], [n521, 1n], [1n, n521]]) {
    assert.equal(ecdsaVerifyDigest(p.spki, digest, r!, s!), false);
  }
});

// ---------------------------------------------------------------------------
// openssl as an independent reference for a few verdicts

const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;
const OPENSSL_CASES = [
  "basic chain through one intermediate",
  "expired root and its renewal under the same key",
  "only the expired root",
  "root pathlen 0 with one intermediate",
  "critical unknown extension on the intermediate",
  "intermediate with cA FALSE",
  "NC excluded .example.com, leaf foo.example.com",
  "NC excluded ip 10.0.0.0/8, leaf 10.0.0.1",
  // (not MD5: OpenSSL 3.0 at security level 1 still accepts MD5-signed leaves)
  "leaf expired (time after NotAfter)",
  "two same-subject intermediates, wrong key first",
];
for (const name of OPENSSL_CASES) {
  Deno.test({
    name: `verify() agrees with openssl verify: ${name}`,
    ignore: !hasOpenssl,
    fn() {
      const c = CASES.find((x) => x.name === name)!;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jk-verify-"));
      try {
        fs.writeFileSync(path.join(dir, "leaf.pem"), c.leaf);
        fs.writeFileSync(path.join(dir, "roots.pem"), c.roots.join(""));
        fs.writeFileSync(path.join(dir, "inter.pem"), c.intermediates.join("") || c.roots.join(""));
        const at = String(Math.floor(new Date(c.time).getTime() / 1000));
        const r = spawnSync("openssl", [
          "verify",
          "-attime",
          at,
          "-purpose",
          "sslserver",
          "-CAfile",
          path.join(dir, "roots.pem"),
          "-untrusted",
          path.join(dir, "inter.pem"),
          path.join(dir, "leaf.pem"),
        ]);
        const leaf = certs([c.leaf])[0]!;
        const ours = verify(leaf, {
          roots: certs(c.roots),
          intermediates: certs(c.intermediates),
          currentTime: new Date(c.time),
        });
        assert.equal(ours.ok, r.status === 0, String(r.stdout) + String(r.stderr));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  });
}

const EC_ALGS: [string, string][] = [
  ["sha1", "ECDSA-SHA1"],
  ["sha256", "ECDSA-SHA256"],
  ["sha384", "ECDSA-SHA384"],
  ["sha512", "ECDSA-SHA512"],
];
for (const curve of ["secp224r1", "prime256v1", "secp384r1", "secp521r1"]) {
  Deno.test({
    name: `checkSignature() ECDSA agrees with openssl dgst -sign on ${curve}, every hash`,
    ignore: !hasOpenssl,
    fn() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jk-ecdsa-"));
      const f = (n: string) => path.join(dir, n);
      try {
        spawnSync("openssl", ["ecparam", "-name", curve, "-genkey", "-noout", "-out", f("k.pem")]);
        spawnSync("openssl", [
          "ec",
          "-in",
          f("k.pem"),
          "-pubout",
          "-outform",
          "DER",
          "-out",
          f("p.der"),
        ]);
        const spki = new Uint8Array(fs.readFileSync(f("p.der")));
        for (const [hash, alg] of EC_ALGS) {
          const msg = new TextEncoder().encode(`signed with ${alg} on ${curve}`);
          fs.writeFileSync(f("msg"), msg);
          const r = spawnSync("openssl", [
            "dgst",
            `-${hash}`,
            "-sign",
            f("k.pem"),
            "-out",
            f("sig"),
            f("msg"),
          ]);
          assert.equal(r.status, 0, String(r.stderr));
          const sig = new Uint8Array(fs.readFileSync(f("sig")));
          assert.equal(checkSignature(alg, msg, sig, "ECDSA", spki, true), undefined, alg);
          const other = msg.slice();
          other[0]! ^= 1;
          assert.equal(
            checkSignature(alg, other, sig, "ECDSA", spki, true),
            "x509: ECDSA verification failure",
            alg,
          );
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  });
}
