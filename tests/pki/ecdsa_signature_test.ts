/**
 * ECDSA signatures as Go reads and writes them (issue 13: no `@peculiar/x509`
 * outside tests): the DER ECDSA-Sig-Value read as Go's `ecdsa.VerifyASN1`
 * reads it (x509_signature.ts, the one signature checker), held case by case
 * against openssl's verdict and against the library path it replaced (kept
 * here only, where it differed); the raw r‖s → DER conversion and the
 * signature AlgorithmIdentifier (sigalg.ts) held byte for byte against the
 * library.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { generateKeyPairSync, sign as nodeSign } from "node:crypto";
import { ecdsaSignatureDer, signatureAlgorithmDer } from "../../lib/pki/sigalg.ts";
import { checkSignature, parseEcdsaSignature } from "../../lib/pki/x509_signature.ts";
import { derTlv } from "../../lib/pki/der_encode.ts";
import { encodePem } from "../../lib/pki/pem.ts";
import { x509 } from "../_x509.ts";
import { AsnConvert } from "@peculiar/asn1-schema";
import { tempDir } from "../_cli.ts";
import { run } from "../_csr_pki.ts";

const HAVE_OPENSSL = run("openssl", ["version"]).code === 0;

const CURVES = {
  "P-256": {
    node: "prime256v1",
    hash: "sha256",
    oid: "1.2.840.10045.4.3.2",
    goName: "ECDSA-SHA256",
    n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  },
  "P-521": {
    node: "secp521r1",
    hash: "sha512",
    oid: "1.2.840.10045.4.3.4",
    goName: "ECDSA-SHA512",
    n: 0x1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
  },
} as const;

/** Minimal big-endian magnitude of a non-negative value (at least one byte). */
function magnitude(v: bigint): number[] {
  const out: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) out.unshift(Number(x & 0xffn));
  return out.length ? out : [0];
}

/** A minimal DER INTEGER content for a non-negative value. */
const intContent = (v: bigint) => {
  const m = magnitude(v);
  return m[0]! & 0x80 ? [0, ...m] : m;
};
const int = (content: number[]) => derTlv(0x02, new Uint8Array(content));
const seq = (...parts: Uint8Array[]) => derTlv(0x30, ...parts);
const cat = (...parts: (Uint8Array | number[])[]) => new Uint8Array(parts.flatMap((p) => [...p]));

interface Case {
  name: string;
  /** The signature's bytes, from a valid (r, s) and the curve order. */
  sig: (r: bigint, s: bigint, n: bigint) => Uint8Array;
  /** Go's verdict (ecdsa.VerifyASN1). */
  ok: boolean;
  /** What the replaced library path (AsnEcSignatureFormatter.toWebSignature) said, where it differed. */
  old?: boolean;
}

// r has its top bit set (so its INTEGER has a leading 0x00) and s has not: see signature() below.
const CASES: Case[] = [
  { name: "valid", sig: (r, s) => seq(int(intContent(r)), int(intContent(s))), ok: true },
  {
    name: "high s (n − s): Go takes either",
    sig: (r, s, n) => seq(int(intContent(r)), int(intContent(n - s))),
    ok: true,
  },
  {
    name: "non-minimal s (an extra leading 0x00)",
    sig: (r, s) => seq(int(intContent(r)), int([0, ...intContent(s)])),
    ok: false,
    old: true,
  },
  {
    name: "negative r (the leading 0x00 dropped)",
    sig: (r, s) => seq(int(magnitude(r)), int(intContent(s))),
    ok: false,
    old: true,
  },
  {
    name: "a trailing byte after the SEQUENCE",
    sig: (r, s) => cat(seq(int(intContent(r)), int(intContent(s))), [0]),
    ok: false,
    old: true,
  },
  {
    name: "a third INTEGER in the SEQUENCE",
    sig: (r, s) => seq(int(intContent(r)), int(intContent(s)), int([1])),
    ok: false,
    old: true,
  },
  { name: "one INTEGER", sig: (r) => seq(int(intContent(r))), ok: false },
  { name: "r = 0", sig: (_r, s) => seq(int([0]), int(intContent(s))), ok: false },
  { name: "s = 0", sig: (r) => seq(int(intContent(r)), int([0])), ok: false },
  { name: "r = n", sig: (_r, s, n) => seq(int(intContent(n)), int(intContent(s))), ok: false },
  {
    name: "r + n: longer than the curve size",
    sig: (r, s, n) => seq(int(intContent(r + n)), int(intContent(s))),
    ok: false,
  },
  {
    name: "s + 2^(8·size): too long, same low bytes",
    sig: (r, s, n) =>
      seq(int(intContent(r)), int(intContent(s + (1n << BigInt(8 * magnitude(n).length))))),
    ok: false,
  },
  {
    name: "non-minimal length octets (82 00 xx)",
    sig: (r, s) => {
      const body = cat(int(intContent(r)), int(intContent(s)));
      return cat([0x30, 0x82, 0, body.length], body);
    },
    ok: false,
    old: true,
  },
  {
    name: "indefinite length (BER)",
    sig: (r, s) => cat([0x30, 0x80], int(intContent(r)), int(intContent(s)), [0, 0]),
    ok: false,
    old: true,
  },
  {
    name: "a SET instead of a SEQUENCE",
    sig: (r, s) => derTlv(0x31, int(intContent(r)), int(intContent(s))),
    ok: false,
  },
  { name: "empty", sig: () => new Uint8Array(0), ok: false },
];

/** A key and its valid signature of `msg` whose r has its top bit set and whose s has not (retries). */
function signature(curve: keyof typeof CURVES, msg: Uint8Array) {
  const c = CURVES[curve];
  const size = curve === "P-256" ? 32 : 66;
  // A new key each round: the signer may be deterministic (RFC 6979), one key one signature.
  for (;;) {
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: c.node });
    const spki = new Uint8Array(publicKey.export({ type: "spki", format: "der" }));
    const der = new Uint8Array(nodeSign(c.hash, msg, { key: privateKey, dsaEncoding: "der" }));
    const { r, s } = parseEcdsaSignature(der)!;
    const topR = magnitude(r), topS = magnitude(s);
    // P-521: r shorter than the field (left-padding matters), s full size.
    const want = curve === "P-256"
      ? topR[0]! & 0x80 && !(topS[0]! & 0x80)
      : topR.length < size && topR[0]! & 0x80 && topS.length === size;
    if (want) return { spki, r, s, n: c.n };
  }
}

async function oldVerdict(
  curve: string,
  hash: string,
  spki: Uint8Array,
  msg: Uint8Array,
  sig: Uint8Array,
) {
  const params = { name: "ECDSA", namedCurve: curve, hash };
  let raw: ArrayBuffer;
  try {
    raw = new x509.AsnEcSignatureFormatter().toWebSignature(params, sig as BufferSource)!;
  } catch {
    return false;
  }
  const key = await crypto.subtle.importKey("spki", spki as BufferSource, params, false, [
    "verify",
  ]);
  try {
    return await crypto.subtle.verify(params, key, raw, msg as BufferSource);
  } catch {
    return false;
  }
}

for (const curve of ["P-256", "P-521"] as const) {
  const c = CURVES[curve];
  const msg = new TextEncoder().encode(`signed by ${curve}`);

  Deno.test(`checkSignature() ${curve} ECDSA-Sig-Value table: Go's verdict; the replaced path's`, async () => {
    const { spki, r, s, n } = signature(curve, msg);
    const hash = c.hash.replace("sha", "SHA-");
    for (const t of CASES) {
      const sig = t.sig(r, s, n);
      // Go's verdict and text, for a CSR (SHA-1 allowed) and a chain alike.
      for (const allowSha1 of [true, false]) {
        const got = checkSignature(c.goName, msg, sig, "ECDSA", spki, allowSha1);
        assert.equal(got, t.ok ? undefined : "x509: ECDSA verification failure", t.name);
      }
      // The library path this replaced.
      assert.equal(await oldVerdict(curve, hash, spki, msg, sig), t.old ?? t.ok, `old: ${t.name}`);
    }
  });

  Deno.test({
    name:
      `checkSignature() ${curve} ECDSA-Sig-Value table: openssl agrees with Go (skipped without openssl)`,
    ignore: !HAVE_OPENSSL,
    fn: () => {
      const { spki, r, s, n } = signature(curve, msg);
      const { dir, cleanup } = tempDir();
      try {
        const file = (name: string, data: Uint8Array | string) => {
          fs.writeFileSync(path.join(dir, name), data);
          return path.join(dir, name);
        };
        const pub = file("pub.pem", encodePem("PUBLIC KEY", spki));
        const m = file("msg", msg);
        for (const t of CASES) {
          // pkeyutl, not dgst: dgst reads at most the key's maximum signature size (a trailing
          // byte after a P-521 signature of that size would go unseen).
          const o = run("openssl", [
            "pkeyutl",
            "-verify",
            "-pubin",
            "-inkey",
            pub,
            "-rawin",
            "-digest",
            c.hash,
            "-in",
            m,
            "-sigfile",
            file("sig", t.sig(r, s, n)),
          ]);
          assert.equal(o.code === 0, t.ok, `openssl: ${t.name}: ${o.out}`);
        }
      } finally {
        cleanup();
      }
    },
  });
}

Deno.test("ecdsaSignatureDer() writes what the replaced library wrote, and what Go writes", () => {
  const fmt = new x509.AsnEcSignatureFormatter();
  const raws: Uint8Array[] = [];
  for (const size of [32, 48, 66]) {
    for (let i = 0; i < 40; i++) raws.push(crypto.getRandomValues(new Uint8Array(2 * size)));
    // Leading zero bytes, top bits set, both at once.
    const edge = new Uint8Array(2 * size);
    edge.fill(0x80);
    raws.push(edge.slice());
    edge.fill(0, 0, 3);
    edge.fill(0, size, size + 1);
    raws.push(edge.slice());
    edge[size + 1] = 0x7f;
    raws.push(edge.slice());
  }
  for (const raw of raws) {
    const curve = raw.length === 64 ? "P-256" : raw.length === 96 ? "P-384" : "P-521";
    const want = new Uint8Array(
      fmt.toAsnSignature({ name: "ECDSA", namedCurve: curve } as Algorithm, raw as BufferSource)!,
    );
    const got = ecdsaSignatureDer(raw);
    assert.deepEqual(got, want, Buffer.from(raw).toString("hex"));
    // Go's parseSignature reads back the same r and s.
    const size = raw.length / 2;
    const big = (b: Uint8Array) => BigInt("0x" + (Buffer.from(b).toString("hex") || "0"));
    assert.deepEqual(parseEcdsaSignature(got), {
      r: big(raw.subarray(0, size)),
      s: big(raw.subarray(size)),
    });
  }
  // Go's minimal INTEGERs: leading zeros dropped, 0x00 before a set top bit.
  assert.equal(
    Buffer.from(ecdsaSignatureDer(new Uint8Array([0, 1, 0x80, 2]))).toString("hex"),
    "30080201010203008002",
  );
  assert.throws(() => ecdsaSignatureDer(new Uint8Array(3)));
});

Deno.test("signatureAlgorithmDer() encodes Go's AlgorithmIdentifiers, as the replaced library did", () => {
  const provider = new x509.AlgorithmProvider();
  const cases: [Algorithm & { hash?: string }, string][] = [
    // ecdsa-with-SHA*: parameters absent; sha*WithRSAEncryption: NULL; Ed25519: absent.
    [{ name: "ECDSA", hash: "SHA-256" }, "300a06082a8648ce3d040302"],
    [{ name: "ECDSA", hash: "SHA-384" }, "300a06082a8648ce3d040303"],
    [{ name: "ECDSA", hash: "SHA-512" }, "300a06082a8648ce3d040304"],
    [{ name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, "300d06092a864886f70d01010b0500"],
    [{ name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" }, "300d06092a864886f70d01010c0500"],
    [{ name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" }, "300d06092a864886f70d01010d0500"],
    [{ name: "Ed25519" }, "300506032b6570"],
  ];
  for (const [alg, hex] of cases) {
    const got = Buffer.from(signatureAlgorithmDer(alg)).toString("hex");
    assert.equal(got, hex, JSON.stringify(alg));
    const lib = Buffer.from(AsnConvert.serialize(provider.toAsnAlgorithm(alg))).toString("hex");
    assert.equal(got, lib, `library: ${JSON.stringify(alg)}`);
  }
  assert.throws(() => signatureAlgorithmDer({ name: "ECDSA", hash: "SHA-1" } as Algorithm));
  assert.throws(() => signatureAlgorithmDer({ name: "RSA-PSS", hash: "SHA-256" } as Algorithm));
});
