import assert from "node:assert/strict";
import * as fs from "node:fs";
import { certificateParts, children, DerError, readTlv, tlvBytes } from "../../lib/pki/der.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { repoPath } from "../_cli.ts";

const cert = decodePem(
  fs.readFileSync(repoPath("tests/fixtures/pin/ca-cert.pem"), "utf8"),
  "ca-cert.pem",
)[0]!.der;

Deno.test("readTlv() reads short and long lengths", () => {
  assert.deepEqual(readTlv(new Uint8Array([0x05, 0x00]), 0), {
    tag: 5,
    start: 0,
    contentStart: 2,
    end: 2,
  });
  const long = new Uint8Array(3 + 200);
  long.set([0x04, 0x81, 200]);
  assert.equal(readTlv(long, 0).end, 203);
});

const BAD: [string, number[]][] = [
  ["truncated header", [0x30]],
  ["truncated content", [0x30, 0x05, 0x01]],
  ["indefinite length", [0x30, 0x80, 0x00, 0x00]],
  ["high tag number", [0x1f, 0x01, 0x00]],
  ["non-minimal long length", [0x04, 0x81, 0x05, 1, 2, 3, 4, 5]],
  ["leading zero length", [0x04, 0x82, 0x00, 0x85]],
  ["length too large", [0x04, 0x85, 1, 1, 1, 1, 1]],
  ["truncated length", [0x04, 0x82, 0x01]],
];
for (const [what, bytes] of BAD) {
  Deno.test(`readTlv() rejects ${what}`, () => {
    assert.throws(() => readTlv(new Uint8Array(bytes), 0), DerError);
  });
}

Deno.test("children() keeps each child within its parent's bounds", () => {
  // SEQUENCE of length 3 holding an OCTET STRING claiming 5 bytes
  const buf = new Uint8Array([0x30, 0x03, 0x04, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00]);
  assert.throws(() => children(buf, readTlv(buf, 0)), DerError);
});

Deno.test("certificateParts() finds the SPKI that openssl extracts", () => {
  const parts = certificateParts(cert);
  const spki = tlvBytes(cert, parts.spki);
  assert.equal(spki[0], 0x30);
  assert.equal(spki.length, 294);
});

Deno.test("certificateParts() rejects trailing data and truncation", () => {
  const extra = new Uint8Array(cert.length + 1);
  extra.set(cert);
  assert.throws(() => certificateParts(extra), /trailing data/);
  assert.throws(() => certificateParts(cert.subarray(0, cert.length - 1)), DerError);
  assert.throws(() => certificateParts(new Uint8Array([0x30, 0x00])), DerError);
});

Deno.test("certificateParts() rejects every truncation of a real certificate", () => {
  for (let n = 0; n < cert.length; n += 7) {
    assert.throws(() => certificateParts(cert.subarray(0, n)), DerError);
  }
});
