/**
 * `lib/phases/pki_check.ts`: a kubeadm tree checked as a whole. A tree
 * joinkit renders passes with and without the configuration; each kind of
 * drift (a leaf signed by the wrong CA, a key that is not the
 * certificate's, kubeadm's subjects and usages, a kubeconfig with another
 * CA or another identity, missing SANs, another server, sa.pub) is one
 * finding naming the file and the rule. Also `doctor()` reporting them.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { type ControlPlanePkiSpec, controlPlanePkiSpec } from "../../lib/phases/certlist.ts";
import { buildControlPlanePki } from "../../lib/phases/certs.ts";
import { checkPkiTree, findPkiTrees, type PkiFinding } from "../../lib/phases/pki_check.ts";
import { doctor } from "../../lib/phases/doctor.ts";

const NOW = new Date("2026-06-04T10:00:00Z");
const SPEC: ControlPlanePkiSpec = controlPlanePkiSpec({
  nodeName: "cp-1",
  advertiseAddress: "10.0.0.10",
  controlPlaneEndpoint: "cp.example.com:6443",
  apiServerCertSANs: ["extra.example.com", "192.0.2.7"],
  encryptionAlgorithm: "ECDSA-P256",
});

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));
const dec = (b: Uint8Array) => Buffer.from(b).toString("utf8");

async function tree(spec = SPEC): Promise<Map<string, Uint8Array>> {
  const pki = await buildControlPlanePki({ spec, now: NOW, existing: new Map() });
  return new Map(pki.files.map((f) => [f.path, enc(f.data)]));
}

const base = await tree();
/** A second tree: other CAs and keys, the same names. */
const other = await tree();

function drift(change: (t: Map<string, Uint8Array>) => void): Map<string, Uint8Array> {
  const t = new Map(base);
  change(t);
  return t;
}

/** A kubeconfig's field replaced by another kubeconfig's. */
function swapField(text: string, from: string, field: string): string {
  const re = new RegExp(`${field}: (\\S+)`);
  return text.replace(re, `${field}: ${re.exec(from)![1]}`);
}

const rules = (f: PkiFinding[]) => f.map((x) => `${x.file} ${x.rule}`);

Deno.test("checkPkiTree() passes a tree joinkit renders, with and without the configuration", () => {
  assert.deepEqual(checkPkiTree(base, { now: NOW }), []);
  assert.deepEqual(checkPkiTree(base, { now: NOW, spec: SPEC }), []);
});

Deno.test("checkPkiTree() reports each drift with the file and the rule", () => {
  const cases: [string, (t: Map<string, Uint8Array>) => void, string[], RegExp?][] = [
    [
      "front-proxy-client signed by ca (the apiserver-kubelet-client pair copied over it)",
      (t) => {
        t.set("pki/front-proxy-client.crt", t.get("pki/apiserver-kubelet-client.crt")!);
        t.set("pki/front-proxy-client.key", t.get("pki/apiserver-kubelet-client.key")!);
      },
      ["pki/front-proxy-client.crt chain", "pki/front-proxy-client.crt subject"],
      /certificate front-proxy client is not signed by corresponding CA \(pki\/front-proxy-ca\.crt\): x509: /,
    ],
    [
      "etcd/server from another tree's etcd CA",
      (t) => {
        t.set("pki/etcd/server.crt", other.get("pki/etcd/server.crt")!);
        t.set("pki/etcd/server.key", other.get("pki/etcd/server.key")!);
      },
      ["pki/etcd/server.crt chain"],
      /certificate etcd server is not signed by corresponding CA \(pki\/etcd\/ca\.crt\): x509: certificate signed by unknown authority/,
    ],
    [
      "apiserver.key is another key",
      (t) => t.set("pki/apiserver.key", other.get("pki/apiserver.key")!),
      ["pki/apiserver.key key"],
      /^private key does not match pki\/apiserver\.crt$/,
    ],
    [
      "ca.key is not ca.crt's",
      (t) => t.set("pki/ca.key", other.get("pki/ca.key")!),
      ["pki/ca.key key"],
    ],
    [
      "a leaf in the CA file",
      (t) => t.set("pki/front-proxy-ca.crt", t.get("pki/front-proxy-client.crt")!),
      ["pki/front-proxy-ca.crt ca"],
      /^certificate front-proxy CA is not a CA$/,
    ],
    [
      "apiserver.crt missing",
      (t) => t.delete("pki/apiserver.crt"),
      ["pki/apiserver.crt missing"],
    ],
    [
      "sa.pub of another key",
      (t) => t.set("pki/sa.pub", other.get("pki/sa.pub")!),
      ["pki/sa.pub sa"],
    ],
    [
      "admin.conf embeds another CA",
      (t) =>
        t.set(
          "admin.conf",
          enc(
            swapField(
              dec(t.get("admin.conf")!),
              dec(other.get("admin.conf")!),
              "certificate-authority-data",
            ),
          ),
        ),
      ["admin.conf kubeconfig"],
      /does not embed pki\/ca\.crt/,
    ],
    [
      "admin.conf carries super-admin's credentials (O=system:masters)",
      (t) => {
        let text = dec(t.get("admin.conf")!);
        const sa = dec(t.get("super-admin.conf")!);
        text = swapField(text, sa, "client-certificate-data");
        text = swapField(text, sa, "client-key-data");
        t.set("admin.conf", enc(text));
      },
      ["admin.conf subject", "admin.conf kubeconfig"],
      /client certificate subject is CN=kubernetes-super-admin, O=system:masters, kubeadm's is CN=kubernetes-admin, O=kubeadm:cluster-admins/,
    ],
    [
      "scheduler.conf's client key is another key",
      (t) =>
        t.set(
          "scheduler.conf",
          enc(
            swapField(
              dec(t.get("scheduler.conf")!),
              dec(other.get("scheduler.conf")!),
              "client-key-data",
            ),
          ),
        ),
      ["scheduler.conf key"],
    ],
    [
      "kubelet.conf's client certificate from another CA",
      (t) => {
        let text = dec(t.get("kubelet.conf")!);
        const o = dec(other.get("kubelet.conf")!);
        text = swapField(text, o, "client-certificate-data");
        text = swapField(text, o, "client-key-data");
        t.set("kubelet.conf", enc(text));
      },
      ["kubelet.conf chain"],
      /client certificate is not signed by pki\/ca\.crt: x509: certificate signed by unknown authority/,
    ],
    [
      "super-admin.conf missing beside the others",
      (t) => t.delete("super-admin.conf"),
      ["super-admin.conf missing"],
    ],
  ];
  for (const [what, change, want, message] of cases) {
    const found = checkPkiTree(drift(change), { now: NOW });
    assert.deepEqual(rules(found), want, `${what}: ${JSON.stringify(found)}`);
    if (message) assert.match(found[0]!.message, message, what);
  }
});

Deno.test("checkPkiTree() with the configuration: SANs kubeadm computes and kubeadm's servers", () => {
  const more = controlPlanePkiSpec({
    ...SPEC,
    apiServerCertSANs: [...SPEC.apiServerCertSANs, "new.example.com", "192.0.2.8"],
    controlPlaneEndpoint: "cp2.example.com:6443",
  });
  const found = checkPkiTree(base, { now: NOW, spec: more });
  assert.deepEqual(rules(found), [
    "pki/apiserver.crt san",
    "admin.conf server",
    "super-admin.conf server",
    "kubelet.conf server",
  ]);
  assert.equal(
    found[0]!.message,
    "lacks DNS:cp2.example.com, DNS:new.example.com, IP:192.0.2.8 that the configuration gives (kubeadm join --control-plane refuses it)",
  );
  assert.equal(
    found[1]!.message,
    "server is https://cp.example.com:6443, kubeadm's is https://cp2.example.com:6443",
  );
});

Deno.test("checkPkiTree() passes over what a CA set alone lacks (upload-certs' input) and external etcd", () => {
  const cas = new Map(
    [...base].filter(([p]) => /^pki\/(ca|front-proxy-ca|etcd\/ca)\.(crt|key)$|^pki\/sa\./.test(p)),
  );
  assert.deepEqual(checkPkiTree(cas, { now: NOW }), []);
  const noEtcd = new Map([...base].filter(([p]) => !p.includes("etcd")));
  assert.deepEqual(checkPkiTree(noEtcd, { now: NOW }), []);
});

Deno.test("findPkiTrees() finds DIR/pki/ca.crt trees and bare cert dirs", () => {
  assert.deepEqual(
    findPkiTrees([
      "out/pki/ca.crt",
      "out/pki/etcd/ca.crt",
      "cp-2/pki/ca.crt",
      "certs/ca.crt",
      "certs/apiserver.crt",
      "loose/ca.crt",
    ]),
    [
      { root: "certs/", pki: "certs/" },
      { root: "cp-2/", pki: "cp-2/pki/" },
      { root: "out/", pki: "out/pki/" },
    ],
  );
});

Deno.test("doctor() reports tree drift as 'pki' findings and counts the trees", async () => {
  const t = drift((x) => x.set("pki/apiserver.key", other.get("pki/apiserver.key")!));
  const files = [...t].map(([p, b]) => ({ name: `cp/${p}`, text: dec(b), bytes: b }));
  const report = await doctor(files, NOW);
  assert.equal(report.pkiTrees, 1);
  assert.deepEqual(report.findings, [{
    file: "cp/pki/apiserver.key",
    object: "kubeadm PKI",
    field: "key",
    check: "pki",
    message: "private key does not match pki/apiserver.crt",
  }]);
  const clean = [...base].map(([p, b]) => ({ name: `cp/${p}`, text: dec(b), bytes: b }));
  const ok = await doctor(clean, NOW, { pkiSpec: SPEC });
  assert.deepEqual(ok.findings, []);
});

Deno.test("checkPkiTree() checks each node directory of a several-node run against the one configuration", async () => {
  const pki = await buildControlPlanePki({
    spec: SPEC,
    nodes: [{ name: "cp-1", advertiseAddress: "10.0.0.10" }, {
      name: "cp-2",
      advertiseAddress: "10.0.0.12",
    }],
    now: NOW,
    existing: new Map(),
  });
  const all = pki.files.map((f) => ({ name: f.path, text: f.data, bytes: enc(f.data) }));
  const trees = findPkiTrees(all.map((f) => f.name));
  assert.deepEqual(trees.map((t) => t.root), ["cp-1/", "cp-2/"]);
  for (const t of trees) {
    const files = new Map(
      all.filter((f) => f.name.startsWith(t.root)).map((
        f,
      ) => [f.name.slice(t.root.length), f.bytes]),
    );
    // cp-2 is not the configuration's node: its own name and address (from the tree) count.
    assert.deepEqual(checkPkiTree(files, { now: NOW, spec: SPEC }), [], t.root);
  }
  // cp-2's certificates in cp-1's directory: the etcd certificates name another node than kubelet.conf.
  const mixed = new Map(
    all.filter((f) => f.name.startsWith("cp-1/")).map((f) => [f.name.slice(5), f.bytes]),
  );
  mixed.set("kubelet.conf", all.find((f) => f.name === "cp-2/kubelet.conf")!.bytes);
  assert.deepEqual(rules(checkPkiTree(mixed, { now: NOW, spec: SPEC })), ["kubelet.conf subject"]);
});
