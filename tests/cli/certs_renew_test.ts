/**
 * `joinkit certs renew` through the real CLI: kubeadm's lines, the tree
 * still kubeadm's after it (doctor), `certs check-expiration` printing the
 * very table real kubeadm v1.32.5 printed for a tree renewed at the same
 * instant (tests/fixtures/kubeadm_pki/renew/), and each refusal as one
 * line with nothing written.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const FIXTURES = repoPath("tests", "fixtures", "kubeadm_pki");
const RENEW = path.join(FIXTURES, "renew");

const root = tempDir("joinkit-certs-renew-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;
const fresh = () => path.join(root.dir, `t${n++}`);

/** The sample configuration of the kubeadm run, with ECDSA keys (the table does not depend on them). */
const CONFIG = path.join(root.dir, "sample-ecdsa.yaml");
fs.writeFileSync(
  CONFIG,
  fs.readFileSync(path.join(FIXTURES, "sample_rsa2048.yaml"), "utf8").replace(
    "kind: ClusterConfiguration\n",
    "kind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n",
  ),
);

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p, "latin1"));
    }
  };
  walk(dir);
  return out;
}

/** A tree made as in the kubeadm run (joinkit certs generate at 2026-01-01). */
async function tree(): Promise<string> {
  const out = fresh();
  const r = await runCli([
    "certs",
    "generate",
    "--config",
    CONFIG,
    "--out-dir",
    out,
    "--now",
    "2026-01-01T00:00:00Z",
  ]);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

Deno.test("CLI certs renew all: kubeadm's lines; then check-expiration prints the table kubeadm printed for its renewal at the same instant", async () => {
  const dir = await tree();
  const before = snapshot(dir);
  const r = await runCli([
    "certs",
    "renew",
    "all",
    "--out-dir",
    dir,
    "--config",
    CONFIG,
    "--now",
    "2026-11-28T18:09:35Z",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
  const kubeadm = JSON.parse(fs.readFileSync(path.join(RENEW, "kubeadm_renew_all.json"), "utf8"));
  assert.equal(r.stderr, kubeadm.lines.join("\n") + "\n");
  const after = snapshot(dir);
  for (const f of kubeadm.untouched as string[]) assert.equal(after.get(f), before.get(f), f);
  assert.notEqual(after.get("pki/apiserver.key"), before.get("pki/apiserver.key"));
  const exp = await runCli([
    "certs",
    "check-expiration",
    dir,
    "--config",
    CONFIG,
    "--now",
    "2026-11-28T18:09:44Z",
  ]);
  assert.equal(exp.code, 0, exp.stderr);
  // joinkit adds kubelet.conf's row (the kubelet's own certificate); the rest is kubeadm's, byte for byte.
  const ours = exp.stdout.split("\n").filter((l) => !l.startsWith("kubelet.conf ")).join("\n");
  assert.equal(
    ours,
    fs.readFileSync(path.join(RENEW, "kubeadm_check_expiration_after_renew.txt"), "utf8"),
  );
  const doc = await runCli(["doctor", dir, "--config", CONFIG, "--now", "2026-11-28T18:09:44Z"]);
  assert.equal(doc.code, 0, doc.stdout + doc.stderr);
});

Deno.test("CLI certs renew refuses with one line and writes nothing: external CA, unknown name, mixed all; no NAME is a usage error", async () => {
  const dir = await tree();
  fs.rmSync(path.join(dir, "pki", "etcd", "ca.key"));
  const before = snapshot(dir);
  const cases: [string[], number, string][] = [
    [
      ["all"],
      1,
      "error: Detected external etcd/ca, certificate the apiserver uses to access etcd can't be renewed\n",
    ],
    [
      ["etcd-server"],
      1,
      "error: Detected external etcd/ca, certificate for serving etcd can't be renewed\n",
    ],
    [
      ["kubelet.conf"],
      2, // kubeadm: unknown command "kubelet.conf" for "kubeadm certs renew" (cobra's usage error)
      'error: unknown command "kubelet.conf" for "certs renew" (one of: all, admin.conf, apiserver, apiserver-etcd-client, apiserver-kubelet-client, controller-manager.conf, etcd-healthcheck-client, etcd-peer, etcd-server, front-proxy-client, scheduler.conf, super-admin.conf)\n',
    ],
    [["all", "apiserver"], 2, "error: all cannot be combined with certificate names\n"],
    [[], 2, "error: missing argument: all|NAME\n"],
  ];
  for (const [names, code, stderr] of cases) {
    const r = await runCli(["certs", "renew", ...names, "--out-dir", dir]);
    assert.equal(r.code, code, `${names}: ${r.stderr}`);
    assert.equal(r.stderr, stderr, names.join(" "));
    assert.deepEqual(snapshot(dir), before, `${names}: nothing written`);
  }
  // What the etcd CA does not sign still renews; a missing file is kubeadm's MISSING! line.
  fs.rmSync(path.join(dir, "pki", "apiserver.crt"));
  const r = await runCli(["certs", "renew", "apiserver", "front-proxy-client", "--out-dir", dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    "MISSING! certificate for serving the Kubernetes API\ncertificate for the front proxy client renewed\n",
  );
});

Deno.test("CLI certs check-expiration --config and doctor name each drift with the file and the rule (exit 3)", async () => {
  const dir = await tree();
  // front-proxy-client replaced by a pair the cluster CA signed; the configuration gains a SAN.
  for (const ext of ["crt", "key"]) {
    fs.copyFileSync(
      path.join(dir, `pki/apiserver-kubelet-client.${ext}`),
      path.join(dir, `pki/front-proxy-client.${ext}`),
    );
  }
  const more = path.join(root.dir, "more-sans.yaml");
  fs.writeFileSync(
    more,
    fs.readFileSync(CONFIG, "utf8").replace(
      "certSANs: [extra.example.com, 192.0.2.7]",
      "certSANs: [extra.example.com, 192.0.2.7, api.example.net]",
    ),
  );
  const at = ["--now", "2026-02-01T00:00:00Z"];
  const exp = await runCli(["certs", "check-expiration", dir, "--config", more, ...at]);
  assert.equal(exp.code, 3);
  assert.match(exp.stdout, /^front-proxy-client +/m); // the report is still printed
  assert.deepEqual(exp.stderr.trimEnd().split("\n"), [
    `error: ${dir}/pki/apiserver.crt: san: lacks DNS:api.example.net that the configuration gives (kubeadm join --control-plane refuses it)`,
    `error: ${dir}/pki/front-proxy-client.crt: chain: certificate front-proxy client is not signed by corresponding CA (pki/front-proxy-ca.crt): x509: certificate signed by unknown authority`,
    `error: ${dir}/pki/front-proxy-client.crt: subject: subject is CN=kube-apiserver-kubelet-client, O=kubeadm:cluster-admins, kubeadm's is CN=front-proxy-client`,
  ]);
  // Without --config: kubeadm's report alone, as before.
  assert.equal((await runCli(["certs", "check-expiration", dir, ...at])).code, 0);
  const doc = await runCli(["doctor", dir, ...at]);
  assert.equal(doc.code, 3);
  assert.deepEqual(doc.stdout.trimEnd().split("\n").slice(0, 2), [
    `${dir}/pki/front-proxy-client.crt: kubeadm PKI: chain: pki: certificate front-proxy client is not signed by corresponding CA (pki/front-proxy-ca.crt): x509: certificate signed by unknown authority`,
    `${dir}/pki/front-proxy-client.crt: kubeadm PKI: subject: pki: subject is CN=kube-apiserver-kubelet-client, O=kubeadm:cluster-admins, kubeadm's is CN=front-proxy-client`,
  ]);
});

Deno.test("CLI certs renew over a several-node directory renews each node (lines prefixed with it); one node it cannot renew refuses the run, nothing written", async () => {
  const ha = fresh();
  const g = await runCli([
    ...["certs", "generate", "--config", CONFIG, "--out-dir", ha],
    ...["--node", "cp-1=10.0.0.11", "--node", "cp-2=10.0.0.12", "--now", "2026-01-01T00:00:00Z"],
  ]);
  assert.equal(g.code, 0, g.stderr);
  const before = snapshot(ha);
  const r = await runCli([
    ...["certs", "renew", "apiserver", "admin.conf", "--out-dir", ha, "--config", CONFIG],
    ...["--now", "2026-06-01T00:00:00Z"],
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    [
      "cp-1: certificate for serving the Kubernetes API renewed",
      "cp-1: certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself renewed",
      "cp-2: certificate for serving the Kubernetes API renewed",
      "cp-2: certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself renewed",
      "",
    ].join("\n"),
  );
  const after = snapshot(ha);
  const changed = [...after.keys()].filter((p) => after.get(p) !== before.get(p)).sort();
  assert.deepEqual(changed, [
    "cp-1/admin.conf",
    "cp-1/pki/apiserver.crt",
    "cp-1/pki/apiserver.key",
    "cp-2/admin.conf",
    "cp-2/pki/apiserver.crt",
    "cp-2/pki/apiserver.key",
  ]);
  // cp-2's CA key gone (external CA there): kubeadm's refusal, and cp-1 is not renewed either.
  fs.rmSync(path.join(ha, "cp-2", "pki", "ca.key"));
  const now = snapshot(ha);
  const ext = await runCli(["certs", "renew", "apiserver", "--out-dir", ha, ...[
    "--config",
    CONFIG,
  ]]);
  assert.equal(ext.code, 1);
  assert.equal(
    ext.stderr,
    "error: Detected external ca, certificate for serving the Kubernetes API can't be renewed\n",
  );
  assert.deepEqual(snapshot(ha), now);
});
