import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { decodePem } from "../../lib/pki/pem.ts";

/**
 * The base64 step as it was written before the one-pass decoder (strip spaces, tabs, CR and
 * LF; length a multiple of 4; padding only at the end; the alphabet before it).
 */
function reference(body: string): Uint8Array | undefined {
  const c = body.replace(/[ \t\r\n]+/g, "");
  if (c.length % 4 !== 0) return undefined;
  const pad = c.indexOf("=");
  const data = pad < 0 ? c : c.slice(0, pad);
  if (pad >= 0 && !(pad === c.length - 1 || (pad === c.length - 2 && c[c.length - 1] === "="))) {
    return undefined;
  }
  if (!/^[A-Za-z0-9+/]*$/.test(data)) return undefined;
  return new Uint8Array(Buffer.from(c, "base64"));
}

/** A small deterministic generator (xorshift32), so a failure reproduces. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A body close to valid base64: mostly alphabet, some padding, whitespace and stray bytes. */
function randomBody(r: () => number): string {
  const n = Math.floor(r() * 40);
  let s = "";
  for (let i = 0; i < n; i++) {
    const p = r();
    if (p < 0.8) s += ALPHABET[Math.floor(r() * 64)];
    else if (p < 0.88) s += "=";
    else if (p < 0.94) s += " \t\r\n"[Math.floor(r() * 4)];
    else s += "\v\f\x00*.\u00e9\u0100-_"[Math.floor(r() * 10)];
  }
  // Often a valid tail: pad to a multiple of four.
  if (r() < 0.5) {
    const len = s.replace(/[ \t\r\n]+/g, "").length;
    s += "=".repeat((4 - (len % 4)) % 4);
  }
  return s;
}

Deno.test("decodePem() decodes each body as the strip-then-validate base64 step did, on 30,000 random bodies", () => {
  const r = rng(0x5eed);
  let decoded = 0, refused = 0;
  for (let i = 0; i < 30_000; i++) {
    const body = randomBody(r);
    const want = reference(body);
    const blocks = decodePem(`-----BEGIN X-----\n${body}\n-----END X-----\n`);
    if (want === undefined) {
      assert.equal(blocks.length, 0, JSON.stringify(body));
      refused++;
    } else {
      assert.equal(blocks.length, 1, JSON.stringify(body));
      assert.deepEqual(blocks[0]!.der, want, JSON.stringify(body));
      decoded++;
    }
  }
  // Both outcomes are well represented.
  assert.ok(decoded > 3000 && refused > 3000, `${decoded} decoded, ${refused} refused`);
});

Deno.test("decodePem() decodes a body longer than its scratch buffer and keeps earlier blocks intact", () => {
  const big = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) & 0xff);
  const small = Uint8Array.from([1, 2, 3, 4, 5]);
  const b64 = (d: Uint8Array) => Buffer.from(d).toString("base64").replace(/.{64}/g, "$&\n");
  const text = `-----BEGIN A-----\n${b64(small)}\n-----END A-----\n` +
    `-----BEGIN B-----\n${b64(big)}\n-----END B-----\n`;
  const blocks = decodePem(text);
  assert.deepEqual(blocks.map((b) => b.type), ["A", "B"]);
  assert.deepEqual(blocks[0]!.der, small);
  assert.deepEqual(blocks[1]!.der, big);
});

Deno.test("decodePem() keeps every block's bytes apart across many blocks (blocks share buffers)", () => {
  const datas = Array.from(
    { length: 300 },
    (_, k) => Uint8Array.from({ length: 200 + (k * 37) % 1500 }, (_, i) => (i * 31 + k) & 0xff),
  );
  const text = datas.map((d) =>
    `-----BEGIN X-----\n${Buffer.from(d).toString("base64")}\n-----END X-----\n`
  ).join("");
  const blocks = decodePem(text);
  assert.equal(blocks.length, datas.length);
  // Writing into one block's bytes leaves every other block as decoded.
  blocks[0]!.der.fill(0);
  for (let k = 1; k < datas.length; k++) assert.deepEqual(blocks[k]!.der, datas[k], `block ${k}`);
  // A second decode gives the same bytes again.
  assert.deepEqual(decodePem(text).map((b) => b.der), datas);
});
