import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { generateKeyPairSync } from "node:crypto";
import { EC_CURVES, goParseSpki, goParseSpkiElements } from "../../lib/pki/pkix_key.ts";
import type { Tlv } from "../../lib/pki/der.ts";
import { mulberry32 } from "../_fuzz.ts";

const P = EC_CURVES["1.2.840.10045.3.1.7"]!.p;

/** A P-256 SPKI's DER framed in other bytes, as it sits inside a certificate. */
function framed(spki: Uint8Array): { buf: Uint8Array; tlv: Tlv } {
  const buf = new Uint8Array([0xaa, 0xbb, ...spki, 0xcc]);
  return { buf, tlv: { tag: 0x30, start: 2, contentStart: 4, end: 2 + spki.length } };
}

/** What a parse gives: its result, or the error's text. */
function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: (e as Error).message, type: (e as Error).constructor.name };
  }
}

function p256Spki(): Uint8Array {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return new Uint8Array(publicKey.export({ format: "der", type: "spki" }));
}

const coordinate = (v: bigint) => Buffer.from(v.toString(16).padStart(64, "0"), "hex");

Deno.test("goParseSpki() gives for P-256 keys what goParseSpkiElements gives (valid and mangled points)", () => {
  const rand = mulberry32(2468);
  const cases: Uint8Array[] = [];
  for (let i = 0; i < 40; i++) {
    const spki = p256Spki();
    cases.push(spki);
    // A flipped bit anywhere in the point: off the curve (or, in the 04 byte, not uncompressed).
    for (let j = 0; j < 5; j++) {
      const m = spki.slice();
      const at = 26 + Math.floor(rand() * 65);
      m[at]! ^= 1 << Math.floor(rand() * 8);
      cases.push(m);
    }
  }
  // Coordinates at and above p, zero, all ones.
  for (const [x, y] of [[P, 0n], [0n, P], [P - 1n, P - 1n], [0n, 0n], [2n ** 256n - 1n, 1n]]) {
    const m = p256Spki();
    m.set(coordinate(x!), 27);
    m.set(coordinate(y!), 59);
    cases.push(m);
  }
  let valid = 0, invalid = 0;
  for (const spki of cases) {
    const { buf, tlv } = framed(spki);
    const fast = outcome(() => goParseSpki(buf, tlv));
    const general = outcome(() => goParseSpkiElements(buf, tlv));
    assert.deepEqual(fast, general, Buffer.from(spki).toString("hex"));
    if ((fast as { ok?: unknown }).ok) valid++;
    else invalid++;
  }
  assert.ok(valid >= 40 && invalid >= 150, `${valid} valid, ${invalid} invalid`);
});

Deno.test("goParseSpki() reads other keys element by element (P-384, Ed25519, RSA)", () => {
  const keys = [
    generateKeyPairSync("ec", { namedCurve: "P-384" }).publicKey,
    generateKeyPairSync("ed25519").publicKey,
    generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey,
  ];
  for (const k of keys) {
    const { buf, tlv } = framed(new Uint8Array(k.export({ format: "der", type: "spki" })));
    assert.deepEqual(goParseSpki(buf, tlv), goParseSpkiElements(buf, tlv));
  }
  const { buf, tlv } = framed(new Uint8Array(keys[0]!.export({ format: "der", type: "spki" })));
  const p384 = goParseSpki(buf, tlv);
  assert.equal(p384.key.curve, "P-384");
});
