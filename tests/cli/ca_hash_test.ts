import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const H1 = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
const H2 = "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971";
const H3 = "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658";
const fx = (f: string) => repoPath("tests/fixtures/pin", f);

Deno.test("CLI ca hash prints the upstream pins, one line per certificate, in order", async () => {
  const r = await runCli([
    "ca",
    "hash",
    fx("test-cert.pem"),
    fx("test-cert2.pem"),
    fx("ca-cert.pem"),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${H1}\n${H2}\n${H3}\n`);
  assert.equal(r.stderr, "");
});

Deno.test("CLI ca hash reads a bundle from stdin by default and with -", async () => {
  const bundle = fs.readFileSync(fx("test-cert2.pem"), "utf8") + fs.readFileSync(fx("ca-cert.pem"));
  for (const args of [[], ["-"]]) {
    const r = await runCli(["ca", "hash", ...args], { stdin: bundle });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${H2}\n${H3}\n`);
  }
});

Deno.test("CLI ca hash reads DER, a kubeconfig and a cluster-info ConfigMap", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const der = path.join(dir, "ca.der");
    execFileSync("openssl", ["x509", "-in", fx("test-cert.pem"), "-outform", "der", "-out", der]);
    const kc = fs.readFileSync(fx("expected-kubeconfig.yaml"), "utf8");
    const cm = path.join(dir, "cluster-info.json");
    fs.writeFileSync(
      cm,
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cluster-info", namespace: "kube-public" },
        data: { kubeconfig: kc },
      }),
    );
    const r = await runCli(["ca", "hash", der, fx("expected-kubeconfig.yaml"), cm]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${H1}\n${H3}\n${H3}\n`);
  } finally {
    cleanup();
  }
});

Deno.test("CLI ca hash equals the openssl pipeline for an openssl-made EC certificate", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const crt = path.join(dir, "ec.crt");
    execFileSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-384",
      "-nodes",
      "-keyout",
      path.join(dir, "ec.key"),
      "-subj",
      "/CN=x",
      "-days",
      "1",
      "-out",
      crt,
    ], { stdio: "pipe" });
    const hex = execFileSync("sh", [
      "-c",
      `openssl x509 -pubkey -noout -in '${crt}' | openssl pkey -pubin -outform der | openssl dgst -sha256 -r`,
    ]).toString().split(" ")[0];
    const r = await runCli(["ca", "hash", crt]);
    assert.equal(r.stdout, `sha256:${hex}\n`);
  } finally {
    cleanup();
  }
});

const BAD: [string, () => [string[], string | undefined], string][] = [
  [
    "a missing file",
    () => [["nope.crt"], undefined],
    "error: nope.crt: no such file or directory\n",
  ],
  [
    "a directory",
    () => [[repoPath("tests/fixtures/pin")], undefined],
    `error: ${repoPath("tests/fixtures/pin")}: is a directory, expected a file\n`,
  ],
  [
    "a truncated PEM",
    () => [["-"], fs.readFileSync(fx("test-cert.pem"), "utf8").slice(0, 200)],
    "error: stdin: no certificate found: data does not contain any valid RSA or ECDSA certificates\n",
  ],
  [
    "a private key instead of a certificate",
    () => [["-"], "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"],
    "error: stdin: no certificate found (found EC PRIVATE KEY): data does not contain any valid RSA or ECDSA certificates\n",
  ],
  [
    "garbage",
    () => [["-"], "not a certificate\n"],
    "error: stdin: no certificate found (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)\n",
  ],
  ["empty stdin", () => [["-"], ""], "error: stdin: empty input\n"],
];
for (const [what, make, stderr] of BAD) {
  Deno.test(`CLI ca hash rejects ${what} with exit 1 and one line`, async () => {
    const [args, stdin] = make();
    const r = await runCli(["ca", "hash", ...args], stdin === undefined ? {} : { stdin });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, stderr);
  });
}

Deno.test("CLI ca hash stops at the first bad input and prints nothing", async () => {
  const r = await runCli(["ca", "hash", fx("test-cert.pem"), "nope.crt"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
});

Deno.test("CLI ca hash reads a bundle as Go's ParseCertsPEM: invisible, skipped and fatal blocks", async () => {
  const a = fs.readFileSync(fx("test-cert.pem"), "utf8");
  const hA = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
  const broken = await runCli(["ca", "hash"], {
    stdin: a + "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
  });
  assert.equal(broken.code, 0, broken.stderr);
  assert.equal(broken.stdout, hA + "\n");
  const garbage = await runCli(["ca", "hash"], {
    stdin: a + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
  });
  assert.equal(garbage.code, 1);
  assert.equal(garbage.stdout, "");
  assert.equal(garbage.stderr, "error: stdin: x509: malformed certificate\n");
});

Deno.test("CLI ca hash hashes certificates that are not CAs (a hash tool)", async () => {
  const r = await runCli(["ca", "hash", repoPath("tests/fixtures/discovery/leaf-not-ca.pem")]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    "sha256:5f60732720988ea334544b9b719c272af86641264972d6754db5d5f688c10da4\n",
  );
});
