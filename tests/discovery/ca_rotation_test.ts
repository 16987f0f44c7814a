/**
 * Classifying artefacts during a CA rotation (lib/discovery/ca_rotation.ts):
 * trust bundles, pins with kubeadm's CheckAny rule, and each kind of object
 * the check reads.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createCa } from "../../lib/pki/ca.ts";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import {
  checkArtefact,
  joinCommandPins,
  newCaFrom,
  pinStatus,
  trustStatus,
} from "../../lib/discovery/ca_rotation.ts";

const now = new Date("2026-01-01T00:00:00Z");
const mk = () =>
  createCa({ commonName: "kubernetes", keyType: "ecdsa-p256", now, validityMs: 3.6e9 });
const oldCa = await mk();
const newCa = await mk();
const NEW = newCaFrom([parseCertificate(newCa.certDer)]);
const oldCert = parseCertificate(oldCa.certDer);
const newCert = parseCertificate(newCa.certDer);
const b64 = (s: string) => Buffer.from(s).toString("base64");

Deno.test("trustStatus() new-only, old+new, old-only by public key", () => {
  const rows: [typeof oldCert[], string][] = [
    [[newCert], "new-only"],
    [[oldCert, newCert], "old+new"],
    [[newCert, oldCert], "old+new"],
    [[oldCert], "old-only"],
  ];
  for (const [cas, want] of rows) assert.equal(trustStatus(cas, NEW).status, want);
});

Deno.test("pinStatus() any pin of the new CA counts (CheckAny); none is unpinned", () => {
  assert.equal(pinStatus([newCa.hash], NEW).status, "new-only");
  assert.equal(pinStatus([oldCa.hash, newCa.hash], NEW).status, "old+new");
  assert.equal(
    pinStatus([newCa.hash.toUpperCase().replace("SHA256", "sha256")], NEW).status,
    "new-only",
  );
  assert.equal(pinStatus([oldCa.hash], NEW).status, "old-only");
  assert.equal(pinStatus([], NEW).status, "unpinned");
});

Deno.test("joinCommandPins() reads every --discovery-token-ca-cert-hash form", () => {
  assert.deepEqual(
    joinCommandPins(
      "kubeadm join 1.2.3.4:6443 --token abcdef.0123456789abcdef \\\n" +
        "  --discovery-token-ca-cert-hash sha256:aa --discovery-token-ca-cert-hash=sha256:bb,sha256:cc\n",
    ),
    ["sha256:aa", "sha256:bb", "sha256:cc"],
  );
});

const CASES: { what: string; text: string; kind: string; status: string }[] = [
  {
    what: "a JoinConfiguration's caCertHashes",
    text:
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    caCertHashes: [${oldCa.hash}]\n    token: abcdef.0123456789abcdef\n    apiServerEndpoint: 1.2.3.4:6443\n`,
    kind: "JoinConfiguration pins",
    status: "old-only",
  },
  {
    what: "the kube-root-ca.crt ConfigMap",
    text: JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kube-root-ca.crt", namespace: "default" },
      data: { "ca.crt": oldCa.certPem + newCa.certPem },
    }),
    kind: "ca.crt bundle",
    status: "old+new",
  },
  {
    what: "a service-account token Secret's ca.crt",
    text: `apiVersion: v1\nkind: Secret\nmetadata: {name: t}\ndata:\n  ca.crt: ${
      b64(newCa.certPem)
    }\n`,
    kind: "ca.crt bundle",
    status: "new-only",
  },
  {
    what: "a kubeconfig",
    text:
      `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n    server: https://1.2.3.4:6443\n    certificate-authority-data: ${
        b64(oldCa.certPem)
      }\ncontexts: []\nusers: []\n`,
    kind: "kubeconfig CA",
    status: "old-only",
  },
  {
    what: "a kubeconfig naming its CA file",
    text:
      `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n    server: https://1.2.3.4:6443\n    certificate-authority: /etc/kubernetes/pki/ca.crt\n`,
    kind: "kubeconfig CA",
    status: "file-ref",
  },
  {
    what: "a CA bundle file",
    text: newCa.certPem + oldCa.certPem,
    kind: "CA bundle",
    status: "old+new",
  },
];

for (const c of CASES) {
  Deno.test(`checkArtefact() ${c.what}`, () => {
    const [f, ...rest] = checkArtefact(c.text, "f", NEW);
    assert.equal(rest.length, 0);
    assert.equal(f!.kind, c.kind);
    assert.equal(f!.status, c.status);
  });
}

Deno.test("checkArtefact() passes over keys and unrelated manifests", () => {
  assert.deepEqual(checkArtefact(oldCa.keyPem, "ca.key", NEW), []);
  assert.deepEqual(
    checkArtefact("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n", "ns", NEW),
    [],
  );
});

Deno.test("checkArtefact() judges each kubeadm join command of a file on its own; comments are not commands; shell quotes are removed", () => {
  const cmd = (pin: string) =>
    `kubeadm join 10.0.0.1:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash ${pin}`;
  const rows: [string, [string, string][]][] = [
    // Two nodes' commands: the old-only one is its own row (was one "old+new" row: a false pass).
    [`${cmd(newCa.hash)}\n${cmd(oldCa.hash)}\n`, [["f (line 1)", "new-only"], [
      "f (line 2)",
      "old-only",
    ]]],
    // A commented-out command's pin is used by no node (was counted: "old+new", a false pass).
    [`# ${cmd(newCa.hash)}\n${cmd(oldCa.hash)}\n`, [["f", "old-only"]]],
    [`#${cmd(oldCa.hash)}\nsudo ${cmd(newCa.hash)}\n`, [["f", "new-only"]]],
    // The shell removes the quotes before kubeadm sees the pin (was: a malformed pin, skipped).
    [cmd(`'${newCa.hash}'`), [["f", "new-only"]]],
    [cmd(`"${oldCa.hash},${newCa.hash}"`), [["f", "old+new"]]],
    // Continued lines are one command; CRLF line ends.
    [
      `kubeadm join 10.0.0.1:6443 \\\r\n  --discovery-token-ca-cert-hash ${oldCa.hash}\r\n${
        cmd(newCa.hash)
      }\r\n`,
      [["f (line 1)", "old-only"], ["f (line 3)", "new-only"]],
    ],
  ];
  for (const [text, want] of rows) {
    assert.deepEqual(
      checkArtefact(text, "f", NEW).map((r) => [r.artefact, r.status]),
      want,
      text,
    );
  }
});
