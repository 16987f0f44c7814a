/**
 * detachedSigner() against HMAC-SHA256 computed here from the secret's UTF-8
 * bytes, for ASCII secrets (handed to the HMAC as strings) and any others.
 */

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { Buffer } from "node:buffer";
import { detachedSigner, jwsHeader } from "../../lib/discovery/jws.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function reference(content: string, id: string, secret: string): string {
  const header = Buffer.from(jwsHeader(id), "utf8").toString("base64url");
  const payload = Buffer.from(content, "utf8").toString("base64url");
  const mac = createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${header}.${payload}`, "latin1")
    .digest("base64url");
  return `${header}..${mac}`;
}

Deno.test("detachedSigner() signs with the secret's UTF-8 bytes, ASCII or not", () => {
  const r = rng(9);
  const pool = [
    "a",
    "z",
    "0",
    "9",
    "\x00",
    "\x7f",
    "\x80",
    "é",
    "日",
    "\ud83d\ude42",
    "\ud800",
    "\udfff",
    " ",
    ".",
  ];
  const content = "apiVersion: v1\nclusters: []\n";
  const sign = detachedSigner(content);
  const cases = ["", "0123456789abcdef", "abcdefghijklmnop", "é", "\ud800x"];
  for (let n = 0; n < 2000; n++) {
    const len = Math.floor(r() * 20);
    cases.push(Array.from({ length: len }, () => pool[Math.floor(r() * pool.length)]).join(""));
  }
  for (const secret of cases) {
    assert.equal(
      sign("abc123", secret),
      reference(content, "abc123", secret),
      JSON.stringify(secret),
    );
  }
});

Deno.test("detachedSigner() writes the protected header of any token ID as base64url of its JSON", () => {
  const r = rng(10);
  const sign = detachedSigner("payload");
  const ids = [
    "abc123",
    "000000",
    "zzzzzz",
    "",
    "abc12",
    "abc1234",
    'ab"c12',
    "ab\\c12",
    "é12345",
    "ab\nc12",
  ];
  for (let n = 0; n < 3000; n++) {
    const len = r() < 0.8 ? 6 : Math.floor(r() * 9);
    ids.push(
      Array.from(
        { length: len },
        () =>
          String.fromCharCode(r() < 0.95 ? 0x20 + Math.floor(r() * 95) : Math.floor(r() * 0x300)),
      )
        .join(""),
    );
  }
  for (const id of ids) {
    assert.equal(
      sign(id, "tokenSecret"),
      reference("payload", id, "tokenSecret"),
      JSON.stringify(id),
    );
  }
});
