import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { CA_BACKDATE_MS, createCa, randomSerialHex } from "../../lib/pki/ca.ts";
import { caCertHash, spkiOf } from "../../lib/pki/pin.ts";
import { certificateParts, children, readTlv, tlvContent } from "../../lib/pki/der.ts";
import { InputError } from "../../lib/base/errors.ts";

Deno.test("randomSerialHex() is rand.Int(MaxInt64-1)+1: redraws out-of-range values", () => {
  // first draw: 0x7f..ff masked -> 2^63-1 >= max -> redrawn; second: all zero -> serial 1
  const draws = [new Uint8Array(8).fill(0xff), new Uint8Array(8)];
  let i = 0;
  assert.equal(randomSerialHex(() => draws[i++]!), "1");
  assert.equal(i, 2);
  // largest value: 2^63-3 drawn -> 2^63-2
  const top = new Uint8Array([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd]);
  assert.equal(randomSerialHex(() => top.slice()), "7ffffffffffffffe");
});

Deno.test("createCa() backdates NotBefore 5 minutes and truncates to whole seconds", async () => {
  const now = new Date("2026-05-05T10:00:00.750Z");
  const ca = await createCa({
    commonName: "kubernetes",
    keyType: "ecdsa-p256",
    now,
    validityMs: 3600_000,
  });
  assert.equal(CA_BACKDATE_MS, 300_000);
  assert.equal(ca.notBefore.toISOString(), "2026-05-05T09:55:00.000Z");
  assert.equal(ca.notAfter.toISOString(), "2026-05-05T11:00:00.000Z");
  assert.equal(ca.hash, caCertHash(ca.certDer));
  assert.equal(ca.keyDescription, "ECDSA P-256");
  assert.ok(!ca.certPem.includes("PRIVATE"));
  assert.match(ca.keyPem, /^-----BEGIN EC PRIVATE KEY-----\n/);
  assert.equal(
    certificateParts(ca.certDer).serial.end - certificateParts(ca.certDer).serial.contentStart <= 8,
    true,
  );
});

Deno.test("createCa() SubjectKeyIdentifier is truncated SHA-256 of the public key bits", async () => {
  const ca = await createCa({
    commonName: "kubernetes",
    keyType: "ed25519",
    now: new Date(),
    validityMs: 3600_000,
  });
  const spki = spkiOf(ca.certDer);
  const bits = tlvContent(spki, children(spki, readTlv(spki, 0))[1]!).subarray(1);
  const want = createHash("sha256").update(bits).digest("hex").slice(0, 40).toUpperCase();
  const text = execFileSync("openssl", ["x509", "-noout", "-text"], { input: ca.certPem })
    .toString();
  assert.match(text, new RegExp(want.match(/../g)!.join(":")));
});

Deno.test("createCa() rejects an empty CN and a validity past year 9999", async () => {
  const base = { keyType: "ed25519" as const, now: new Date(), validityMs: 1000 };
  await assert.rejects(createCa({ ...base, commonName: "" }), InputError);
  await assert.rejects(
    createCa({ ...base, commonName: "x", validityMs: 9000 * 365 * 86400_000 }),
    /year 9999/,
  );
});
