/**
 * `joinkit upload-certs`, `download-certs` and `certs certificate-key`
 * through the real CLI: the round trip, kubeadm's file modes, and every
 * refusal as one stderr line with nothing written and no key on stderr.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import { repoPath } from "../_cli.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";

const PKI = repoPath("tests/fixtures/upload_certs/pki");
const KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";
const OTHER_KEY = "00".repeat(32);
const NOW = ["--now", "2026-01-01T00:00:00Z"];
const BASE = ["upload-certs", "--pki-dir", PKI, "--token", "abcdef.0123456789abcdef", ...NOW];

const root = tempDir("joinkit-upload-certs-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;
const fresh = () => path.join(root.dir, `t${n++}`);

/** Key material that must never reach stderr: the certificate key and the private keys' bodies. */
const NEEDLES = [
  KEY,
  KEY.toUpperCase(),
  ...["ca.key", "sa.key", "etcd/ca.key", "front-proxy-ca.key"].map((f) =>
    fs.readFileSync(path.join(PKI, f), "utf8").split("\n")[1]!
  ),
];
function assertNoSecrets(stderr: string, what: string) {
  for (const s of NEEDLES) assert.ok(!stderr.includes(s), `${what}: a secret on stderr`);
}

/** A copy of the fixture pki/ without some files. */
function pkiWithout(...drop: string[]): string {
  const dir = fresh();
  fs.cpSync(PKI, dir, { recursive: true });
  for (const f of drop) fs.rmSync(path.join(dir, f));
  return dir;
}

async function upload(args: string[] = []): Promise<string> {
  const r = await runCli([...BASE, "--certificate-key", KEY, "--owner-uid", "uid-1", ...args]);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(fresh() + ".yaml");
  fs.writeFileSync(file, r.stdout);
  return file;
}

Deno.test("CLI upload-certs renders the four objects; download-certs --pki-dir proves the round trip", async () => {
  const r = await runCli([...BASE, "--certificate-key", KEY]);
  assert.equal(r.code, 0, r.stderr);
  const objs = parseManifests(r.stdout, "out");
  assert.deepEqual(
    objs.map((o) => `${o.kind} ${(o.metadata as { name: string }).name}`),
    [
      "Secret bootstrap-token-abcdef",
      "Secret kubeadm-certs",
      "Role kubeadm:kubeadm-certs",
      "RoleBinding kubeadm:kubeadm-certs",
    ],
  );
  assert.equal(
    r.stderr,
    `[upload-certs] Storing the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace\n` +
      "warning: kube-system/kubeadm-certs has no ownerReference (no --owner-uid): it will not be deleted when bootstrap-token-abcdef expires at 2026-01-01T02:00:00Z\n",
  );
  assertNoSecrets(r.stderr, "upload");
  const file = fresh() + ".yaml";
  fs.writeFileSync(file, r.stdout);
  const d = await runCli(["download-certs", file, "--certificate-key", KEY, "--pki-dir", PKI]);
  assert.equal(d.code, 0, d.stderr);
  assert.equal((d.stdout.match(/ matches\n/g) ?? []).length, 8, d.stdout);
  assertNoSecrets(d.stderr + d.stdout, "download");
});

Deno.test("CLI upload-certs -o json is a v1 List; --owner-uid adds kubeadm's controller reference", async () => {
  const r = await runCli([...BASE, "--certificate-key", KEY, "--owner-uid", "uid-1", "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout);
  assert.equal(list.kind, "List");
  assert.deepEqual(list.items[1].metadata.ownerReferences, [{
    apiVersion: "v1",
    blockOwnerDeletion: true,
    controller: true,
    kind: "Secret",
    name: "bootstrap-token-abcdef",
    uid: "uid-1",
  }]);
  assert.equal(r.stderr.includes("warning"), false);
});

Deno.test("CLI download-certs --out-dir writes kubeadm's modes (keys 0600, certs 0644), dirs 0700, no overwrite", async () => {
  const file = await upload();
  const out = fresh();
  const d = await runCli(["download-certs", file, "--certificate-key", KEY, "--out-dir", out]);
  assert.equal(d.code, 0, d.stderr);
  const mode = (f: string) => (fs.statSync(path.join(out, f)).mode & 0o777).toString(8);
  assert.deepEqual(
    Object.fromEntries(
      [
        "ca.crt",
        "ca.key",
        "etcd/ca.crt",
        "etcd/ca.key",
        "front-proxy-ca.crt",
        "front-proxy-ca.key",
        "sa.key",
        "sa.pub",
      ]
        .map((f) => [f, mode(f)]),
    ),
    {
      "ca.crt": "644",
      "ca.key": "600",
      "etcd/ca.crt": "644",
      "etcd/ca.key": "600",
      "front-proxy-ca.crt": "644",
      "front-proxy-ca.key": "600",
      "sa.key": "600",
      "sa.pub": "644",
    },
  );
  assert.equal(mode("."), "700");
  assert.equal(mode("etcd"), "700");
  for (const f of ["ca.key", "sa.pub", "etcd/ca.crt"]) {
    assert.deepEqual(fs.readFileSync(path.join(out, f)), fs.readFileSync(path.join(PKI, f)), f);
  }
  const again = await runCli(["download-certs", file, "--certificate-key", KEY, "--out-dir", out]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^error: .*already exists \(use --force to overwrite\)\n$/);
  const forced = await runCli([
    "download-certs",
    file,
    "--certificate-key",
    KEY,
    "--out-dir",
    out,
    "--force",
  ]);
  assert.equal(forced.code, 0, forced.stderr);
});

const REFUSALS: { what: string; args: () => string[]; code: number; line: RegExp }[] = [
  {
    what: "a certificate key of the wrong length",
    args: () => [
      ...BASE,
      "--certificate-key",
      KEY.slice(2),
      "--out",
      path.join(root.dir, "never.yaml"),
    ],
    code: 2,
    line:
      /^error: invalid --certificate-key: invalid certificate key size 31, the key must be an AES key of size 32$/,
  },
  {
    what: "a certificate key that is not hex",
    args: () => [
      ...BASE,
      "--certificate-key",
      "x" + KEY.slice(1),
      "--out",
      path.join(root.dir, "never.yaml"),
    ],
    code: 2,
    line:
      /^error: invalid --certificate-key: certificate key decoding error: encoding\/hex: invalid byte: U\+0078 'x'$/,
  },
  {
    what: "a pki/ directory missing a file kubeadm would upload",
    args: () => [
      ...BASE,
      "--certificate-key",
      KEY,
      "--pki-dir",
      pkiWithout("sa.pub"),
      "--out",
      path.join(root.dir, "never.yaml"),
    ],
    code: 1,
    line:
      /^error: .*sa\.pub: no such file: kubeadm would upload sa\.pub \(a joining control plane needs it\)$/,
  },
  {
    what: "a missing CA key without --external-ca",
    args: () => [
      ...BASE,
      "--certificate-key",
      KEY,
      "--pki-dir",
      pkiWithout("ca.key"),
      "--out",
      path.join(root.dir, "never.yaml"),
    ],
    code: 1,
    line: /ca\.key: no such file: .*; with an external CA give --external-ca$/,
  },
  {
    what: "no key and nowhere to print a generated one",
    args: () => [...BASE],
    code: 2,
    line: /^error: no --certificate-key and no --out: a generated key would be lost/,
  },
  {
    what: "a --ttl of 0 (the Secret would never expire)",
    args: () => [...BASE, "--certificate-key", KEY, "--ttl", "0"],
    code: 2,
    line: /^error: invalid argument "0" for "--ttl" flag: must be at least 1s$/,
  },
  {
    what: "a malformed --token",
    args: () => [...BASE, "--certificate-key", KEY, "--token", "ABCDEF.0123456789abcdef"],
    code: 2,
    line: /^error: .*--token/,
  },
];

for (const r of REFUSALS) {
  Deno.test(`CLI upload-certs refuses ${r.what}: one line, exit ${r.code}, nothing written`, async () => {
    const res = await runCli(r.args());
    assert.equal(res.code, r.code, res.stderr);
    assert.equal(res.stdout, "");
    assert.equal(res.stderr.split("\n").length, 2, res.stderr);
    assert.match(res.stderr.trimEnd(), r.line);
    assert.equal(fs.existsSync(path.join(root.dir, "never.yaml")), false);
    assertNoSecrets(res.stderr, r.what);
  });
}

Deno.test("CLI upload-certs --external-ca uploads absent CA keys empty; download-certs skips them", async () => {
  const dir = pkiWithout("ca.key", "front-proxy-ca.key");
  const r = await runCli([
    ...BASE,
    "--certificate-key",
    KEY,
    "--pki-dir",
    dir,
    "--external-ca",
    "-o",
    "json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout).items[1].data;
  assert.equal(data["ca.key"], "");
  assert.equal(data["front-proxy-ca.key"], "");
  const file = fresh() + ".json";
  fs.writeFileSync(file, r.stdout);
  const d = await runCli([
    "download-certs",
    file,
    "--certificate-key",
    KEY,
    "--pki-dir",
    dir,
    "-o",
    "json",
  ]);
  assert.equal(d.code, 0, d.stderr);
  const rows = Object.fromEntries(JSON.parse(d.stdout).map((x: { name: string }) => [x.name, x]));
  assert.equal(rows["ca.key"].mode, "skipped (empty)");
  assert.equal(rows["ca.key"].pkiDir, "absent, as uploaded");
  assert.equal(rows["ca.crt"].pkiDir, "matches");
});

Deno.test("CLI upload-certs with an external etcd: external-etcd-* keys; download-certs writes them where told", async () => {
  const etcd = fresh();
  fs.mkdirSync(etcd);
  fs.copyFileSync(path.join(PKI, "etcd/ca.crt"), path.join(etcd, "ca.crt"));
  fs.copyFileSync(path.join(PKI, "ca.crt"), path.join(etcd, "client.crt"));
  fs.copyFileSync(path.join(PKI, "ca.key"), path.join(etcd, "client.key"));
  const flags = (d: string) => [
    "--etcd-cafile",
    path.join(d, "ca.crt"),
    "--etcd-certfile",
    path.join(d, "client.crt"),
    "--etcd-keyfile",
    path.join(d, "client.key"),
  ];
  const r = await runCli([...BASE, "--certificate-key", KEY, ...flags(etcd), "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(Object.keys(JSON.parse(r.stdout).items[1].data), [
    "ca.crt",
    "ca.key",
    "external-etcd-ca.crt",
    "external-etcd.crt",
    "external-etcd.key",
    "front-proxy-ca.crt",
    "front-proxy-ca.key",
    "sa.key",
    "sa.pub",
  ]);
  const file = fresh() + ".json";
  fs.writeFileSync(file, r.stdout);
  const out = fresh();
  const noWhere = await runCli([
    "download-certs",
    file,
    "--certificate-key",
    KEY,
    "--out-dir",
    out,
  ]);
  assert.equal(noWhere.code, 2);
  assert.match(
    noWhere.stderr,
    /^error: external-etcd-ca\.crt is in the Secret: give --etcd-cafile/,
  );
  assert.equal(fs.existsSync(out), false);
  const target = fresh();
  const d = await runCli([
    "download-certs",
    file,
    "--certificate-key",
    KEY,
    "--out-dir",
    out,
    ...flags(target),
  ]);
  assert.equal(d.code, 0, d.stderr);
  assert.equal((fs.statSync(path.join(target, "client.key")).mode & 0o777).toString(8), "600");
  assert.equal((fs.statSync(path.join(target, "client.crt")).mode & 0o777).toString(8), "644");
  assert.equal(fs.existsSync(path.join(out, "etcd")), false);
});

Deno.test("CLI download-certs refuses a wrong key (exit 3, one line, nothing written)", async () => {
  const file = await upload();
  const out = fresh();
  const d = await runCli([
    "download-certs",
    file,
    "--certificate-key",
    OTHER_KEY,
    "--out-dir",
    out,
  ]);
  assert.equal(d.code, 3);
  assert.equal(d.stdout, "");
  assert.equal(
    d.stderr,
    "error: error decoding secret data with provided key: cipher: message authentication failed\n",
  );
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI download-certs --pki-dir says no (exit 3) when a file differs from what was uploaded", async () => {
  const file = await upload();
  const other = pkiWithout();
  fs.appendFileSync(path.join(other, "sa.pub"), "\n");
  const d = await runCli(["download-certs", file, "--certificate-key", KEY, "--pki-dir", other]);
  assert.equal(d.code, 3);
  assert.equal(d.stdout, "");
  assert.match(d.stderr, /^error: .*: the Secret does not round-trip to .*: sa\.pub differs\n$/);
});

Deno.test("CLI download-certs refuses a file without the Secret (exit 1) and a bad key (exit 2)", async () => {
  const other = fresh() + ".yaml";
  fs.writeFileSync(other, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
  const a = await runCli(["download-certs", other, "--certificate-key", KEY]);
  assert.equal(a.code, 1);
  assert.match(a.stderr, /no Secret kube-system\/kubeadm-certs/);
  const file = await upload();
  const b = await runCli(["download-certs", file, "--certificate-key", KEY + "00"]);
  assert.equal(b.code, 2);
  assert.equal(
    b.stderr,
    "error: invalid --certificate-key: invalid certificate key size 33, the key must be an AES key of size 32\n",
  );
});

Deno.test("CLI upload-certs without --certificate-key generates one, prints it on stdout as kubeadm does, file 0600", async () => {
  const out = path.join(fresh(), "certs.yaml");
  const r = await runCli([...BASE, "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  const m = /^\[upload-certs\] Using certificate key:\n([0-9a-f]{64})\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.ok(!r.stderr.includes(m[1]!));
  assert.equal((fs.statSync(out).mode & 0o777).toString(8), "600");
  const d = await runCli(["download-certs", out, "--certificate-key", m[1]!, "--pki-dir", PKI]);
  assert.equal(d.code, 0, d.stderr);
});

Deno.test("CLI certs certificate-key prints 64 lower-case hex characters, fresh each time", async () => {
  const a = await runCli(["certs", "certificate-key"]);
  const b = await runCli(["certs", "certificate-key"]);
  assert.equal(a.code, 0);
  assert.match(a.stdout, /^[0-9a-f]{64}\n$/);
  assert.notEqual(a.stdout, b.stdout);
  assert.equal(a.stderr, "");
  const bad = await runCli(["certs", "certificate-key", "extra"]);
  assert.equal(bad.code, 2);
});

const HAVE_KUBECTL =
  spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;

Deno.test({
  name:
    `CLI upload-certs kubeadm-certs Secret is byte-identical to kubectl create secret generic of the same blobs${
      HAVE_KUBECTL ? "" : " (skipped: kubectl not found)"
    }`,
  ignore: !HAVE_KUBECTL,
  fn: async () => {
    const r = await runCli([...BASE, "--certificate-key", KEY]);
    assert.equal(r.code, 0, r.stderr);
    const docs = r.stdout.split(/^---\n/m);
    const ours = docs.find((d) => d.includes("name: kubeadm-certs\n"))!;
    const data = (parseManifests(ours, "ours")[0]!.data) as Record<string, string>;
    const dir = fresh();
    fs.mkdirSync(dir);
    const args = ["create", "secret", "generic", "kubeadm-certs", "-n", "kube-system"];
    for (const [k, v] of Object.entries(data)) {
      fs.writeFileSync(path.join(dir, k), Buffer.from(v, "base64"));
      args.push(`--from-file=${k}=${path.join(dir, k)}`);
    }
    const k = spawnSync("kubectl", [...args, "--dry-run=client", "-o", "yaml"], {
      env: { ...process.env, KUBECONFIG: "/dev/null" },
    });
    assert.equal(k.status, 0, k.stderr?.toString());
    assert.equal(ours, k.stdout.toString().replace("  creationTimestamp: null\n", ""));
  },
});

Deno.test("CLI control-plane join end to end: upload-certs, join-config, node-payload, download-certs with the payload's key", async () => {
  const key = (await runCli(["certs", "certificate-key"])).stdout.trim();
  const certs = fresh() + ".yaml";
  const up = await runCli([...BASE, "--certificate-key", key, "--out", certs]);
  assert.equal(up.code, 0, up.stderr);
  const join = fresh() + ".yaml";
  const jc = await runCli([
    "join-config",
    "--server",
    "10.0.0.1:6443",
    "--token",
    "abcdef.0123456789abcdef",
    "--ca",
    path.join(PKI, "ca.crt"),
    "--control-plane",
    "--certificate-key",
    key,
    "--apiserver-advertise-address",
    "10.0.0.12",
    "--out",
    join,
  ]);
  assert.equal(jc.code, 0, jc.stderr);
  const np = await runCli(["node-payload", "--config", join, "--node", "cp-2"]);
  assert.equal(np.code, 0, np.stderr);
  // The key the node will use is the one in its payload.
  const m = /^ {8}certificateKey: ([0-9a-f]{64})$/m.exec(np.stdout);
  assert.ok(m, np.stdout);
  assert.equal(m[1], key);
  const dl = await runCli(["download-certs", certs, "--certificate-key", m[1]!, "--pki-dir", PKI]);
  assert.equal(dl.code, 0, dl.stderr);
  assert.equal((dl.stdout.match(/ matches\n/g) ?? []).length, 8);
});
