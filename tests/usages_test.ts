import assert from "node:assert/strict";
import {
  ALLOWED_USAGES,
  BOOTSTRAP_CLIENT_USAGES,
  keyUsagesFromStrings,
  KU,
  kubeletUsages,
} from "../lib/usages.ts";

// authority/policies_test.go TestKeyUsagesFromStrings
const CASES: { usages: string[]; keyUsage: number; ext: string[]; err: boolean }[] = [
  { usages: ["signing"], keyUsage: KU.DigitalSignature, ext: [], err: false },
  { usages: ["client auth"], keyUsage: 0, ext: ["ClientAuth"], err: false },
  { usages: ["client auth", "client auth"], keyUsage: 0, ext: ["ClientAuth"], err: false },
  {
    usages: ["cert sign", "encipher only"],
    keyUsage: KU.CertSign | KU.EncipherOnly,
    ext: [],
    err: false,
  },
  {
    usages: ["ocsp signing", "crl sign", "s/mime", "content commitment"],
    keyUsage: KU.CRLSign | KU.ContentCommitment,
    ext: ["EmailProtection", "OCSPSigning"],
    err: false,
  },
  { usages: ["unsupported string"], keyUsage: 0, ext: [], err: true },
];

for (const c of CASES) {
  Deno.test(`keyUsagesFromStrings() ${JSON.stringify(c.usages)}`, () => {
    if (c.err) {
      assert.throws(
        () => keyUsagesFromStrings(c.usages),
        /unrecognized usage values: \["unsupported string"\]/,
      );
      return;
    }
    const got = keyUsagesFromStrings(c.usages);
    assert.equal(got.keyUsage, c.keyUsage);
    assert.deepEqual(got.extKeyUsage, c.ext);
  });
}

Deno.test("keyUsagesFromStrings() maps every allowed usage and sorts EKUs by Go's enum", () => {
  for (const u of ALLOWED_USAGES) keyUsagesFromStrings([u]);
  assert.equal(ALLOWED_USAGES.length, 23);
  const got = keyUsagesFromStrings(["client auth", "server auth", "any", "netscape sgc"]);
  assert.deepEqual(got.extKeyUsage, [
    "Any",
    "ServerAuth",
    "ClientAuth",
    "NetscapeServerGatedCrypto",
  ]);
  assert.deepEqual(
    keyUsagesFromStrings(["signing", "key encipherment", "server auth", "client auth"]),
    {
      keyUsage: KU.DigitalSignature | KU.KeyEncipherment,
      extKeyUsage: ["ServerAuth", "ClientAuth"],
    },
  );
});

Deno.test("kubeletUsages() adds key encipherment only for RSA keys", () => {
  assert.deepEqual(kubeletUsages("client", "rsa-2048"), [
    "digital signature",
    "key encipherment",
    "client auth",
  ]);
  assert.deepEqual(kubeletUsages("client", "ecdsa-p256"), ["digital signature", "client auth"]);
  assert.deepEqual(kubeletUsages("serving", "ed25519"), ["digital signature", "server auth"]);
  assert.deepEqual(kubeletUsages("serving", "RSA"), [
    "digital signature",
    "key encipherment",
    "server auth",
  ]);
  assert.deepEqual(BOOTSTRAP_CLIENT_USAGES, [
    "digital signature",
    "key encipherment",
    "client auth",
  ]);
});
