import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";

function sh(cmd: string, input?: string): string {
  return execFileSync("sh", ["-c", cmd], { input, stdio: ["pipe", "pipe", "pipe"] }).toString();
}

const TYPES: [string, string, string][] = [
  ["rsa-2048", "RSA PRIVATE KEY", "sha256WithRSAEncryption"],
  ["ecdsa-p256", "EC PRIVATE KEY", "ecdsa-with-SHA256"],
  ["ecdsa-p384", "EC PRIVATE KEY", "ecdsa-with-SHA384"],
  ["ed25519", "PRIVATE KEY", "ED25519"],
];

for (const [type, label, sigalg] of TYPES) {
  Deno.test(`CLI ca create --key-type ${type} makes a CA openssl accepts`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = path.join(dir, "pki");
      const r = await runCli([
        "ca",
        "create",
        "--out-dir",
        out,
        "--key-type",
        type,
        "--now",
        "2026-03-01T12:00:00Z",
        "--validity",
        "87600h",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "");
      const crt = path.join(out, "ca.crt");
      const key = path.join(out, "ca.key");
      const lines = r.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 3);
      assert.match(
        lines[0]!,
        new RegExp(
          `^wrote ${crt}: CN=kubernetes, .*, serial [0-9a-f]+, valid 2026-03-01T11:55:00Z to 2036-02-27T12:00:00Z$`,
        ),
      );
      assert.equal(lines[1], `wrote ${key} (mode 0600)`);
      assert.ok(!r.stderr.includes("PRIVATE"), "no key material on stderr");
      // modes
      assert.equal(fs.statSync(out).mode & 0o777, 0o700);
      assert.equal(fs.statSync(crt).mode & 0o777, 0o644);
      assert.equal(fs.statSync(key).mode & 0o777, 0o600);
      assert.ok(fs.readFileSync(key, "utf8").startsWith(`-----BEGIN ${label}-----\n`));
      // the pin: openssl pipeline == ca hash == the hash printed by ca create
      const hex = sh(
        `openssl x509 -pubkey -noout -in '${crt}' | openssl pkey -pubin -outform der | openssl dgst -sha256 -r`,
      ).split(" ")[0];
      const hash = await runCli(["ca", "hash", crt]);
      assert.equal(hash.code, 0, hash.stderr);
      assert.equal(hash.stdout, `sha256:${hex}\n`);
      assert.equal(lines[2], `CA cert hash: sha256:${hex}`);
      // self-signature verifies, key loads and is the certificate's key
      assert.equal(sh(`openssl verify -CAfile '${crt}' '${crt}'`), `${crt}: OK\n`);
      sh(`openssl pkey -in '${key}' -noout`);
      assert.equal(
        sh(`openssl pkey -in '${key}' -pubout`),
        sh(`openssl x509 -in '${crt}' -noout -pubkey`),
      );
      // extensions and validity
      const text = sh(`openssl x509 -in '${crt}' -noout -text`);
      assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
      assert.match(
        text,
        /X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment, Certificate Sign\n/,
      );
      assert.match(text, /X509v3 Subject Key Identifier: \n\s+([0-9A-F]{2}:){19}[0-9A-F]{2}\n/);
      assert.match(text, /X509v3 Subject Alternative Name: \n\s+DNS:kubernetes\n/);
      assert.match(text, /Issuer: CN ?= ?kubernetes\n/);
      assert.match(text, /Subject: CN ?= ?kubernetes\n/);
      assert.match(text, /Not Before: Mar {2}1 11:55:00 2026 GMT/);
      assert.match(text, /Not After : Feb 27 12:00:00 2036 GMT/);
      assert.match(text, new RegExp(`Signature Algorithm: ${sigalg}`, "i"));
      assert.doesNotMatch(text, /Authority Key Identifier|Extended Key Usage/);
      const serial = sh(`openssl x509 -in '${crt}' -noout -serial`).trim().split("=")[1]!;
      const n = BigInt("0x" + serial);
      assert.ok(n >= 1n && n < (1n << 63n) - 1n, serial);
    } finally {
      cleanup();
    }
  });
}

Deno.test("CLI ca create defaults to RSA 2048 and CN kubernetes; --cn changes subject and SAN", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = await runCli(["ca", "create", "--out-dir", dir, "--cn", "my-ca", "--validity", "1h"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /CN=my-ca, RSA 2048, serial/);
    const text = sh(`openssl x509 -in '${dir}/ca.crt' -noout -text`);
    assert.match(text, /Public-Key: \(2048 bit\)/);
    assert.match(text, /Subject: CN ?= ?my-ca\n/);
    assert.match(text, /DNS:my-ca\n/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI ca create refuses to overwrite without --force and leaves files unchanged", async () => {
  const { dir, cleanup } = tempDir();
  try {
    fs.writeFileSync(path.join(dir, "ca.key"), "keep me\n", { mode: 0o600 });
    const r = await runCli(["ca", "create", "--out-dir", dir, "--key-type", "ecdsa-p256"]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      `error: ${path.join(dir, "ca.key")}: already exists (use --force to overwrite)\n`,
    );
    assert.equal(fs.readFileSync(path.join(dir, "ca.key"), "utf8"), "keep me\n");
    assert.equal(fs.existsSync(path.join(dir, "ca.crt")), false, "nothing half-written");
    assert.deepEqual(fs.readdirSync(dir), ["ca.key"], "no temporary files left");
    const f = await runCli([
      "ca",
      "create",
      "--out-dir",
      dir,
      "--key-type",
      "ecdsa-p256",
      "--force",
    ]);
    assert.equal(f.code, 0, f.stderr);
    assert.match(fs.readFileSync(path.join(dir, "ca.key"), "utf8"), /BEGIN EC PRIVATE KEY/);
  } finally {
    cleanup();
  }
});

const USAGE: [string, string[], string][] = [
  [
    "bad --validity",
    ["--validity", "10y"],
    'error: invalid argument "10y" for "--validity" flag: invalid duration "10y": unknown unit "y"\n',
  ],
  [
    "zero --validity",
    ["--validity", "0"],
    'error: invalid argument "0" for "--validity" flag: must be at least 1s\n',
  ],
  [
    "negative --validity",
    ["--validity=-1h"],
    'error: invalid argument "-1h" for "--validity" flag: must be at least 1s\n',
  ],
  [
    "bad --ttl",
    ["--ttl", "10y"],
    'error: invalid argument "10y" for "--ttl" flag: invalid duration "10y": unknown unit "y"\n',
  ],
  [
    "--ttl and its old name --validity together",
    ["--ttl", "1h", "--validity", "1h"],
    "error: --ttl and --validity are the same flag: give one\n",
  ],
  ["empty --out-dir", ["--out-dir", ""], "error: --out-dir must not be empty\n"],
  ["bad -o", ["-o", "xml"], 'error: --output must be one of json|yaml, got "xml"\n'],
  [
    "bad --key-type",
    ["--key-type", "rsa-1024"],
    'error: --key-type must be one of rsa-2048|rsa-3072|rsa-4096|ecdsa-p256|ecdsa-p384|ed25519, got "rsa-1024"\n',
  ],
  ["empty --cn", ["--cn", ""], "error: --cn must not be empty\n"],
  // Go's CreateCertificate on kubeadm's template (DNSNames: the CN), as Go 1.23 words it.
  [
    "a non-ASCII --cn",
    ["--cn", "日本"],
    'error: --cn: x509: "日本" cannot be encoded as an IA5String\n',
  ],
  ["a --cn with é", ["--cn", "é"], 'error: --cn: x509: "é" cannot be encoded as an IA5String\n'],
  ["an argument", ["extra"], 'error: unexpected argument "extra"\n'],
];
for (const [what, args, stderr] of USAGE) {
  Deno.test(`CLI ca create rejects ${what} with exit 2 and writes nothing`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const r = await runCli(["ca", "create", "--out-dir", path.join(dir, "pki"), ...args]);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, stderr);
      assert.equal(fs.existsSync(path.join(dir, "pki")), false);
    } finally {
      cleanup();
    }
  });
}

Deno.test("CLI ca create needs --out-dir (exit 2)", async () => {
  const r = await runCli(["ca", "create"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "error: missing required flag --out-dir\n");
});

Deno.test("CLI ca create fails cleanly when --out-dir is a file (exit 1)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "x");
    const r = await runCli(["ca", "create", "--out-dir", file, "--key-type", "ed25519"]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, new RegExp(`^error: ${file}: (already exists|not a directory)\\n$`));
  } finally {
    cleanup();
  }
});
