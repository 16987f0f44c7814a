/**
 * detachedSigner() computes a token's HMAC from two one-shot hashes over
 * buffers it reuses from token to token: held here to node:crypto's HMAC on
 * random tokens, secrets of every length around the 64-byte block, and
 * payloads, signed in random order by one signer.
 */

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { Buffer } from "node:buffer";
import { detachedSigner, jwsHeader } from "../../lib/discovery/jws.ts";
import { mulberry32 as rng } from "../_fuzz.ts";

function reference(content: string, id: string, secret: string): string {
  const header = Buffer.from(jwsHeader(id), "utf8").toString("base64url");
  const payload = Buffer.from(content, "utf8").toString("base64url");
  const mac = createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${header}.${payload}`, "latin1")
    .digest("base64url");
  return `${header}..${mac}`;
}

const ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";

Deno.test("detachedSigner() gives node:crypto's HMAC for secrets of 0 to 130 characters", () => {
  const r = rng(2104);
  const pick = (s: string) => s[Math.floor(r() * s.length)]!;
  for (const content of ["", "x", "apiVersion: v1\nclusters: []\n", "é".repeat(700)]) {
    const sign = detachedSigner(content);
    for (let len = 0; len <= 130; len++) {
      for (let n = 0; n < 4; n++) {
        let id = "";
        for (let i = 0; i < 6; i++) id += pick(ID_CHARS);
        let secret = "";
        for (let i = 0; i < len; i++) {
          secret += n === 3 && i === len - 1 ? "é" : String.fromCharCode(Math.floor(r() * 128));
        }
        assert.equal(sign(id, secret), reference(content, id, secret), `${len} ${n}`);
      }
    }
  }
});

Deno.test("detachedSigner() keeps each token's signature its own across a fleet (buffers reused)", () => {
  const r = rng(13);
  const pick = (s: string) => s[Math.floor(r() * s.length)]!;
  const content = "apiVersion: v1\nkind: Config\n" + "y".repeat(1500);
  const sign = detachedSigner(content);
  for (let n = 0; n < 3000; n++) {
    const six = r() < 0.9;
    let id = "";
    for (let i = 0; i < (six ? 6 : Math.floor(r() * 9)); i++) {
      id += r() < 0.97 ? pick(ID_CHARS) : pick('"\\\n é}');
    }
    let secret = "";
    const len = r() < 0.8 ? 16 : Math.floor(r() * 80);
    for (let i = 0; i < len; i++) secret += pick(ID_CHARS);
    assert.equal(sign(id, secret), reference(content, id, secret), JSON.stringify([id, secret]));
  }
});
