/**
 * `kubeadm init phase upload-certs` / `join`'s `download-certs`, offline:
 * kubeadm's file list and data keys (copycerts_test.go vectors), the
 * objects and their exact fields, and the join side's checks.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { CheckError } from "../../lib/base/errors.ts";
import { decryptBytes } from "../../lib/pki/aes_gcm.ts";
import {
  CERT_TOKEN_DESCRIPTION,
  certOrKeyNameToSecretName,
  certsToTransfer,
  DEFAULT_CERT_TOKEN_TTL_MS,
  downloadCerts,
  entryKind,
  findKubeadmCertsSecret,
  secretBytes,
  secretUsesExternalEtcd,
  uploadCerts,
} from "../../lib/phases/upload_certs.ts";
import { renderObjects } from "../../lib/k8s/manifest.ts";
import { repoPath } from "../_cli.ts";
import { GO, goOpen, noteGoAbsent } from "../_go_gcm.ts";

const PKI = repoPath("tests/fixtures/upload_certs/pki");
const KEY = new Uint8Array(Buffer.from(
  "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204",
  "hex",
));
const TOKEN = { id: "abcdef", secret: "0123456789abcdef" };
const NOW = new Date("2026-01-01T00:00:00Z");

function readPki(transfer = certsToTransfer()): Map<string, Uint8Array | undefined> {
  return new Map(
    transfer.map((f) => [f.name, new Uint8Array(fs.readFileSync(path.join(PKI, f.path)))]),
  );
}

Deno.test("certOrKeyNameToSecretName() follows copycerts_test.go TestCertOrKeyNameToSecretName", () => {
  const rows: [string, string][] = [
    ["apiserver-kubelet-client.crt", "apiserver-kubelet-client.crt"],
    ["etcd/ca.crt", "etcd-ca.crt"],
    ["etcd/healthcheck-client.crt", "etcd-healthcheck-client.crt"],
  ];
  for (const [name, key] of rows) assert.equal(certOrKeyNameToSecretName(name), key);
});

Deno.test("certsToTransfer() lists kubeadm's files for local and external etcd (TestCertsToTransfer)", () => {
  const common = [
    "ca.crt",
    "ca.key",
    "front-proxy-ca.crt",
    "front-proxy-ca.key",
    "sa.key",
    "sa.pub",
  ];
  assert.deepEqual(
    certsToTransfer().map((f) => f.name),
    [...common, "etcd/ca.crt", "etcd/ca.key"].sort(),
  );
  const ext = certsToTransfer({ caFile: "/e/ca.crt", certFile: "/e/c.crt", keyFile: "/e/c.key" });
  assert.deepEqual(
    ext.map((f) => f.name),
    [...common, "external-etcd-ca.crt", "external-etcd.crt", "external-etcd.key"].sort(),
  );
  const byName = Object.fromEntries(ext.map((f) => [f.name, f]));
  assert.deepEqual(byName["external-etcd.key"], {
    name: "external-etcd.key",
    path: "/e/c.key",
    inCertDir: false,
    secretKey: "external-etcd.key",
  });
  // Every data key is a valid Secret key (copycerts_test.go checks [-._a-zA-Z0-9]+).
  for (const f of [...certsToTransfer(), ...ext]) assert.match(f.secretKey, /^[-._a-zA-Z0-9]+$/);
});

Deno.test("uploadCerts() renders the token, kubeadm-certs, Role and RoleBinding as kubeadm creates them", () => {
  const transfer = certsToTransfer();
  const files = readPki(transfer);
  const nonce = Uint8Array.from({ length: 12 }, (_, i) => i);
  const { objects, expiration } = uploadCerts({
    key: KEY,
    files,
    transfer,
    token: TOKEN,
    ttlMs: DEFAULT_CERT_TOKEN_TTL_MS,
    now: NOW,
    ownerUid: "3b9a4c2e-1111-4222-8333-944455556666",
    random: () => nonce,
  });
  assert.equal(expiration, "2026-01-01T02:00:00Z");
  const [token, certs, role, binding] = objects;
  // The TTL token: description, expiration, no usages, no groups.
  assert.deepEqual(token, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
    data: {
      "token-id": Buffer.from("abcdef").toString("base64"),
      "token-secret": Buffer.from("0123456789abcdef").toString("base64"),
      description: Buffer.from(CERT_TOKEN_DESCRIPTION).toString("base64"),
      expiration: Buffer.from("2026-01-01T02:00:00Z").toString("base64"),
    },
  });
  assert.equal(CERT_TOKEN_DESCRIPTION, "Proxy for managing TTL for the kubeadm-certs secret");
  // kubeadm-certs: no type, the controller owner reference, one encrypted entry per file.
  assert.equal(certs!.type, undefined);
  assert.deepEqual(certs!.metadata, {
    name: "kubeadm-certs",
    namespace: "kube-system",
    ownerReferences: [{
      apiVersion: "v1",
      blockOwnerDeletion: true,
      controller: true,
      kind: "Secret",
      name: "bootstrap-token-abcdef",
      uid: "3b9a4c2e-1111-4222-8333-944455556666",
    }],
  });
  const data = certs!.data as Record<string, string>;
  assert.deepEqual(Object.keys(data).sort(), transfer.map((f) => f.secretKey).sort());
  for (const f of transfer) {
    const blob = Buffer.from(data[f.secretKey]!, "base64");
    const plain = files.get(f.name)!;
    assert.equal(blob.length, plain.length + 28, f.name);
    assert.deepEqual([...blob.subarray(0, 12)], [...nonce], `${f.name}: the nonce leads`);
    assert.deepEqual(decryptBytes(new Uint8Array(blob), KEY), plain, f.name);
  }
  assert.deepEqual(role, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "kubeadm:kubeadm-certs", namespace: "kube-system" },
    rules: [{
      apiGroups: [""],
      resourceNames: ["kubeadm-certs"],
      resources: ["secrets"],
      verbs: ["get"],
    }],
  });
  assert.deepEqual(binding, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "kubeadm:kubeadm-certs", namespace: "kube-system" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "kubeadm:kubeadm-certs" },
    subjects: [{ kind: "Group", name: "system:bootstrappers:kubeadm:default-node-token" }],
  });
});

Deno.test("uploadCerts() without the token's uid renders no ownerReference; a missing file is empty data", () => {
  const transfer = certsToTransfer();
  const files = readPki(transfer);
  files.set("ca.key", undefined);
  const { objects } = uploadCerts({
    key: KEY,
    files,
    transfer,
    token: TOKEN,
    ttlMs: 1000,
    now: NOW,
  });
  const certs = objects[1]!;
  assert.deepEqual(certs.metadata, { name: "kubeadm-certs", namespace: "kube-system" });
  assert.equal((certs.data as Record<string, string>)["ca.key"], "");
});

function uploaded(files = readPki(), transfer = certsToTransfer()): Map<string, Uint8Array> {
  const { objects } = uploadCerts({
    key: KEY,
    files,
    transfer,
    token: TOKEN,
    ttlMs: 1000,
    now: NOW,
  });
  const text = renderObjects(objects, "yaml");
  return secretBytes(findKubeadmCertsSecret(text, "stream"), "stream");
}

Deno.test("downloadCerts() round-trips every file with kubeadm's modes (keys 0600, certs and sa.pub 0644)", () => {
  const files = readPki();
  const entries = downloadCerts(uploaded(files), KEY, certsToTransfer());
  const modes = Object.fromEntries(entries.map((e) => [e.file.name, e.mode?.toString(8)]));
  assert.deepEqual(modes, {
    "ca.crt": "644",
    "ca.key": "600",
    "etcd/ca.crt": "644",
    "etcd/ca.key": "600",
    "front-proxy-ca.crt": "644",
    "front-proxy-ca.key": "600",
    "sa.key": "600",
    "sa.pub": "644",
  });
  for (const e of entries) assert.deepEqual(e.data, files.get(e.file.name), e.file.name);
});

Deno.test("downloadCerts() refuses with kubeadm's texts: wrong key, missing entry, unknown data", () => {
  const data = uploaded();
  const wrong = KEY.slice();
  wrong[31]! ^= 0x80;
  assert.throws(
    () => downloadCerts(data, wrong, certsToTransfer()),
    (e) =>
      e instanceof CheckError &&
      e.message ===
        "error decoding secret data with provided key: cipher: message authentication failed",
  );
  const missing = new Map(data);
  missing.delete("sa.pub");
  assert.throws(
    () => downloadCerts(missing, KEY, certsToTransfer()),
    (e) =>
      e instanceof CheckError &&
      e.message ===
        "the Secret does not include the required certificate or key - name: sa.pub, path: sa.pub",
  );
  const files = readPki();
  files.set("sa.pub", new TextEncoder().encode("not a key\n"));
  assert.throws(
    () => downloadCerts(uploaded(files), KEY, certsToTransfer()),
    (e) => e instanceof CheckError && e.message === "sa.pub: unknown data found in Secret entry",
  );
  // An external-etcd join reads a local-etcd Secret: the external entries are missing.
  assert.throws(
    () => downloadCerts(data, KEY, certsToTransfer({ caFile: "", certFile: "", keyFile: "" })),
    /name: external-etcd-ca\.crt, path: $/,
  );
});

Deno.test("downloadCerts() skips an empty entry, as kubeadm does (external CA: no ca.key)", () => {
  const files = readPki();
  files.set("ca.key", undefined);
  const entries = downloadCerts(uploaded(files), KEY, certsToTransfer());
  const caKey = entries.find((e) => e.file.name === "ca.key")!;
  assert.equal(caKey.data.length, 0);
  assert.equal(caKey.mode, undefined);
});

Deno.test("secretUsesExternalEtcd() tells the layouts apart by their data keys", () => {
  assert.equal(secretUsesExternalEtcd(uploaded()), false);
  const ext = { caFile: "/x/ca.crt", certFile: "/x/c.crt", keyFile: "/x/c.key" };
  const transfer = certsToTransfer(ext);
  const files = readPki(certsToTransfer());
  files.set("external-etcd-ca.crt", files.get("etcd/ca.crt"));
  files.set("external-etcd.crt", files.get("ca.crt"));
  files.set("external-etcd.key", files.get("ca.key"));
  assert.equal(secretUsesExternalEtcd(uploaded(files, transfer)), true);
});

Deno.test("entryKind() decides as writeCertOrKey: private key, else certificates or public keys, else unknown", () => {
  const read = (n: string) => new Uint8Array(fs.readFileSync(path.join(PKI, n)));
  const rows: [string, Uint8Array, string | undefined][] = [
    ["SEC 1 EC key", read("ca.key"), "private key"],
    ["PKCS#1 RSA key", read("sa.key"), "private key"],
    ["certificate", read("ca.crt"), "certificate or public key"],
    ["PKIX public key", read("sa.pub"), "certificate or public key"],
    ["text", new TextEncoder().encode("hello\n"), undefined],
    [
      "empty PEM block",
      new TextEncoder().encode("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"),
      undefined,
    ],
  ];
  for (const [what, data, kind] of rows) assert.equal(entryKind(data), kind, what);
});

Deno.test("secretBytes() reads data as raw bytes, null as empty, and refuses bad base64", () => {
  const m = secretBytes({ kind: "Secret", data: { a: "AP8=", b: null } }, "x");
  assert.deepEqual([...m.get("a")!], [0, 255]);
  assert.equal(m.get("b")!.length, 0);
  assert.throws(
    () => secretBytes({ kind: "Secret", data: { a: "A" } }, "x.yaml"),
    /x\.yaml: .*not valid base64/,
  );
  assert.throws(
    () => findKubeadmCertsSecret("kind: ConfigMap\n", "y.yaml"),
    /y\.yaml: no Secret kube-system\/kubeadm-certs/,
  );
});

noteGoAbsent("upload_certs_test");

Deno.test({
  name: `uploadCerts() Secret decrypts with Go's crypto/cipher to the pki/ files (live${
    GO ? "" : "; skipped: go not found"
  })`,
  ignore: !GO,
  fn: () => {
    const files = readPki();
    const data = uploaded(files);
    const keyHex = Buffer.from(KEY).toString("hex");
    for (const f of certsToTransfer()) {
      const plain = goOpen(keyHex, data.get(f.secretKey)!);
      assert.equal(plain, Buffer.from(files.get(f.name)!).toString("hex"), f.name);
    }
    // And Go refuses it under another key, as kubeadm join would.
    assert.throws(() => goOpen("00".repeat(32), data.get("ca.key")!));
  },
});
