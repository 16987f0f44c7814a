import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256Hex } from "../../lib/base/sha256.ts";

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("sha256Hex() gives the FIPS 180-4 / NIST example digests", () => {
  const vectors: [Uint8Array, string][] = [
    [text(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    [text("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      text(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      ),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ],
    [
      new Uint8Array(1_000_000).fill(0x61),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    ],
  ];
  for (const [data, want] of vectors) assert.equal(sha256Hex(data), want, `${data.length} bytes`);
});

Deno.test("sha256Hex() agrees with node:crypto at every length around the block and padding edges", () => {
  // Lengths 0..300 cover 55/56 (one vs two padding blocks), 63/64/65 and several blocks;
  // the bytes are a fixed pseudo-random sequence so a failure is reproducible.
  let x = 0x12345678;
  const bytes = new Uint8Array(300);
  for (let i = 0; i < bytes.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    bytes[i] = x >>> 24;
  }
  for (let n = 0; n <= bytes.length; n++) {
    const data = bytes.subarray(0, n);
    assert.equal(sha256Hex(data), createHash("sha256").update(data).digest("hex"), `length ${n}`);
  }
});

Deno.test("sha256Hex() hashes a view by its own bytes, not its underlying buffer", () => {
  const buf = text("xxabcyy");
  assert.equal(
    sha256Hex(buf.subarray(2, 5)),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});
