import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { caCertHash, PinSet, spkiOf } from "../../lib/pki/pin.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { CheckError, InputError } from "../../lib/base/errors.ts";
import { repoPath } from "../_cli.ts";

/** Upstream vectors: k/k pubkeypin_test.go and discovery/token testdata (cert2 hash derived). */
const VECTORS = [
  {
    file: "test-cert.pem",
    hash: "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3",
  },
  {
    file: "test-cert2.pem",
    hash: "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971",
  },
  {
    file: "ca-cert.pem",
    hash: "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658",
  },
];

function der(file: string): Uint8Array {
  const text = fs.readFileSync(repoPath("tests/fixtures/pin", file), "utf8");
  return decodePem(text, file)[0]!.der;
}

const cert1 = der("test-cert.pem");
const cert2 = der("test-cert2.pem");
const expectedHash = VECTORS[0]!.hash;

for (const v of VECTORS) {
  Deno.test(`caCertHash() matches the upstream pin of ${v.file}`, () => {
    assert.equal(caCertHash(der(v.file)), v.hash);
  });
}

Deno.test("spkiOf() returns the RSA SubjectPublicKeyInfo (SEQUENCE, rsaEncryption OID)", () => {
  const spki = spkiOf(cert1);
  assert.equal(spki[0], 0x30);
  assert.equal(spki.length, 294); // 2048-bit RSA SPKI
  assert.ok(Buffer.from(spki).includes(Buffer.from("2a864886f70d010101", "hex")));
});

Deno.test("PinSet.allow() and PinSet.checkAny() follow upstream TestSet step by step", () => {
  const s = new PinSet();
  assert.equal(s.isEmpty(), true);
  assert.throws(() => s.allow("xyz"), InputError);
  assert.equal(s.isEmpty(), true);
  assert.throws(() => s.allow("0011223344"), InputError);
  assert.equal(s.isEmpty(), true);
  assert.throws(() => s.allow(expectedHash + expectedHash), InputError);
  assert.equal(s.isEmpty(), true);
  assert.throws(() => s.checkAny([cert1]), CheckError);
  s.allow(expectedHash.toUpperCase());
  assert.equal(s.isEmpty(), false);
  assert.equal(s.checkAny([cert1]), 0);
  assert.throws(() => s.checkAny([cert2]), CheckError);
});

const ALLOW_ERRORS: [string, string][] = [
  ["xyz", `invalid hash, expected "format:hex-value". Known format(s) are: sha256`],
  ["", `invalid hash, expected "format:hex-value". Known format(s) are: sha256`],
  [
    expectedHash + expectedHash,
    `invalid hash, expected "format:hex-value". Known format(s) are: sha256`,
  ],
  ["md5:abcd", `unknown hash format "md5". Known format(s) are: sha256`],
  ["SHA1:abcd", `unknown hash format "sha1". Known format(s) are: sha256`],
  // Go's %q: control characters as \x01, not JSON's \u0001.
  ["md\x015:abcd", `unknown hash format "md\\x015". Known format(s) are: sha256`],
  ["sha256:abcd", `invalid hash "sha256:abcd", expected a 32 byte SHA-256 hash, found 2 bytes`],
  [
    "sha256:" + "g".repeat(64),
    `invalid hash "sha256:${
      "g".repeat(64)
    }", could not decode SHA-256 from hex: encoding/hex: invalid byte: U+0067 'g'`,
  ],
  [
    "sha256:" + "a".repeat(65),
    `invalid hash "sha256:${
      "a".repeat(65)
    }", could not decode SHA-256 from hex: encoding/hex: odd length hex string`,
  ],
];

for (const [input, message] of ALLOW_ERRORS) {
  Deno.test(`PinSet.allow() rejects ${JSON.stringify(input.slice(0, 20))} with kubeadm's text`, () => {
    assert.throws(() => new PinSet().allow(input), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.message, message);
      return true;
    });
  });
}

Deno.test("PinSet.allow() keeps pins added before a malformed one, as upstream", () => {
  const s = new PinSet();
  assert.throws(() => s.allow(expectedHash, "junk"), InputError);
  assert.deepEqual(s.pins(), [expectedHash]);
});

Deno.test("PinSet.checkAny() passes when any certificate matches and returns its index", () => {
  const s = new PinSet();
  s.allow(VECTORS[1]!.hash, VECTORS[0]!.hash);
  assert.equal(s.checkAny([der("ca-cert.pem"), cert1, cert2]), 1);
  assert.equal(s.match([der("ca-cert.pem")]), -1);
});

Deno.test("PinSet.checkAny() error lists every observed hash joined by ':'", () => {
  const s = new PinSet();
  s.allow(VECTORS[2]!.hash);
  assert.throws(() => s.checkAny([cert1, cert2]), (e: unknown) => {
    assert.ok(e instanceof CheckError);
    assert.equal(e.exitCode, 3);
    assert.equal(
      e.message,
      `none of the public keys "${VECTORS[0]!.hash}:${VECTORS[1]!.hash}" are pinned`,
    );
    return true;
  });
});

Deno.test("PinSet.checkAny() on an empty set fails with an empty list", () => {
  assert.throws(() => new PinSet().checkAny([]), {
    message: `none of the public keys "" are pinned`,
  });
});
