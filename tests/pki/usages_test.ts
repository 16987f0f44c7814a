import assert from "node:assert/strict";
import {
  ALLOWED_USAGES,
  BOOTSTRAP_CLIENT_USAGES,
  ekuName,
  ekuOid,
  EKUS,
  keyUsagesFromStrings,
  KU,
  kubeletUsages,
} from "../../lib/pki/usages.ts";
import { validateUsages } from "../../lib/kubelet/csr_validation.ts";

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

// Each of the 23 usage strings with the one X.509 effect upstream gives it (policies.go
// keyUsageDict / extKeyUsageDict), in k8s.io/api's declaration order. A row kills the
// mutation that remaps, drops or adds that string.
const MAPPING: [string, { ku: number } | { eku: string; oid: string }][] = [
  ["signing", { ku: KU.DigitalSignature }],
  ["digital signature", { ku: KU.DigitalSignature }],
  ["content commitment", { ku: KU.ContentCommitment }],
  ["key encipherment", { ku: KU.KeyEncipherment }],
  ["key agreement", { ku: KU.KeyAgreement }],
  ["data encipherment", { ku: KU.DataEncipherment }],
  ["cert sign", { ku: KU.CertSign }],
  ["crl sign", { ku: KU.CRLSign }],
  ["encipher only", { ku: KU.EncipherOnly }],
  ["decipher only", { ku: KU.DecipherOnly }],
  ["any", { eku: "Any", oid: "2.5.29.37.0" }],
  ["server auth", { eku: "ServerAuth", oid: "1.3.6.1.5.5.7.3.1" }],
  ["client auth", { eku: "ClientAuth", oid: "1.3.6.1.5.5.7.3.2" }],
  ["code signing", { eku: "CodeSigning", oid: "1.3.6.1.5.5.7.3.3" }],
  ["email protection", { eku: "EmailProtection", oid: "1.3.6.1.5.5.7.3.4" }],
  ["s/mime", { eku: "EmailProtection", oid: "1.3.6.1.5.5.7.3.4" }],
  ["ipsec end system", { eku: "IPSECEndSystem", oid: "1.3.6.1.5.5.7.3.5" }],
  ["ipsec tunnel", { eku: "IPSECTunnel", oid: "1.3.6.1.5.5.7.3.6" }],
  ["ipsec user", { eku: "IPSECUser", oid: "1.3.6.1.5.5.7.3.7" }],
  ["timestamping", { eku: "TimeStamping", oid: "1.3.6.1.5.5.7.3.8" }],
  ["ocsp signing", { eku: "OCSPSigning", oid: "1.3.6.1.5.5.7.3.9" }],
  ["microsoft sgc", { eku: "MicrosoftServerGatedCrypto", oid: "1.3.6.1.4.1.311.10.3.3" }],
  ["netscape sgc", { eku: "NetscapeServerGatedCrypto", oid: "2.16.840.1.113730.4.1" }],
];

for (const [usage, effect] of MAPPING) {
  Deno.test(`keyUsagesFromStrings() ${JSON.stringify(usage)} maps to exactly ${"ku" in effect ? `KU bit ${effect.ku}` : effect.eku}`, () => {
    const got = keyUsagesFromStrings([usage]);
    if ("ku" in effect) {
      assert.equal(got.keyUsage, effect.ku);
      assert.deepEqual(got.extKeyUsage, []);
    } else {
      assert.equal(got.keyUsage, 0);
      assert.deepEqual(got.extKeyUsage, [effect.eku]);
      // The EKU name and its OID, both directions.
      assert.equal(ekuOid(effect.eku), effect.oid);
      assert.equal(ekuName(effect.oid), effect.eku);
    }
    assert.deepEqual(validateUsages([usage]), [], "the API accepts it");
  });
}

Deno.test("usage strings: the inverse maps are exactly upstream's (which strings give each bit / EKU)", () => {
  // Kills a mutation that makes a second string give a bit or EKU, or drops an alias.
  for (let bit = 0; bit < 9; bit++) {
    const from = ALLOWED_USAGES.filter((u) => keyUsagesFromStrings([u]).keyUsage === 1 << bit);
    const want = MAPPING.filter(([, e]) => "ku" in e && e.ku === 1 << bit).map(([u]) => u);
    assert.deepEqual(from, want, `bit ${bit}`);
  }
  assert.deepEqual(
    ALLOWED_USAGES.filter((u) => keyUsagesFromStrings([u]).keyUsage === KU.DigitalSignature),
    ["signing", "digital signature"],
  );
  for (const e of EKUS) {
    const from = ALLOWED_USAGES.filter((u) => keyUsagesFromStrings([u]).extKeyUsage[0] === e.name);
    const want = MAPPING.filter(([, x]) => "eku" in x && x.eku === e.name).map(([u]) => u);
    assert.deepEqual(from, want, e.name);
  }
  // Go's two code-signing EKUs have no usage string.
  for (const n of ["MicrosoftCommercialCodeSigning", "MicrosoftKernelCodeSigning"]) {
    assert.ok(!MAPPING.some(([, x]) => "eku" in x && x.eku === n));
  }
  // All 23 together: every KU bit, the 12 distinct EKUs in Go's enum order.
  const all = keyUsagesFromStrings(ALLOWED_USAGES);
  assert.equal(all.keyUsage, 0x1ff);
  assert.deepEqual(all.extKeyUsage, EKUS.slice(0, 12).map((e) => e.name));
});

Deno.test("ALLOWED_USAGES is exactly the 23 strings: the API's whitelist, nothing near them", () => {
  assert.deepEqual([...ALLOWED_USAGES], MAPPING.map(([u]) => u));
  // Near misses: each would pass a whitelist loosened by case, trimming, separators or prefixes.
  const near = [
    "Signing",
    "client-auth",
    "clientauth",
    "client auth ",
    " client auth",
    "digital_signature",
    "ipsec end-system",
    "smime",
    "s/mime ",
    "time stamping",
    "ocsp",
    "sgc",
    "",
    "server",
    "any ",
  ];
  for (const u of near) {
    assert.deepEqual(
      validateUsages([u]).map((e) => e.replace(/: supported values: .*/, "")),
      [`spec.usages[0]: Unsupported value: ${JSON.stringify(u)}`],
      u,
    );
    assert.throws(() => keyUsagesFromStrings([u]), /unrecognized usage values/, u);
  }
});
