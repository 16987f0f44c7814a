import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { joinCommand } from "../../lib/discovery/join_command.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const UPSTREAM_CA = repoPath("tests/fixtures/discovery/ca-cert.pem");
const UPSTREAM_HASH = "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658";
const T = "abcdef.0123456789abcdef";
const H1 = "sha256:" + "a".repeat(64);
const H2 = "sha256:" + "b".repeat(64);
const KEY = "f".repeat(64);

Deno.test("joinCommand() prints kubeadm's one-line forms", () => {
  assert.equal(
    joinCommand({ hostPort: "10.0.0.1:6443", token: T, caCertHashes: [H1] }),
    `kubeadm join 10.0.0.1:6443 --token ${T} --discovery-token-ca-cert-hash ${H1} \n`,
  );
  assert.equal(
    joinCommand({ hostPort: "10.0.0.1:6443", token: T, caCertHashes: [H1, H2] }),
    `kubeadm join 10.0.0.1:6443 --token ${T} --discovery-token-ca-cert-hash ${H1} --discovery-token-ca-cert-hash ${H2} \n`,
  );
  assert.equal(
    joinCommand({ hostPort: "10.0.0.1:6443", token: T, caCertHashes: [H1], certificateKey: KEY }),
    `kubeadm join 10.0.0.1:6443 --token ${T} --discovery-token-ca-cert-hash ${H1} --control-plane --certificate-key ${KEY}\n`,
  );
  assert.equal(
    joinCommand({ hostPort: "[fd00::1]:6443", token: T, caCertHashes: [H1], controlPlane: true }),
    `kubeadm join [fd00::1]:6443 --token ${T} --discovery-token-ca-cert-hash ${H1} --control-plane \n`,
  );
  assert.throws(
    () => joinCommand({ hostPort: "a:1", token: T, caCertHashes: [H1], certificateKey: "xyz" }),
    /certificate-key/,
  );
});

function opensslPin(file: string): string {
  const pub = execFileSync("openssl", ["x509", "-pubkey", "-noout", "-in", file]);
  const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "der"], { input: pub });
  const hex = execFileSync("openssl", ["dgst", "-sha256", "-hex"], { input: der }).toString();
  return "sha256:" + hex.trim().split(" ").pop();
}

Deno.test("CLI join-command hashes every CA certificate as openssl does", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = await runCli(["join-command", "--server", "10.0.0.1:6443", "--token", T, "--ca", CA]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(
      r.stdout,
      `kubeadm join 10.0.0.1:6443 --token ${T} --discovery-token-ca-cert-hash ${opensslPin(CA)} \n`,
    );

    assert.equal(opensslPin(UPSTREAM_CA), UPSTREAM_HASH);
    const bundle = path.join(dir, "bundle.crt");
    fs.writeFileSync(
      bundle,
      fs.readFileSync(CA, "utf8") + fs.readFileSync(UPSTREAM_CA, "utf8") + "\n",
    );
    const b = await runCli([
      "join-command",
      "--server",
      "https://cp.example.com:443",
      "--token",
      T,
      "--ca",
      bundle,
      "--certificate-key",
      KEY,
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(
      b.stdout,
      `kubeadm join cp.example.com:443 --token ${T} --discovery-token-ca-cert-hash ${
        opensslPin(CA)
      } --discovery-token-ca-cert-hash ${UPSTREAM_HASH} --control-plane --certificate-key ${KEY}\n`,
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI join-command rejects bad server, token, key and CA", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const empty = path.join(dir, "empty.crt");
    fs.writeFileSync(empty, "");
    const cases: [string[], number, RegExp][] = [
      [["--server", "10.0.0.1", "--token", T, "--ca", CA], 2, /want HOST:PORT/],
      [
        ["--server", "10.0.0.1:0", "--token", T, "--ca", CA],
        2,
        /port must be a number from 1 to 65535/,
      ],
      [["--server", "10.0.0.1:99999", "--token", T, "--ca", CA], 2, /port/],
      [["--server", "bad_host:6443", "--token", T, "--ca", CA], 2, /invalid host/],
      [
        ["--server", "10.0.0.1:6443", "--token", "abcdef.0123456789ABCDEF", "--ca", CA],
        2,
        /invalid --token/,
      ],
      [
        ["--server", "10.0.0.1:6443", "--token", T, "--ca", CA, "--certificate-key", "beef"],
        2,
        /64 hex/,
      ],
      [
        ["--server", "10.0.0.1:6443", "--token", T, "--ca", empty],
        1,
        /empty\.crt: no certificate found/,
      ],
    ];
    for (const [args, code, re] of cases) {
      const r = await runCli(["join-command", ...args]);
      assert.equal(r.code, code, args.join(" ") + ": " + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /^error: [^\n]+\n$/);
      assert.match(r.stderr, re);
      assert.ok(!r.stderr.includes("0123456789"));
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI join-command pins what Go loads from --ca and refuses a non-CA first certificate", async () => {
  const leaf = repoPath("tests/fixtures/discovery/leaf-not-ca.pem");
  const r = await runCli(["join-command", "--server", "10.0.0.1:6443", "--token", T, "--ca", leaf]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, `error: ${leaf}: ca certificate is not a certificate authority\n`);
  const { dir, cleanup } = tempDir();
  try {
    // A CERTIFICATE block with headers is skipped by ParseCertsPEM: not pinned.
    const file = path.join(dir, "ca.pem");
    const other = fs.readFileSync(CA, "utf8").replace(
      "-----\n",
      "-----\nProc-Type: 4,ENCRYPTED\n\n",
    );
    fs.writeFileSync(file, fs.readFileSync(UPSTREAM_CA, "utf8").trimEnd() + "\n" + other);
    const ok = await runCli([
      "join-command",
      "--server",
      "10.0.0.1:6443",
      "--token",
      T,
      "--ca",
      file,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(
      ok.stdout,
      `kubeadm join 10.0.0.1:6443 --token ${T} --discovery-token-ca-cert-hash ${UPSTREAM_HASH} \n`,
    );
  } finally {
    cleanup();
  }
});
