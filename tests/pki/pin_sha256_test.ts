import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { spkiHash } from "../../lib/pki/pin.ts";

Deno.test("spkiHash() gives node:crypto's digest for every call, in plain JavaScript first and node:crypto after", () => {
  // sha256Hex hashes its first calls in plain JavaScript, later ones with node:crypto:
  // 64 calls of growing length cross that switch whatever ran before in this process.
  for (let n = 0; n < 64; n++) {
    const spki = new Uint8Array(91 + n * 7).map((_, i) => (i * 31 + n) & 0xff);
    assert.equal(
      spkiHash(spki),
      "sha256:" + createHash("sha256").update(spki).digest("hex"),
      `call ${n}`,
    );
  }
});
