/**
 * The offline CSR flow chains (issue 19, class 9): `csr create --requester`
 * records the requester as kube-apiserver would, `csr approve` approves it
 * without hand-editing (several files and directories at once), and
 * `csr sign` then signs what was approved (and only that).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";

const NOW = ["--now", "2026-01-01T00:00:00Z"];
const { dir, cleanup } = tempDir("joinkit-csr-chain-");
globalThis.addEventListener("unload", cleanup);
const ca = opensslCa(dir, "ca");

/** `csr create` for `node` into `dir/<sub>`, its object written next to the key as csr.yaml. */
async function create(sub: string, node: string, more: string[]): Promise<string> {
  const d = path.join(dir, sub);
  const r = await runCli(["csr", "create", "--node", node, "--out-dir", d, ...more]);
  assert.equal(r.code, 0, r.stderr);
  fs.writeFileSync(path.join(d, "csr.yaml"), r.stdout);
  return path.join(d, "csr.yaml");
}

const conditionTypes = (o: Record<string, unknown>) =>
  ((o.status as { conditions?: { type: string; reason: string }[] } | undefined)?.conditions ?? [])
    .map((c) => `${c.type}/${c.reason}`);

Deno.test("CLI csr create --requester: the bootstrap kubelet's CSR is approved (nodeclient) and signed", async () => {
  const file = await create("boot", "w1", [
    "--requester",
    "system:bootstrap:abcdef",
    "--groups",
    "system:bootstrappers:kubeadm:default-node-token",
  ]);
  const obj = parseManifests(fs.readFileSync(file, "utf8"), file)[0]!;
  assert.deepEqual(
    obj.spec && {
      username: (obj.spec as Record<string, unknown>).username,
      groups: (obj.spec as Record<string, unknown>).groups,
    },
    {
      username: "system:bootstrap:abcdef",
      groups: [
        "system:bootstrappers",
        "system:bootstrappers:kubeadm:default-node-token",
        "system:authenticated",
      ],
    },
  );
  const approved = path.join(dir, "boot-approved.yaml");
  const a = await runCli(["csr", "approve", file, "--out", approved, ...NOW]);
  assert.deepEqual([a.code, a.stderr], [0, ""]);
  assert.deepEqual(conditionTypes(parseManifests(fs.readFileSync(approved, "utf8"), "a")[0]!), [
    "Approved/AutoApproved",
  ]);
  const s = await runCli(["csr", "sign", approved, "--ca", ca.crt, "--ca-key", ca.key, ...NOW]);
  assert.equal(s.code, 0, s.stderr);
  assert.ok((parseManifests(s.stdout, "s")[0]!.status as Record<string, unknown>).certificate);
});

Deno.test("CLI csr create without --requester is left pending by csr approve; --groups needs --requester", async () => {
  const file = await create("plain", "w1", []);
  const a = await runCli(["csr", "approve", file, ...NOW]);
  assert.equal(a.code, 3);
  assert.match(a.stderr, /not approved: /);
  const g = await runCli([
    "csr",
    "create",
    "--node",
    "w1",
    "--out-dir",
    path.join(dir, "g"),
    "--groups",
    "system:nodes",
  ]);
  assert.deepEqual([g.code, g.stderr], [2, "error: --groups and --uid need --requester\n"]);
  assert.equal(fs.existsSync(path.join(dir, "g")), false);
  const bad = await runCli([
    "csr",
    "create",
    "--node",
    "w1",
    "--out-dir",
    path.join(dir, "b"),
    "--requester",
    "system:bootstrap:abcdef",
    "--groups",
    "system:nodes",
  ]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --groups: bootstrap group "system:nodes" is invalid/);
});

Deno.test("CLI csr approve takes several files and directories; a directory's other files are skipped with a warning", async () => {
  const boot = await create("many/boot", "w2", [
    "--requester",
    "system:bootstrap:abcdef",
    "--groups",
    "system:bootstrappers:kubeadm:default-node-token",
  ]);
  // A rotating node: selfnodeclient.
  await create("many/self", "w3", ["--requester", "system:node:w3", "--groups", "system:nodes"]);
  const plain = await create("plain2", "w4", []);
  const r = await runCli(["csr", "approve", path.join(dir, "many"), plain, ...NOW]);
  assert.equal(r.code, 3);
  const lines = r.stderr.split("\n").filter(Boolean);
  const d = path.join(dir, "many");
  assert.deepEqual(lines.filter((l) => l.startsWith("warning:")), [
    `warning: ${d}/boot/kubelet-client.csr: skipped: holds no CertificateSigningRequest`,
    `warning: ${d}/boot/kubelet-client.key: skipped: holds no CertificateSigningRequest`,
    `warning: ${d}/self/kubelet-client.csr: skipped: holds no CertificateSigningRequest`,
    `warning: ${d}/self/kubelet-client.key: skipped: holds no CertificateSigningRequest`,
  ]);
  assert.equal(lines.filter((l) => l.startsWith("error:")).length, 1);
  assert.match(lines.at(-1)!, new RegExp(`^error: ${plain.replace(/[.]/g, "\\.")} \\(node-csr-`));
  const out = parseManifests(r.stdout, "stdout");
  assert.deepEqual(out.map(conditionTypes), [["Approved/AutoApproved"], [
    "Approved/AutoApproved",
  ], []]);
  assert.equal(
    (out[0]!.spec as Record<string, unknown>).username,
    "system:bootstrap:abcdef",
    path.basename(boot),
  );
  // -o json: one v1 List; a PEM CSR named on its own is refused as before.
  const j = await runCli(["csr", "approve", d, "-o", "json", ...NOW]);
  assert.equal(j.code, 0, j.stderr);
  assert.equal(JSON.parse(j.stdout).kind, "List");
  const pem = await runCli([
    "csr",
    "approve",
    plain,
    path.join(dir, "plain2", "kubelet-client.csr"),
  ]);
  assert.equal(pem.code, 1);
  assert.match(
    pem.stderr,
    /kubelet-client\.csr: csr approve reads CertificateSigningRequest objects/,
  );
});
