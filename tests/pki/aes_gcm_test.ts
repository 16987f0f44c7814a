/**
 * kubeadm's certificate key and AES-256-GCM layout (nonce ‖ ciphertext ‖
 * tag), against fixed vectors computed by independent implementations (Go's
 * crypto/cipher, Python's `cryptography`, NIST's GCM test case 14) and, when
 * Go or Python is installed, against them live.
 */

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { Buffer } from "node:buffer";
import process from "node:process";
import {
  certificateKeyBytes,
  createCertificateKey,
  decryptBytes,
  encryptBytes,
  GCM_AUTH_FAILED,
  goHexDecode,
  SHORTER_THAN_NONCE,
  validateCertificateKey,
} from "../../lib/pki/aes_gcm.ts";
import { CheckError, UsageError } from "../../lib/base/errors.ts";
import { GO, goTool, noteGoAbsent } from "../_go_gcm.ts";

const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const fixedNonce = (nonce: string) => () => hex(nonce);

/** Reference vector 1: kubeadm's documented example key. */
const DOC_KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";

/** (key, nonce, plaintext) → nonce‖ct‖tag, each computed by an implementation other than node:crypto. */
const VECTORS: { what: string; key: string; nonce: string; plain: string; blob: string }[] = [
  {
    what: "reference vector 3 (Go and Python cryptography)",
    key: DOC_KEY,
    nonce: "000102030405060708090a0b",
    plain: Buffer.from("cert-data").toString("hex"),
    blob: "000102030405060708090a0b0aa33c84673cac9e075db13fe84cb343544b08949df2f76648",
  },
  {
    what: "empty plaintext: nonce and tag only (Go)",
    key: DOC_KEY,
    nonce: "000102030405060708090a0b",
    plain: "",
    blob: "000102030405060708090a0bbd5cef4ec9f40316341554cbb7533b63",
  },
  {
    what: "a PEM line (Go; Python cryptography gives the same ct|tag)",
    key: DOC_KEY,
    nonce: "ffffffffffffffffffffffff",
    plain: Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("hex"),
    blob:
      "ffffffffffffffffffffffff4e97962fbcfe9d14f427387b0636b5c1b807ebf3995cff6dddab524d7c9a6ec7d10372e03205602eac274480",
  },
  {
    what: "NIST GCM test case 14 (zero key, IV, block; also Go)",
    key: "00".repeat(32),
    nonce: "00".repeat(12),
    plain: "00".repeat(16),
    blob: "00".repeat(12) + "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919",
  },
  {
    what: "100 bytes, several blocks and a partial one (Go)",
    key: DOC_KEY,
    nonce: "0a0b0c0d0e0f101112131415",
    plain: Buffer.from("x".repeat(100)).toString("hex"),
    blob:
      "0a0b0c0d0e0f1011121314154cfd7032b923adb7ed50cfa6570212443405ad1561f9bc80107dccfbef1213a0c1da621ca6524dc6dd4ef48bbb47b67725b67394dd38c136b53ee81cdd61a82b82acc7e4052da6f41975af2f2bcd60402d71716faf3f10f4ca9690e68e8e90f0e2f71559c1d3c6770a1286445f5b445e380492a6",
  },
];

for (const v of VECTORS) {
  Deno.test(`encryptBytes() gives kubeadm's nonce|ciphertext|tag: ${v.what}`, () => {
    const blob = encryptBytes(hex(v.plain), hex(v.key), fixedNonce(v.nonce));
    assert.equal(toHex(blob), v.blob);
    assert.equal(blob.length, v.plain.length / 2 + 28);
  });
  Deno.test(`decryptBytes() opens the independent implementation's blob: ${v.what}`, () => {
    assert.equal(toHex(decryptBytes(hex(v.blob), hex(v.key))), v.plain);
  });
}

Deno.test("encryptBytes() reference vector 3 in base64, as the Secret holds it", () => {
  const blob = encryptBytes(
    new TextEncoder().encode("cert-data"),
    hex(DOC_KEY),
    fixedNonce("000102030405060708090a0b"),
  );
  assert.equal(
    Buffer.from(blob).toString("base64"),
    "AAECAwQFBgcICQoLCqM8hGc8rJ4HXbE/6EyzQ1RLCJSd8vdmSA==",
  );
});

Deno.test("encryptBytes() draws a fresh nonce each time (same input, different blobs)", () => {
  const a = encryptBytes(new Uint8Array(10), hex(DOC_KEY));
  const b = encryptBytes(new Uint8Array(10), hex(DOC_KEY));
  assert.notEqual(toHex(a), toHex(b));
  assert.deepEqual(decryptBytes(a, hex(DOC_KEY)), new Uint8Array(10));
});

Deno.test("decryptBytes() refuses with Go's texts: wrong key, altered byte, short data", () => {
  const v = VECTORS[0]!;
  const blob = hex(v.blob);
  const wrongKey = hex(v.key);
  wrongKey[0]! ^= 1;
  const cases: [string, Uint8Array, Uint8Array, string][] = [
    ["wrong key", blob, wrongKey, GCM_AUTH_FAILED],
    [
      "altered nonce",
      Uint8Array.from(blob, (b, i) => (i === 0 ? b ^ 1 : b)),
      hex(v.key),
      GCM_AUTH_FAILED,
    ],
    [
      "altered ciphertext",
      Uint8Array.from(blob, (b, i) => (i === 12 ? b ^ 1 : b)),
      hex(v.key),
      GCM_AUTH_FAILED,
    ],
    [
      "altered tag",
      Uint8Array.from(blob, (b, i) => (i === blob.length - 1 ? b ^ 1 : b)),
      hex(v.key),
      GCM_AUTH_FAILED,
    ],
    ["truncated tag", blob.subarray(0, blob.length - 1), hex(v.key), GCM_AUTH_FAILED],
    ["nonce only", blob.subarray(0, 12), hex(v.key), GCM_AUTH_FAILED],
    ["11 bytes", blob.subarray(0, 11), hex(v.key), SHORTER_THAN_NONCE],
    ["empty", new Uint8Array(), hex(v.key), SHORTER_THAN_NONCE],
  ];
  for (const [what, data, key, text] of cases) {
    assert.throws(
      () => decryptBytes(data, key),
      (e) => e instanceof CheckError && e.message === text,
      what,
    );
  }
});

/** ValidateCertificateKey's texts; Go's hex.DecodeString errors checked against Go below. */
const KEY_ROWS: { what: string; key: string; err?: string }[] = [
  { what: "reference vector 1", key: DOC_KEY },
  { what: "upper case (Go's decoder takes it)", key: DOC_KEY.toUpperCase() },
  {
    what: "31 bytes",
    key: DOC_KEY.slice(2),
    err: "invalid certificate key size 31, the key must be an AES key of size 32",
  },
  {
    what: "33 bytes",
    key: DOC_KEY + "00",
    err: "invalid certificate key size 33, the key must be an AES key of size 32",
  },
  {
    what: "16 bytes (AES-128)",
    key: DOC_KEY.slice(0, 32),
    err: "invalid certificate key size 16, the key must be an AES key of size 32",
  },
  {
    what: "odd length",
    key: DOC_KEY + "0",
    err: "certificate key decoding error: encoding/hex: odd length hex string",
  },
  {
    what: "odd length ending in a non-hex byte",
    key: "abg",
    err: "certificate key decoding error: encoding/hex: invalid byte: U+0067 'g'",
  },
  {
    what: "not hex",
    key: "zz" + DOC_KEY.slice(2),
    err: "certificate key decoding error: encoding/hex: invalid byte: U+007A 'z'",
  },
  {
    what: "a space",
    key: "ab ",
    err: "certificate key decoding error: encoding/hex: invalid byte: U+0020 ' '",
  },
  {
    what: "a control byte",
    key: "a\x01",
    err: "certificate key decoding error: encoding/hex: invalid byte: U+0001",
  },
  {
    what: "non-ASCII (Go reports the first UTF-8 byte)",
    key: "é0",
    err: "certificate key decoding error: encoding/hex: invalid byte: U+00C3 'Ã'",
  },
];

for (const r of KEY_ROWS) {
  Deno.test(`validateCertificateKey() ${r.err ? "refuses" : "accepts"} ${r.what}`, () => {
    assert.equal(validateCertificateKey(r.key), r.err);
    if (r.err) {
      assert.throws(
        () => certificateKeyBytes(r.key),
        (e) => e instanceof UsageError && e.message === `invalid --certificate-key: ${r.err}`,
      );
    } else {
      assert.equal(certificateKeyBytes(r.key).length, 32);
    }
  });
}

Deno.test("certificateKeyBytes() refuses an empty key and never repeats the key", () => {
  assert.throws(() => certificateKeyBytes(""), /--certificate-key must not be empty/);
  const bad = DOC_KEY.slice(2);
  try {
    certificateKeyBytes(bad);
    assert.fail("accepted");
  } catch (e) {
    assert.ok(!(e as Error).message.includes(bad.slice(0, 16)));
  }
});

Deno.test("createCertificateKey() is 32 bytes from the random source as lower-case hex", () => {
  const key = createCertificateKey((n) => Uint8Array.from({ length: n }, (_, i) => 0xa0 + i));
  assert.equal(key, Array.from({ length: 32 }, (_, i) => (0xa0 + i).toString(16)).join(""));
  assert.match(createCertificateKey(), /^[0-9a-f]{64}$/);
  assert.notEqual(createCertificateKey(), createCertificateKey());
});

// ---------------------------------------------------------------------------
// Live cross-checks against independent implementations, when installed.

noteGoAbsent("aes_gcm_test");

/** Deterministic pseudo-random bytes (a seeded xorshift), so failures reproduce. */
function seeded(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) =>
    Uint8Array.from({ length: n }, () => {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      return x & 0xff;
    });
}

Deno.test({
  name: `encryptBytes() and decryptBytes() agree with Go's crypto/cipher both ways (live${
    GO ? "" : "; skipped: go not found"
  })`,
  ignore: !GO,
  fn: () => {
    const tool = goTool();
    const rnd = seeded(0x6a6f696e);
    for (const len of [0, 1, 15, 16, 17, 31, 32, 33, 227, 1675, 4096]) {
      const key = rnd(32);
      const nonce = rnd(12);
      const plain = rnd(len);
      const ours = encryptBytes(plain, key, () => nonce);
      const theirs = execFileSync(tool, ["seal", toHex(key), toHex(nonce), toHex(plain)]).toString()
        .trim();
      assert.equal(toHex(ours), theirs, `length ${len}`);
      const opened = execFileSync(tool, ["open", toHex(key), toHex(ours)]).toString().trim();
      assert.equal(opened, toHex(plain), `Go opens joinkit's blob, length ${len}`);
      assert.equal(toHex(decryptBytes(hex(theirs), key)), toHex(plain));
    }
  },
});

Deno.test({
  name: `goHexDecode() errors are Go's hex.DecodeString texts (live${
    GO ? "" : "; skipped: go not found"
  })`,
  ignore: !GO,
  fn: () => {
    const tool = goTool();
    for (const text of ["abc", "abg", "zz", "é0", "a\x01", "ab ", "0g", "", "0a", "ÿ"]) {
      const r = spawnSync(tool, ["hexerr", text]);
      const goSays = (r.status === 0 ? r.stdout : r.stderr).toString().trim();
      const ours = goHexDecode(text);
      assert.equal(typeof ours === "string" ? ours : "<nil>", goSays, JSON.stringify(text));
    }
  },
});

const PY = spawnSync("python3", ["-c", "import cryptography.hazmat.primitives.ciphers.aead"], {
  stdio: "ignore",
}).status === 0;
if (!PY) {
  process.stderr.write(
    "aes_gcm_test: python3 cryptography not found: its cross-check is skipped\n",
  );
}

Deno.test({
  name: `encryptBytes() agrees with Python cryptography's AESGCM (live${
    PY ? "" : "; skipped: python3 cryptography not found"
  })`,
  ignore: !PY,
  fn: () => {
    const rnd = seeded(42);
    const rows = [0, 5, 64, 1000].map((len) => ({ key: rnd(32), nonce: rnd(12), plain: rnd(len) }));
    const script = `
import sys, json
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
for r in json.load(sys.stdin):
    n = bytes.fromhex(r["nonce"])
    print((n + AESGCM(bytes.fromhex(r["key"])).encrypt(n, bytes.fromhex(r["plain"]), None)).hex())
`;
    const out = execFileSync("python3", ["-c", script], {
      input: JSON.stringify(
        rows.map((r) => ({ key: toHex(r.key), nonce: toHex(r.nonce), plain: toHex(r.plain) })),
      ),
    }).toString().trim().split("\n");
    rows.forEach((r, i) =>
      assert.equal(toHex(encryptBytes(r.plain, r.key, () => r.nonce)), out[i])
    );
  },
});
