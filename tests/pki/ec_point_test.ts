import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { EC_CURVES, ecPointValid, goParsePublicKey } from "../../lib/pki/pkix_key.ts";

const CURVE = EC_CURVES["1.2.840.10045.3.1.7"]!;
const P = CURVE.p;
const B = CURVE.b;
const GX = 0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296n;
const GY = 0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5n;

const bytes32 = (v: bigint) => {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
};
const point = (x: bigint, y: bigint, prefix = 4) =>
  new Uint8Array([prefix, ...bytes32(x), ...bytes32(y)]);

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}
const mod = (v: bigint) => ((v % P) + P) % P;
/** A y on the curve for x (p ≡ 3 mod 4), or undefined when x³ − 3x + b is not a square. */
function yFor(x: bigint): bigint | undefined {
  const rhs = mod(x * x * x - 3n * x + B);
  const y = modPow(rhs, (P + 1n) / 4n, P);
  return mod(y * y) === rhs ? y : undefined;
}
/** The first n x values from `from` up (or down) that are on the curve, with their y. */
function onCurveFrom(from: bigint, step: bigint, n: number): [bigint, bigint][] {
  const out: [bigint, bigint][] = [];
  for (let x = from; out.length < n; x += step) {
    const y = yFor(x);
    if (y !== undefined) out.push([x, y]);
  }
  return out;
}

const smallX = onCurveFrom(0n, 1n, 6);
const highX = onCurveFrom(P - 1n, -1n, 6);

/** The plain statement of Go's verdict: 04 ‖ x ‖ y, 65 bytes, x, y < p, y² ≡ x³ − 3x + b. */
function reference(d: Uint8Array): boolean {
  if (d.length !== 65 || d[0] !== 4) return false;
  const big = (b: Uint8Array) => b.reduce((v, x) => (v << 8n) | BigInt(x), 0n);
  const x = big(d.subarray(1, 33)), y = big(d.subarray(33));
  return x < P && y < P && mod(y * y) === mod(x * x * x - 3n * x + B);
}

/** [what, encoding, Go's verdict]. */
const TABLE: [string, Uint8Array, boolean][] = [
  ["the generator", point(GX, GY), true],
  ["the generator's negation", point(GX, P - GY), true],
  ["the generator, y + 1", point(GX, GY + 1n), false],
  ["the generator, x + 1", point(GX + 1n, GY), false],
  ["the generator, y + p (not below p)", point(GX, GY + P < 1n << 256n ? GY + P : P), false],
  ["x = p", point(P, GY), false],
  ["y = p", point(GX, P), false],
  ["x = 2²⁵⁶ − 1", point((1n << 256n) - 1n, GY), false],
  ["y = 2²⁵⁶ − 1", point(GX, (1n << 256n) - 1n), false],
  ["x = y = 0", point(0n, 0n), false],
  ["the point at infinity (one zero byte)", new Uint8Array([0]), false],
  ["the generator compressed (02)", new Uint8Array([2, ...bytes32(GX)]), false],
  ["the generator compressed (03)", new Uint8Array([3, ...bytes32(GX)]), false],
  ["the generator, hybrid prefix 06", point(GX, GY, 6), false],
  ["the generator, hybrid prefix 07", point(GX, GY, 7), false],
  ["the generator, prefix 00", point(GX, GY, 0), false],
  ["the generator, one byte short", point(GX, GY).subarray(0, 64), false],
  ["the generator, one byte more", new Uint8Array([...point(GX, GY), 0]), false],
  ["empty", new Uint8Array(0), false],
  ...smallX.flatMap(([x, y]): [string, Uint8Array, boolean][] => [
    [`x = ${x}`, point(x, y), true],
    [`x = ${x}, −y`, point(x, mod(-y)), true],
    [`x = ${x}, y + 1`, point(x, mod(y + 1n)), false],
    [`x = ${x} + p`, point(x + P, y), false],
  ]),
  ...highX.flatMap(([x, y]): [string, Uint8Array, boolean][] => [
    [`x = p − ${P - x}`, point(x, y), true],
    [`x = p − ${P - x}, −y`, point(x, mod(-y)), true],
    [`x = p − ${P - x}, y − 1`, point(x, mod(y - 1n)), false],
  ]),
];

for (const [what, data, ok] of TABLE) {
  Deno.test(`ecPointValid() says ${ok} for a P-256 point: ${what}`, () => {
    assert.equal(reference(data), ok, "the plain statement");
    assert.equal(ecPointValid(CURVE, data), ok);
  });
}

Deno.test("ecPointValid() agrees with the plain statement on P-256 keys and their one-bit mutations", async () => {
  let valid = 0, cases = 0;
  for (let k = 0; k < 300; k++) {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
    assert.equal(ecPointValid(CURVE, raw), true);
    valid++;
    for (let m = 0; m < 20; m++) {
      const bad = raw.slice();
      const bit = 8 + Math.floor(Math.random() * 512);
      bad[bit >> 3]! ^= 1 << (bit & 7);
      assert.equal(
        ecPointValid(CURVE, bad),
        reference(bad),
        Buffer.from(bad).toString("hex"),
      );
      cases++;
    }
  }
  for (let k = 0; k < 3000; k++) {
    const data = crypto.getRandomValues(new Uint8Array(65));
    data[0] = 4;
    // Coordinates near p and 2²⁵⁶ too.
    if (k % 3 === 1) data.fill(0xff, 1, 1 + (k % 8));
    if (k % 3 === 2) data.set(bytes32(P - BigInt(k)), 1 + 32 * (k & 1));
    assert.equal(ecPointValid(CURVE, data), reference(data));
    cases++;
  }
  assert.ok(valid === 300 && cases === 9000);
});

Deno.test("goParsePublicKey() refuses a P-256 point off the curve with Go's text", () => {
  const params = new Uint8Array([0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]);
  const ok = goParsePublicKey("1.2.840.10045.2.1", params, point(GX, GY), new Uint8Array(0));
  assert.equal(ok.curve, "P-256");
  assert.throws(
    () => goParsePublicKey("1.2.840.10045.2.1", params, point(GX, GY + 1n), new Uint8Array(0)),
    /^InputError: x509: failed to unmarshal elliptic curve point$/,
  );
});

/** A DER SubjectPublicKeyInfo of a P-256 point (any 65 bytes). */
function spki(data: Uint8Array): Uint8Array {
  const head = "3059301306072a8648ce3d020106082a8648ce3d030107034200";
  return new Uint8Array([...Buffer.from(head, "hex"), ...data]);
}

function opensslAccepts(der: Uint8Array): boolean {
  try {
    execFileSync("openssl", ["pkey", "-pubin", "-inform", "DER", "-noout"], {
      input: der,
      stdio: ["pipe", "pipe", "pipe"],
    });
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") throw e;
    return false;
  }
}

let haveOpenssl = true;
try {
  execFileSync("openssl", ["version"], { stdio: "ignore" });
} catch {
  haveOpenssl = false;
}

Deno.test({
  name: "ecPointValid() agrees with openssl on uncompressed P-256 points",
  ignore: !haveOpenssl, // openssl not installed: nothing to compare with
  fn() {
    // openssl also reads compressed points, which Go refuses: only the uncompressed form here.
    const rows = TABLE.filter(([, d]) => d.length === 65 && d[0] === 4);
    assert.ok(rows.length > 20);
    for (const [what, data, ok] of rows) {
      assert.equal(opensslAccepts(spki(data)), ok, `openssl on ${what}`);
      assert.equal(ecPointValid(CURVE, data), ok, what);
    }
  },
});

for (const [name, oid] of [["P-384", "1.3.132.0.34"], ["P-521", "1.3.132.0.35"]] as const) {
  Deno.test(`ecPointValid() judges ${name} keys and their one-bit mutations by the plain statement`, async () => {
    const curve = EC_CURVES[oid]!;
    const n = Math.ceil(curve.bits / 8);
    const big = (b: Uint8Array) => b.reduce((v, x) => (v << 8n) | BigInt(x), 0n);
    const m = (v: bigint) => ((v % curve.p) + curve.p) % curve.p;
    const plain = (d: Uint8Array) => {
      if (d.length !== 1 + 2 * n || d[0] !== 4) return false;
      const x = big(d.subarray(1, 1 + n)), y = big(d.subarray(1 + n));
      return x < curve.p && y < curve.p && m(y * y) === m(x * x * x - 3n * x + curve.b);
    };
    let accepted = 0;
    for (let k = 0; k < 20; k++) {
      const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: name }, true, [
        "sign",
        "verify",
      ]) as CryptoKeyPair;
      const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      assert.equal(ecPointValid(curve, raw), true);
      accepted++;
      for (let j = 0; j < 10; j++) {
        const bad = raw.slice();
        const bit = 8 + Math.floor(Math.random() * 8 * 2 * n);
        bad[bit >> 3]! ^= 1 << (bit & 7);
        assert.equal(ecPointValid(curve, bad), plain(bad));
      }
    }
    assert.equal(accepted, 20);
  });
}
