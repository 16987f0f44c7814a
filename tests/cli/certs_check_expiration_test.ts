import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { issue, writeKubeadmTree } from "../_kubeadm_tree.ts";

const root = tempDir("joinkit-expiry-");
const tree = await writeKubeadmTree(root.dir);
const NOW = ["--now", "2026-06-01T00:00:00Z"];
const cmd = ["certs", "check-expiration"];

Deno.test("CLI certs check-expiration over a full kubeadm tree: 16 non-blank lines, 11 certificates and 3 CAs (kubeadm's test)", async () => {
  const text = await runCli([...cmd, tree.etc, ...NOW]);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.split("\n").filter((l) => l.trim() !== "");
  // kubelet.conf points at a file (no embedded certificate), so it has no row.
  assert.equal(lines.length, 16, text.stdout);
  assert.match(
    lines[1]!,
    /^admin\.conf +Jan 01, 2027 00:00 UTC {3}214d +ca +no {6}$/,
  );
  const json = await runCli([...cmd, tree.etc, "-o", "json", ...NOW]);
  const info = JSON.parse(json.stdout);
  assert.equal(info.kind, "CertificateExpirationInfo");
  assert.equal(info.apiVersion, "output.kubeadm.k8s.io/v1alpha3");
  assert.equal(info.certificates.length, 11);
  assert.equal(info.certificateAuthorities.length, 3);
  assert.deepEqual(
    info.certificates.map((c: { name: string }) => c.name),
    [
      "admin.conf",
      "apiserver",
      "apiserver-etcd-client",
      "apiserver-kubelet-client",
      "controller-manager.conf",
      "etcd-healthcheck-client",
      "etcd-peer",
      "etcd-server",
      "front-proxy-client",
      "scheduler.conf",
      "super-admin.conf",
    ],
  );
  assert.ok(json.stdout.startsWith('{\n    "kind": "CertificateExpirationInfo",\n'));
  const yaml = await runCli([...cmd, tree.etc, "-o", "yaml", ...NOW]);
  assert.match(
    yaml.stdout,
    /^apiVersion: output\.kubeadm\.k8s\.io\/v1alpha3\ncertificateAuthorities:\n/,
  );
});

Deno.test("CLI certs check-expiration adds the kubelet's pki/ and its rotation window, skipping dated files behind -current.pem", async () => {
  const r = await runCli([...cmd, tree.etc, tree.kubelet, "-o", "json", ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  const info = JSON.parse(r.stdout);
  const names = info.certificates.map((c: { name: string }) => c.name);
  assert.ok(names.includes("kubelet-client-current.pem"), names.join(","));
  assert.ok(names.includes("kubelet.crt"));
  assert.ok(!names.some((n: string) => /kubelet-client-2026/.test(n)), names.join(","));
  const client = info.certificates.find((c: { name: string }) =>
    c.name === "kubelet-client-current.pem"
  );
  assert.equal(client.caName, "ca");
  assert.deepEqual(client.rotationWindow, {
    start: "2026-09-13T12:00:00Z",
    end: "2026-11-25T12:00:00Z",
  });
  const text = await runCli([...cmd, tree.etc, tree.kubelet, ...NOW]);
  assert.match(
    text.stdout,
    /\nKUBELET CERTIFICATE +ROTATES FROM +ROTATES BEFORE\nkubelet-client-current\.pem +Sep 13, 2026 12:00 UTC +Nov 25, 2026 12:00 UTC\n$/,
  );
});

Deno.test("CLI certs check-expiration marks a missing file !MISSING! and a CA without its key externally managed", async () => {
  const t = tempDir("joinkit-expiry-missing-");
  try {
    const tr = await writeKubeadmTree(t.dir);
    fs.rmSync(path.join(tr.etc, "pki", "apiserver.crt"));
    fs.rmSync(path.join(tr.etc, "pki", "front-proxy-ca.key"));
    const r = await runCli([...cmd, tr.etc, ...NOW]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\n!MISSING! apiserver {3,}\n/);
    assert.match(r.stdout, /\nfront-proxy-client .* front-proxy-ca +yes {5}\n/);
    assert.match(r.stdout, /\nfront-proxy-ca .* yes {5}\n/);
    const j = JSON.parse((await runCli([...cmd, tr.etc, "-o", "json", ...NOW])).stdout);
    const api = j.certificates.find((c: { name: string }) => c.name === "apiserver");
    assert.deepEqual(api, {
      name: "apiserver",
      expirationDate: null,
      residualTime: 0,
      externallyManaged: false,
      caName: "ca",
      missing: true,
    });
  } finally {
    t.cleanup();
  }
});

Deno.test("CLI certs check-expiration --expiring-within exits 3 with one stderr line per certificate inside", async () => {
  // 2026-12-20: leaves have 12 days left, CAs 9 years.
  const late = ["--now", "2026-12-20T00:00:00Z"];
  const within = await runCli([...cmd, tree.etc, "--expiring-within", "720h", ...late]);
  assert.equal(within.code, 3);
  const lines = within.stderr.trim().split("\n");
  assert.equal(lines.length, 11, within.stderr);
  assert.match(
    lines[0]!,
    /^error: admin\.conf: expires 2027-01-01T00:00:00Z \(12d left\), within --expiring-within 720h$/,
  );
  assert.notEqual(within.stdout, "", "the report is still printed");
  const outside = await runCli([...cmd, tree.etc, "--expiring-within", "240h", ...late]);
  assert.equal(outside.code, 0, outside.stderr);
  assert.equal(outside.stderr, "");
  const pct = await runCli([...cmd, tree.kubelet, "--expiring-within", "90%", ...late]);
  assert.equal(pct.code, 3);
  assert.equal(pct.stderr.trim().split("\n").length, 2, pct.stderr); // the two leaves, not the CAs
});

Deno.test("CLI certs check-expiration takes loose files, and refuses bad flags and certificate-less files", async () => {
  const one = await issue(
    "loose",
    new Date("2026-01-01T00:00:00Z"),
    new Date("2026-02-01T00:00:00Z"),
  );
  const f = path.join(root.dir, "loose.pem");
  fs.writeFileSync(f, one.pem);
  const r = await runCli([...cmd, f, "--expiring-within", "0s", ...NOW]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /^error: .*loose\.pem: expires 2026-02-01T00:00:00Z \(expired\)/);
  assert.match(r.stdout, /loose\.pem +Feb 01, 2026 00:00 UTC {3}<invalid>/);
  for (const bad of ["1d", "101%", "x"]) {
    const u = await runCli([...cmd, f, "--expiring-within", bad]);
    assert.equal(u.code, 2, bad);
    assert.match(u.stderr, /^error: invalid argument .* for "--expiring-within" flag/);
  }
  assert.equal((await runCli([...cmd])).code, 2);
  const key = path.join(tree.etc, "pki", "ca.key");
  const k = await runCli([...cmd, key]);
  assert.equal(k.code, 1);
  assert.equal(k.stdout, "");
});

globalThis.addEventListener("unload", () => root.cleanup());

Deno.test("CLI certs check-expiration over a pki/ dir alone has no kubeconfig rows; without etcd/ca.crt no etcd rows (external etcd)", async () => {
  const t = tempDir("joinkit-expiry-pki-");
  try {
    const tr = await writeKubeadmTree(t.dir);
    const pki = path.join(tr.etc, "pki");
    const names = async () => {
      const r = await runCli([...cmd, pki, "-o", "json", ...NOW]);
      assert.equal(r.code, 0, r.stderr);
      const info = JSON.parse(r.stdout);
      return [
        info.certificates.map((c: { name: string }) => c.name),
        info.certificateAuthorities.map((c: { name: string }) => c.name),
      ];
    };
    const [certs, cas] = await names();
    assert.equal(certs.length, 7, certs.join(","));
    assert.deepEqual(cas, ["ca", "etcd-ca", "front-proxy-ca"]);
    fs.rmSync(path.join(pki, "etcd"), { recursive: true });
    const [certs2, cas2] = await names();
    // apiserver-etcd-client.crt is no longer kubeadm's (external etcd): it stays, under its path.
    assert.deepEqual(certs2, [
      "apiserver",
      "apiserver-etcd-client.crt",
      "apiserver-kubelet-client",
      "front-proxy-client",
    ]);
    assert.deepEqual(cas2, ["ca", "front-proxy-ca"]);
  } finally {
    t.cleanup();
  }
});

// Issue 19 class 5: kubeadm v1.32.5 refuses a tree whose CA file holds a leaf (its texts, recorded
// with `kubeadm certs check-expiration --config` over a PKI from `kubeadm init phase certs all`).
Deno.test("CLI certs check-expiration refuses a leaf certificate in a CA file, as kubeadm does", async () => {
  const { dir, cleanup } = tempDir("joinkit-expiry-notca-");
  try {
    const t = await writeKubeadmTree(dir);
    const pki = path.join(t.etc, "pki");
    const cases: [string, string, string][] = [
      [
        "ca.crt",
        "apiserver.crt",
        "Error checking external CA condition for ca certificate authority: certificate CA is not a CA",
      ],
      [
        "front-proxy-ca.crt",
        "front-proxy-client.crt",
        "Error checking external CA condition for front-proxy-ca certificate authority: certificate front-proxy CA is not a CA",
      ],
      [
        "etcd/ca.crt",
        "etcd/server.crt",
        "Error checking external CA condition for etcd/ca certificate authority: certificate etcd CA is not a CA",
      ],
    ];
    for (const [caFile, leaf, want] of cases) {
      const original = fs.readFileSync(path.join(pki, caFile));
      fs.copyFileSync(path.join(pki, leaf), path.join(pki, caFile));
      const r = await runCli([...cmd, t.etc, ...NOW]);
      assert.equal(r.code, 1, r.stdout);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, `error: ${path.join(pki, caFile)}: ${want}\n`);
      fs.writeFileSync(path.join(pki, caFile), original);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI certs check-expiration never passes a run that found nothing or could not read a file", async () => {
  const { dir, cleanup } = tempDir("joinkit-expiry-empty-");
  try {
    fs.mkdirSync(path.join(dir, "empty"));
    let r = await runCli([...cmd, path.join(dir, "empty"), ...NOW]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "error: no certificate found in the input\n");
    const t = await writeKubeadmTree(path.join(dir, "t"));
    fs.symlinkSync("nowhere", path.join(t.etc, "dangling.crt"));
    r = await runCli([...cmd, t.etc, ...NOW]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^warning: .*dangling\.crt: skipped: unreadable\nerror: 1 file\(s\) could not be read: the report is incomplete\n$/,
    );
    assert.match(r.stdout, /^CERTIFICATE /);
  } finally {
    cleanup();
  }
});
