/**
 * `csr approve` with RE2 policy regexes through the CLI: Go-only syntax
 * approves, syntax Go refuses is refused with Go's text and the documented
 * exit code, `(?m)` does not end a line at `\r`, and a backtracking blow-up
 * pattern is judged (linear-time matching).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import { exportSpki, generateKeyPair } from "../../lib/pki/keys.ts";
import { createCsr, csrPem } from "../../lib/kubelet/csr.ts";
import { parseManifests, toYaml } from "../../lib/k8s/manifest.ts";

const NOW = "2026-05-06T07:08:09Z";
const R6 = "The SAN DNS name in the x509 CR is not allowed by the Cloud provider regex";
const kp = await generateKeyPair("ecdsa-p256");
const spki = await exportSpki(kp.publicKey);

/** A kubelet-serving CSR object of node `node` with one DNS SAN. */
async function servingCsr(node: string, dns: string) {
  const pem = csrPem(
    await createCsr(kp.privateKey, spki, {
      commonName: `system:node:${node}`,
      organization: ["system:nodes"],
      dns: [dns],
    }),
  );
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: `serving-${node}` },
    spec: {
      groups: ["system:nodes", "system:authenticated"],
      request: Buffer.from(pem).toString("base64"),
      signerName: "kubernetes.io/kubelet-serving",
      usages: ["digital signature", "server auth"],
      username: `system:node:${node}`,
    },
  };
}

const { dir, cleanup } = tempDir("joinkit-regexp-cli-");
globalThis.addEventListener("unload", cleanup);
const p = (n: string) => path.join(dir, n);
fs.writeFileSync(p("node-1.yaml"), toYaml(await servingCsr("node-1", "node-1.nodes.example.com")));
fs.writeFileSync(p("cr.yaml"), toYaml(await servingCsr("node-1", "node-1.example.com\revil.io")));
fs.writeFileSync(p("lf.yaml"), toYaml(await servingCsr("node-1", "node-1.example.com")));
fs.writeFileSync(p("long.yaml"), toYaml(await servingCsr("a", "a".repeat(100_000) + "!")));

/** Writes a policy file with `providerRegex` (as a YAML single-quoted scalar) and DNS bypassed. */
function policy(name: string, regex: string): string {
  fs.writeFileSync(
    p(name),
    `providerRegex: '${regex.replaceAll("'", "''")}'\nbypassDnsResolution: true\n`,
  );
  return p(name);
}

/** The one stderr line of a CSR refused with kubelet-csr-approver's reason R6. */
const refusedR6 = (stderr: string, file: string) => {
  assert.equal(stderr.split("\n").length, 2, stderr);
  assert.ok(stderr.startsWith(`error: ${file}`), stderr);
  assert.ok(stderr.endsWith(`: not approved: ${R6}\n`), stderr);
};

const approved = (stdout: string) =>
  (parseManifests(stdout)[0] as { status?: { conditions?: { type: string }[] } }).status
    ?.conditions?.[0]?.type;

Deno.test("CLI csr approve: a providerRegex in Go-only RE2 syntax approves", async () => {
  const regexes = [
    String.raw`^node\-1\.nodes\.example\.com$`,
    String.raw`^[[:alpha:]]+\-\d\Q.nodes.example.com\E$`,
    String.raw`^(?i:NODE)-\x{31}\.nodes\.example\.com$`,
    String.raw`^\pL+-1\.(?P<zone>nodes)\.example\.com$`,
    String.raw`^[^]\s]+\.example\.com$`,
  ];
  for (const [i, re] of regexes.entries()) {
    const r = await runCli([
      "csr",
      "approve",
      p("node-1.yaml"),
      "--policy",
      policy(`go-${i}.yaml`, re),
      "--now",
      NOW,
    ]);
    assert.equal(r.code, 0, `${re}: ${r.stderr}`);
    assert.equal(r.stderr, "");
    assert.equal(approved(r.stdout), "Approved", re);
  }
});

Deno.test("CLI csr approve: syntax Go refuses is refused with regexp.Compile's text (file: exit 1, flag: exit 2)", async () => {
  const cases: [string, string][] = [
    [String.raw`^node\u002d1`, "error parsing regexp: invalid escape sequence: `\\u`"],
    [String.raw`^node\cJ`, "error parsing regexp: invalid escape sequence: `\\c`"],
    ["^n{1001}", "error parsing regexp: invalid repeat count: `{1001}`"],
    [
      String.raw`^\p{Alphabetic}`,
      "error parsing regexp: invalid character class range: `\\p{Alphabetic}`",
    ],
  ];
  for (const [i, [re, msg]] of cases.entries()) {
    const file = policy(`bad-${i}.yaml`, re);
    const r = await runCli(["csr", "approve", p("node-1.yaml"), "--policy", file, "--now", NOW]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `error: ${file}: providerRegex: ${msg}\n`);
    const f = await runCli(["csr", "approve", p("node-1.yaml"), "--provider-regex", re]);
    assert.equal(f.code, 2, f.stderr);
    assert.equal(f.stdout, "");
    assert.equal(f.stderr, `error: --provider-regex: ${msg}\n`);
  }
});

Deno.test("CLI csr approve: with (?m) a line ends only at \\n, so a SAN with \\r is refused (R6)", async () => {
  const r = await runCli([
    "csr",
    "approve",
    p("cr.yaml"),
    "--policy",
    policy("multiline.yaml", String.raw`(?m)^node-1\.example\.com$`),
    "--now",
    NOW,
  ]);
  assert.equal(r.code, 3, r.stderr);
  refusedR6(r.stderr, p("cr.yaml"));
  assert.equal(approved(r.stdout), undefined);
  // The same policy approves the name without the \r.
  const ok = await runCli([
    "csr",
    "approve",
    p("lf.yaml"),
    "--policy",
    p("multiline.yaml"),
    "--now",
    NOW,
  ]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(approved(ok.stdout), "Approved");
});

Deno.test("CLI csr approve: ^(a+)+$ against a 100 KB DNS SAN is judged (no backtracking)", async () => {
  const r = await runCli([
    "csr",
    "approve",
    p("long.yaml"),
    "--policy",
    policy("blowup.yaml", "^(a+)+$"),
    "--now",
    NOW,
  ]);
  assert.equal(r.code, 3, r.stderr);
  refusedR6(r.stderr, p("long.yaml"));
});

Deno.test("CLI csr sign --approve --policy: the same RE2 rules (Go-only syntax signs, \\u refused)", async () => {
  const ca = await runCli(["ca", "create", "--out-dir", p("ca"), "--now", NOW]);
  assert.equal(ca.code, 0, ca.stderr);
  const sign = (policyFile: string) =>
    runCli([
      "csr",
      "sign",
      p("node-1.yaml"),
      "--ca",
      p("ca/ca.crt"),
      "--ca-key",
      p("ca/ca.key"),
      "--approve",
      "--policy",
      policyFile,
      "--now",
      NOW,
    ]);
  const ok = await sign(policy("sign-go.yaml", String.raw`^node\-1\Q.nodes.\E[[:alpha:]]+\.com$`));
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stderr, "");
  const obj = parseManifests(ok.stdout)[0] as { status?: { certificate?: string } };
  assert.equal(approved(ok.stdout), "Approved");
  assert.ok(obj.status?.certificate);
  const file = policy("sign-js.yaml", String.raw`^node\u002d1`);
  const bad = await sign(file);
  assert.equal(bad.code, 1, bad.stderr);
  assert.equal(bad.stdout, "");
  assert.equal(
    bad.stderr,
    `error: ${file}: providerRegex: error parsing regexp: invalid escape sequence: \`\\u\`\n`,
  );
});
