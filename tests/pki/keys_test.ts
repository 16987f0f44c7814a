import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  describeKey,
  exportPrivateKeyPem,
  exportSpki,
  generateKeyPair,
  importPrivateKeyPem,
  KEY_TYPES,
  type KeyType,
  publicKeyMatches,
  signingAlgorithm,
} from "../../lib/pki/keys.ts";
import { InputError } from "../../lib/base/errors.ts";
import { repoPath, tempDir } from "../_cli.ts";

const EXPECT: Record<KeyType, { label: string; description: string }> = {
  "rsa-2048": { label: "RSA PRIVATE KEY", description: "RSA 2048" },
  "rsa-3072": { label: "RSA PRIVATE KEY", description: "RSA 3072" },
  "rsa-4096": { label: "RSA PRIVATE KEY", description: "RSA 4096" },
  "ecdsa-p256": { label: "EC PRIVATE KEY", description: "ECDSA P-256" },
  "ecdsa-p384": { label: "EC PRIVATE KEY", description: "ECDSA P-384" },
  "ed25519": { label: "PRIVATE KEY", description: "Ed25519" },
};

function openssl(args: string[], input?: string): string {
  return execFileSync("openssl", args, { input, stdio: ["pipe", "pipe", "pipe"] }).toString();
}

for (const type of KEY_TYPES) {
  Deno.test(`exportPrivateKeyPem() writes ${type} as kubeadm does and openssl reads it`, async () => {
    const pair = await generateKeyPair(type);
    assert.equal(describeKey(pair.privateKey), EXPECT[type].description);
    const pem = await exportPrivateKeyPem(pair.privateKey);
    assert.ok(pem.startsWith(`-----BEGIN ${EXPECT[type].label}-----\n`), pem.slice(0, 40));
    openssl(["pkey", "-noout"], pem);
    // openssl's public key equals ours
    const pub = execFileSync("openssl", ["pkey", "-pubout", "-outform", "der"], { input: pem });
    const spki = await exportSpki(pair.publicKey);
    assert.ok(publicKeyMatches(new Uint8Array(pub), spki));
    // round trip
    const loaded = await importPrivateKeyPem(pem, "k.pem");
    assert.equal(loaded.description, EXPECT[type].description);
    assert.ok(publicKeyMatches(loaded.spki, spki));
    const alg = signingAlgorithm(loaded.privateKey);
    const data = new Uint8Array([1, 2, 3]);
    const sig = await crypto.subtle.sign(alg, loaded.privateKey, data);
    assert.ok(await crypto.subtle.verify(alg, pair.publicKey, sig, data));
  });
}

Deno.test("signingAlgorithm() picks Go's hash per curve", async () => {
  assert.deepEqual(signingAlgorithm((await generateKeyPair("ecdsa-p256")).privateKey), {
    name: "ECDSA",
    hash: "SHA-256",
  });
  assert.deepEqual(signingAlgorithm((await generateKeyPair("ecdsa-p384")).privateKey), {
    name: "ECDSA",
    hash: "SHA-384",
  });
});

const OPENSSL_KEYS: [string, string[], string][] = [
  ["PKCS#1 RSA", ["genrsa", "-traditional", "2048"], "RSA 2048"],
  ["PKCS#8 RSA", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], "RSA 2048"],
  ["SEC1 P-256", ["ecparam", "-name", "prime256v1", "-genkey", "-noout"], "ECDSA P-256"],
  [
    "PKCS#8 P-384",
    ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
    "ECDSA P-384",
  ],
  ["SEC1 P-521", ["ecparam", "-name", "secp521r1", "-genkey", "-noout"], "ECDSA P-521"],
  ["PKCS#8 Ed25519", ["genpkey", "-algorithm", "ed25519"], "Ed25519"],
];
for (const [what, args, description] of OPENSSL_KEYS) {
  Deno.test(`importPrivateKeyPem() reads an openssl ${what} key`, async () => {
    const pem = openssl(args);
    const key = await importPrivateKeyPem(pem, "k.pem");
    assert.equal(key.description, description);
    const pub = execFileSync("openssl", ["pkey", "-pubout", "-outform", "der"], { input: pem });
    assert.ok(publicKeyMatches(key.spki, new Uint8Array(pub)));
  });
}

function rejects(text: string, message: RegExp) {
  return async () => {
    await assert.rejects(importPrivateKeyPem(text, "ca.key"), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, message);
      assert.ok(!e.message.includes("MII"), "no key material in errors");
      return true;
    });
  };
}

Deno.test(
  "importPrivateKeyPem() refuses a PKCS#8 encrypted key",
  rejects(
    openssl([
      "genpkey",
      "-algorithm",
      "EC",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-aes256",
      "-pass",
      "pass:x",
    ]),
    /^ca\.key: encrypted private keys are not supported/,
  ),
);

Deno.test(
  "importPrivateKeyPem() refuses a legacy Proc-Type encrypted key",
  rejects(
    openssl(["genrsa", "-traditional", "-aes128", "-passout", "pass:x", "2048"]),
    /^ca\.key: encrypted private keys are not supported/,
  ),
);

Deno.test(
  "importPrivateKeyPem() refuses an unsupported curve",
  rejects(
    openssl(["ecparam", "-name", "secp256k1", "-genkey", "-noout"]),
    /^ca\.key: unsupported EC curve secp256k1$/,
  ),
);

Deno.test(
  "importPrivateKeyPem() refuses an X25519 key",
  rejects(
    openssl(["genpkey", "-algorithm", "x25519"]),
    /^ca\.key: unsupported private key type x25519$/,
  ),
);

Deno.test(
  "importPrivateKeyPem() names what it found when there is no key",
  rejects(
    fs.readFileSync(repoPath("tests/fixtures/pin/ca-cert.pem"), "utf8"),
    /^ca\.key: no private key found \(found CERTIFICATE\)$/,
  ),
);

Deno.test(
  "importPrivateKeyPem() reports a corrupt key without its bytes",
  rejects(
    "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----\n",
    /^ca\.key: malformed RSA PRIVATE KEY block$/,
  ),
);

Deno.test("exportPrivateKeyPem() and importPrivateKeyPem() work the same on Node 20 (bundled with esbuild)", () => {
  const { dir, cleanup } = tempDir();
  try {
    const driver = path.join(dir, "driver.ts");
    fs.writeFileSync(
      driver,
      `import { generateKeyPair, exportPrivateKeyPem, importPrivateKeyPem, KEY_TYPES } from ${
        JSON.stringify(repoPath("lib/pki/keys.ts"))
      };
const out = [];
for (const t of KEY_TYPES.filter((t) => t !== "rsa-4096" && t !== "rsa-3072")) {
  const pem = await exportPrivateKeyPem((await generateKeyPair(t)).privateKey);
  const k = await importPrivateKeyPem(pem, "k");
  out.push(pem.split("\\n")[0] + " " + k.description);
}
console.log(out.join("|"));
`,
    );
    const bundle = path.join(dir, "driver.mjs");
    execFileSync(repoPath("node_modules/.bin/esbuild"), [
      driver,
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--log-level=error",
      `--outfile=${bundle}`,
    ]);
    const out = execFileSync("node", [bundle], { stdio: ["pipe", "pipe", "pipe"] }).toString();
    assert.equal(
      out.trim(),
      [
        "-----BEGIN RSA PRIVATE KEY----- RSA 2048",
        "-----BEGIN EC PRIVATE KEY----- ECDSA P-256",
        "-----BEGIN EC PRIVATE KEY----- ECDSA P-384",
        "-----BEGIN PRIVATE KEY----- Ed25519",
      ].join("|"),
    );
  } finally {
    cleanup();
  }
});
