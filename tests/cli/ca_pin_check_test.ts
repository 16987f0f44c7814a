import assert from "node:assert/strict";
import * as fs from "node:fs";
import { repoPath, runCli } from "../_cli.ts";

const H1 = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
const H2 = "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971";
const H3 = "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658";
const fx = (f: string) => repoPath("tests/fixtures/pin", f);
const bundle = fs.readFileSync(fx("test-cert2.pem"), "utf8") +
  fs.readFileSync(fx("test-cert.pem"), "utf8");

Deno.test("CLI ca pin-check passes for the upstream pin, format case-insensitive", async () => {
  for (const pin of [H1, H1.toUpperCase()]) {
    const r = await runCli(["ca", "pin-check", "--ca-cert-hash", pin, fx("test-cert.pem")]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `ok: ${fx("test-cert.pem")} matches pin ${H1}\n`);
    assert.equal(r.stderr, "");
  }
});

Deno.test("CLI ca pin-check passes when any pin matches any certificate of a bundle", async () => {
  const r = await runCli(
    ["ca", "pin-check", "--ca-cert-hash", H3, "--ca-cert-hash", H1, "-"],
    { stdin: bundle },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `ok: stdin certificate 2 of 2 matches pin ${H1}\n`);
});

Deno.test("CLI ca pin-check checks the CA of the upstream discovery kubeconfig", async () => {
  const r = await runCli(["ca", "pin-check", "--ca-cert-hash", H3, fx("expected-kubeconfig.yaml")]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `ok: ${fx("expected-kubeconfig.yaml")} matches pin ${H3}\n`);
});

Deno.test("CLI ca pin-check exits 3 with kubeadm's text when nothing is pinned", async () => {
  const r = await runCli(["ca", "pin-check", "--ca-cert-hash", H3, "-"], { stdin: bundle });
  assert.equal(r.code, 3);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, `error: stdin: none of the public keys "${H2}:${H1}" are pinned\n`);
});

const MALFORMED: [string, string][] = [
  ["xyz", `invalid hash, expected "format:hex-value". Known format(s) are: sha256`],
  ["md5:00", `unknown hash format "md5". Known format(s) are: sha256`],
  ["sha256:0011", `invalid hash "sha256:0011", expected a 32 byte SHA-256 hash, found 2 bytes`],
  [
    "sha256:" + "z".repeat(64),
    `invalid hash "sha256:${
      "z".repeat(64)
    }", could not decode SHA-256 from hex: encoding/hex: invalid byte: U+007A 'z'`,
  ],
];
for (const [pin, message] of MALFORMED) {
  Deno.test(`CLI ca pin-check rejects the malformed pin ${pin.slice(0, 16)} (exit 2)`, async () => {
    const r = await runCli([
      "ca",
      "pin-check",
      "--ca-cert-hash",
      H1,
      "--ca-cert-hash",
      pin,
      fx("test-cert.pem"),
    ]);
    // A malformed flag value is a usage error (issue 10's exit-code rule; it was 1).
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `error: invalid discovery token CA certificate hash: ${message}\n`);
  });
}

Deno.test("CLI ca pin-check needs a pin and a file (exit 2)", async () => {
  const a = await runCli(["ca", "pin-check", fx("test-cert.pem")]);
  assert.equal(a.code, 2);
  assert.equal(a.stderr, "error: missing required flag --discovery-token-ca-cert-hash\n");
  const b = await runCli(["ca", "pin-check", "--ca-cert-hash", H1]);
  assert.equal(b.code, 2);
  assert.equal(b.stderr, "error: missing argument: FILE\n");
});

Deno.test("CLI ca pin-check reports unreadable and wrong inputs with exit 1", async () => {
  const a = await runCli(["ca", "pin-check", "--ca-cert-hash", H1, "missing.crt"]);
  assert.equal(a.code, 1);
  assert.equal(a.stderr, "error: missing.crt: no such file or directory\n");
  const b = await runCli(["ca", "pin-check", "--ca-cert-hash", H1, "-"], {
    stdin: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
  });
  assert.equal(b.code, 1);
  assert.equal(
    b.stderr,
    "error: stdin: no certificate found (found RSA PRIVATE KEY): data does not contain any valid RSA or ECDSA certificates\n",
  );
});
