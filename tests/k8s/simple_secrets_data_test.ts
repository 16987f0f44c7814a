/**
 * The template reader's `data` values (decoded in place, without the
 * general path) against parseManifestChunk + decodeSecret, on random values
 * in the lines that vary from document to document: valid base64 of random
 * bytes (ASCII or not), and the same cut, padded wrongly or with a character
 * base64 has not. Whatever simpleSecretsChunk takes must be what the general
 * path gives; what it leaves, the general path reads.
 *
 * And readManifestChunks (commands/_io.ts) cuts a long stream only before a
 * `---` line as the YAML reader sees one: on random texts of dashes, line
 * terminators and blanks the pieces join to the input, and each starts where
 * the separator pattern matches.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { parseManifestChunk } from "../../lib/k8s/manifest.ts";
import { decodeSecret, isSecretObject } from "../../lib/k8s/secret.ts";
import { simpleSecretsChunk } from "../../lib/k8s/simple_secrets.ts";
import { readManifestChunks } from "../../commands/_io.ts";
import { mulberry32 as rng } from "../_fuzz.ts";
import { tempDir } from "../_cli.ts";

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A value for a `data` line: base64 of random bytes, often changed. */
function randomValue(r: () => number): string {
  const len = Math.floor(r() * 40);
  const bytes = Buffer.from(
    Array.from(
      { length: len },
      () => (r() < 0.97 ? 32 + Math.floor(r() * 95) : Math.floor(r() * 256)),
    ),
  );
  let v = bytes.toString("base64");
  const x = r();
  if (x < 0.03) v = v.slice(0, -1);
  else if (x < 0.06) v = v.slice(0, -1) + BASE64[Math.floor(r() * 64)];
  else if (x < 0.08) v += "=";
  else if (x < 0.11) {
    const i = Math.floor(r() * (v.length + 1));
    v = v.slice(0, i) + ["-", "_", ".", "=", "é", ":", "#"][Math.floor(r() * 7)] + v.slice(i);
  } else if (x < 0.14) v = BASE64[Math.floor(r() * 52)] + v.slice(1);
  return v;
}

function secretDoc(id: string, secret: string, extra: string): string {
  return [
    "apiVersion: v1",
    "data:",
    `  extra: ${extra}`,
    "  expiration: MjAyNi0xMS0yN1QwMDowNTowOVo=",
    `  token-id: ${Buffer.from(id).toString("base64")}`,
    `  token-secret: ${secret}`,
    "  usage-bootstrap-signing: dHJ1ZQ==",
    "kind: Secret",
    "metadata:",
    `  name: bootstrap-token-${id}`,
    "  namespace: kube-system",
    "type: bootstrap.kubernetes.io/token",
    "",
  ].join("\n");
}

Deno.test("simpleSecretsChunk() decodes varying data values as decodeSecret does, on 4,000 random fleets", () => {
  const r = rng(4648);
  let taken = 0, left = 0, decodedNonAscii = 0;
  for (let n = 0; n < 4000; n++) {
    // Five documents: the third on is read by the template the first two teach, whose
    // varying lines are the ID, the secret and (half the time) `extra`.
    const extra = randomValue(r);
    const docs: string[] = [];
    for (let d = 0; d < 5; d++) {
      const id = String(100000 + Math.floor(r() * 899999));
      docs.push(secretDoc(id, randomValue(r), r() < 0.5 ? extra : randomValue(r)));
    }
    const text = docs.join("---\n");
    const chunk = { source: "s.yaml", text, index: 0, last: true };
    const fast = simpleSecretsChunk(chunk, { documents: 0, objects: 0 });
    let slow: unknown[] | undefined;
    try {
      const objects = parseManifestChunk(chunk, { documents: 0, objects: 0 });
      assert.ok(objects.every(isSecretObject));
      slow = objects.map((o) => decodeSecret(o, "s.yaml"));
    } catch {
      slow = undefined;
    }
    if (fast === undefined) {
      left++;
      continue;
    }
    assert.ok(
      slow !== undefined,
      `taken, yet the general path refuses it: ${JSON.stringify(text)}`,
    );
    assert.deepStrictEqual(fast, slow, JSON.stringify(text));
    taken++;
    const nonAscii = (v: string | undefined) => [...(v ?? "")].some((c) => c.charCodeAt(0) > 0x7f);
    if (fast.some((s) => nonAscii(s.data["token-secret"]))) decodedNonAscii++;
  }
  const stats = JSON.stringify({ taken, left, decodedNonAscii });
  assert.ok(taken > 500 && left > 500 && decodedNonAscii > 20, stats);
});

// The YAML reader's document separator (as readManifestChunks cuts by it).
const SEPARATOR = /^---(?=[ \t\r\n]|$)/gm;

Deno.test("readManifestChunks() cuts a long stream only where a --- line starts, on random texts", () => {
  const r = rng(1729);
  const { dir, cleanup } = tempDir();
  const pieces = [
    "---",
    "---",
    "----",
    "-- -",
    "\n",
    "\n",
    "\r",
    "\r\n",
    " ",
    "\t",
    "x",
    "\u2028",
    "\u2029",
    "\v",
  ];
  for (let n = 0; n < 12; n++) {
    // ~2.5 MB: filler lines with random short runs of dashes, terminators and blanks.
    const parts: string[] = [];
    let size = 0;
    while (size < 2_500_000) {
      let s = "";
      const k = 1 + Math.floor(r() * 6);
      for (let i = 0; i < k; i++) s += pieces[Math.floor(r() * pieces.length)];
      const filler = "a: " + "b".repeat(Math.floor(r() * 4000)) + "\n";
      parts.push(s, filler);
      size += s.length + filler.length;
    }
    const text = parts.join("");
    const file = path.join(dir, `t${n}.yaml`);
    fs.writeFileSync(file, text);
    const chunks = [...readManifestChunks([file])];
    assert.equal(chunks.map((c) => c.text).join(""), text, `${n}: the pieces join to the input`);
    assert.ok(chunks.length >= 2, `${n}: read in pieces`);
    let at = 0;
    for (const c of chunks.slice(0, -1)) {
      at += c.text.length;
      SEPARATOR.lastIndex = at;
      const m = SEPARATOR.exec(text);
      assert.equal(m?.index, at, `${n}: a piece ends before a --- line (at ${at})`);
    }
  }
  cleanup();
});
