/**
 * `lib/phases/renew.ts`: `kubeadm certs renew` offline, against what real
 * kubeadm v1.32.5 did to the same kind of tree
 * (tests/fixtures/kubeadm_pki/renew/: its lines, which fields it kept, that
 * it made a new key and serial, the lifetime, the kubeconfigs' CA, what it
 * left alone; its refusals).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { type ControlPlanePkiSpec, controlPlanePkiSpec } from "../../lib/phases/certlist.ts";
import { buildControlPlanePki } from "../../lib/phases/certs.ts";
import { renewCertificates, renewHandlers } from "../../lib/phases/renew.ts";
import { checkPkiTree, dataField, kubeconfigParts, pemCerts } from "../../lib/phases/pki_check.ts";
import type { Cert } from "../../lib/pki/cert_info.ts";
import { repoPath } from "../_cli.ts";

const RENEW = repoPath("tests", "fixtures", "kubeadm_pki", "renew");
const kubeadm = JSON.parse(fs.readFileSync(path.join(RENEW, "kubeadm_renew_all.json"), "utf8"));
const refusals = JSON.parse(fs.readFileSync(path.join(RENEW, "kubeadm_refusals.json"), "utf8"));
const MADE = new Date("2026-01-01T00:00:00Z");
const NOW = new Date("2026-11-28T18:09:35Z");
const SPEC: ControlPlanePkiSpec = controlPlanePkiSpec({
  nodeName: "cp-1",
  advertiseAddress: "10.0.0.10",
  controlPlaneEndpoint: "cp.example.com:6443",
  apiServerCertSANs: ["extra.example.com", "192.0.2.7"],
  encryptionAlgorithm: "ECDSA-P256",
});
const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));
const dec = (b: Uint8Array) => Buffer.from(b).toString("utf8");

const made = await buildControlPlanePki({ spec: SPEC, now: MADE, existing: new Map() });
const tree = new Map(made.files.map((f) => [f.path, enc(f.data)]));

function certOf(files: ReadonlyMap<string, Uint8Array>, file: string): Cert {
  const data = dec(files.get(file)!);
  if (!file.endsWith(".conf")) return pemCerts(data, file)[0]!;
  const parts = kubeconfigParts(data, file);
  return pemCerts(dec(dataField(parts.user, "client-certificate-data")!), file)[0]!;
}

/** What kubeadm keeps (certToConfig), as text. */
const kept = (c: Cert) =>
  JSON.stringify({
    subject: [c.subject.commonName, c.subject.organization],
    issuer: Buffer.from(c.issuerDer).toString("hex"),
    dns: c.sans.dns,
    ips: c.sans.ips,
    eku: c.extKeyUsage,
    ku: c.keyUsage,
    ca: c.isCA,
  });

Deno.test("renewHandlers() are kubeadm's names in kubeadm's order (none for etcd with etcd.external)", () => {
  assert.deepEqual(
    renewHandlers({ externalEtcd: false }).map((h) => h.name),
    Object.keys(kubeadm.renewed),
  );
  assert.deepEqual(renewHandlers({ externalEtcd: true }).map((h) => h.name), [
    "admin.conf",
    "apiserver",
    "apiserver-kubelet-client",
    "controller-manager.conf",
    "front-proxy-client",
    "scheduler.conf",
    "super-admin.conf",
  ]);
});

Deno.test("renewCertificates() all: kubeadm's lines; the fields kubeadm keeps kept, a new key and serial, its lifetime, ca.crt in the kubeconfigs", async () => {
  const r = await renewCertificates({ names: ["all"], existing: tree, spec: SPEC, now: NOW });
  assert.deepEqual(r.lines, kubeadm.lines);
  const after = new Map(tree);
  for (const f of r.files) after.set(f.path, enc(f.data));
  for (
    const [name, facts] of Object.entries(kubeadm.renewed) as [string, Record<string, unknown>][]
  ) {
    const file = facts.file as string;
    const a = certOf(tree, file);
    const b = certOf(after, file);
    assert.equal(facts.keptFields, true);
    assert.equal(kept(b), kept(a), name);
    assert.equal(facts.newKey, true);
    assert.notDeepEqual(b.key.spki, a.key.spki, `${name}: a new key, as kubeadm`);
    assert.equal(facts.newSerial, true);
    assert.notDeepEqual(b.serial, a.serial, name);
    assert.equal(
      (b.notAfter.getTime() - b.notBefore.getTime()) / 1000,
      facts.lifetimeSeconds,
      name,
    );
    assert.equal(b.notBefore.toISOString(), "2026-11-28T18:04:35.000Z", name);
    if (facts.caDataIsCaCrt !== undefined) {
      const parts = kubeconfigParts(dec(after.get(file)!), file);
      assert.equal(
        dec(dataField(parts.cluster, "certificate-authority-data")!),
        dec(tree.get("pki/ca.crt")!),
      );
      // Everything but the credentials is as it was.
      const mask = (t: string) => t.replace(/(-data: ).*/g, "$1X");
      assert.equal(mask(dec(after.get(file)!)), mask(dec(tree.get(file)!)), name);
    }
  }
  // What kubeadm left alone is not written.
  const written = new Set(r.files.map((f) => f.path));
  for (const f of kubeadm.untouched as string[]) assert.ok(!written.has(f), f);
  assert.equal(r.files.length, 7 * 2 + 4);
  // The tree is still kubeadm's as a whole.
  assert.deepEqual(checkPkiTree(after, { now: NOW, spec: SPEC }), []);
});

Deno.test("renewCertificates() by name: only those; the configuration's algorithm decides the new key (RSA ↔ ECDSA)", async () => {
  const r = await renewCertificates({
    names: ["front-proxy-client", "scheduler.conf"],
    existing: tree,
    spec: { ...SPEC, encryptionAlgorithm: "RSA-2048" },
    now: NOW,
  });
  assert.deepEqual(r.lines, [
    "certificate for the front proxy client renewed",
    "certificate embedded in the kubeconfig file for the scheduler manager to use renewed",
  ]);
  assert.deepEqual(r.files.map((f) => f.path), [
    "pki/front-proxy-client.crt",
    "pki/front-proxy-client.key",
    "scheduler.conf",
  ]);
  assert.match(r.files[1]!.data, /^-----BEGIN RSA PRIVATE KEY-----/);
  const after = new Map(tree);
  for (const f of r.files) after.set(f.path, enc(f.data));
  assert.equal(certOf(after, "scheduler.conf").key.type, "RSA");
});

Deno.test("renewCertificates() refuses as kubeadm does, before writing anything; a missing file is a MISSING! line", async () => {
  const text = (c: string) => refusals.cases[c];
  // External CA: kubeadm prints the line and renews nothing; joinkit refuses with it.
  const external = new Map([...tree].filter(([p]) => p !== "pki/ca.key"));
  await assert.rejects(
    renewCertificates({ names: ["apiserver"], existing: external, spec: SPEC, now: NOW }),
    { message: text("external CA: renew apiserver").stdout[0] },
  );
  const noCaAtAll = new Map(
    [...tree].filter(([p]) => !/^pki\/(ca|front-proxy-ca|etcd\/ca)\.key$/.test(p)),
  );
  await assert.rejects(
    renewCertificates({ names: ["all"], existing: noCaAtAll, spec: SPEC, now: NOW }),
    { message: text("external CA (assembled tree, no CA keys): renew all").stdout[0] },
  );
  const noCaCrt = new Map([...tree].filter(([p]) => p !== "pki/ca.crt"));
  await assert.rejects(
    renewCertificates({ names: ["apiserver"], existing: noCaCrt, spec: SPEC, now: NOW }),
    {
      message: text("ca.crt missing: renew apiserver").stderr[0].split(": couldn't")[0] +
        ": pki/ca.crt: missing",
    },
  );
  const noCaData = new Map(tree);
  noCaData.set(
    "admin.conf",
    enc(dec(tree.get("admin.conf")!).replace(/ *certificate-authority-data: .*\n/, "")),
  );
  await assert.rejects(
    renewCertificates({ names: ["admin.conf"], existing: noCaData, spec: SPEC, now: NOW }),
    {
      message: text("admin.conf without certificate-authority-data: renew admin.conf").stderr[0]
        .replace("/etc/kubernetes/", ""),
    },
  );
  await assert.rejects(
    renewCertificates({ names: ["kubelet.conf"], existing: tree, spec: SPEC, now: NOW }),
    {
      message:
        /^kubelet\.conf is not a valid certificate for this cluster \(one of: all, admin\.conf, /,
    },
  );
  const wrongCaKey = new Map(tree);
  wrongCaKey.set("pki/ca.key", tree.get("pki/front-proxy-ca.key")!);
  await assert.rejects(
    renewCertificates({ names: ["apiserver"], existing: wrongCaKey, spec: SPEC, now: NOW }),
    { message: "pki/ca.key: private key does not match pki/ca.crt" },
  );
  const missing = new Map([...tree].filter(([p]) => p !== "pki/apiserver.crt"));
  const r = await renewCertificates({
    names: ["apiserver"],
    existing: missing,
    spec: SPEC,
    now: NOW,
  });
  assert.deepEqual(r.lines, ["MISSING! certificate for serving the Kubernetes API"]);
  assert.deepEqual(r.files, []);
  assert.deepEqual(r.renewed, []);
  // all over an empty tree: kubeadm's MISSING! lines, but no "Done renewing" claim (the caller errs).
  const none = await renewCertificates({
    names: ["all"],
    existing: new Map(),
    spec: SPEC,
    now: NOW,
  });
  assert.deepEqual(none.renewed, []);
  assert.equal(none.lines.length, 11);
  assert.ok(none.lines.every((l) => l.startsWith("MISSING! ")), none.lines.join("\n"));
});
