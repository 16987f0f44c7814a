/**
 * `lib/pki/rsa_keygen.ts`: the RSA keys the binary makes (Node) are sound
 * RSA keys of the asked size, as OpenSSL's own checks judge them.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { generateRsaKeyObject } from "../../lib/pki/rsa_keygen.ts";

Deno.test("generateRsaKeyObject() makes a 2048-bit key with e = 65537 that openssl pkey -check accepts", async () => {
  const [a, b] = await Promise.all([generateRsaKeyObject(2048), generateRsaKeyObject(2048)]);
  for (const key of [a, b]) {
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.equal(key.asymmetricKeyDetails?.publicExponent, 65537n);
    const pem = String(key.export({ type: "pkcs1", format: "pem" }));
    const out = execFileSync("openssl", ["pkey", "-check", "-noout"], { input: pem }).toString();
    assert.match(out, /^Key is valid/);
  }
  // Two draws are two keys.
  assert.notEqual(
    String(a.export({ type: "pkcs1", format: "pem" })),
    String(b.export({ type: "pkcs1", format: "pem" })),
  );
});
