/**
 * toYaml()'s fast path against the yaml library's rendering (toYamlByLibrary):
 * the same bytes for every value, whichever path renders it.
 */

import assert from "node:assert/strict";
import { toYaml, toYamlByLibrary } from "../../lib/k8s/manifest.ts";

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces that sit at the edges of plain, quoted and non-string YAML.
const PIECES = [
  "a",
  "Z",
  "0",
  "1",
  "9",
  " ",
  ":",
  ": ",
  " #",
  "#",
  "-",
  "- ",
  ".",
  "/",
  "+",
  "=",
  "@",
  "_",
  "'",
  '"',
  "\\",
  "\t",
  "\n",
  "yes",
  "No",
  "ON",
  "null",
  "~",
  "e5",
  "E-3",
  "0x1f",
  "0o7",
  "1_000",
  "1:20",
  "2026-01-02",
  "T03:04:05Z",
  ".inf",
  ".nan",
  "[",
  "]",
  "{",
  "}",
  ",",
  "!",
  "&",
  "*",
  "%",
  "`",
  "|",
  ">",
  "?",
  "é",
  "\u2028",
  "\ufeff",
  "\x7f",
  "system",
  "node",
  "kube-system",
];

function randomString(r: () => number): string {
  let s = "";
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const x = r();
  if (depth > 3 || x < 0.45) {
    const y = r();
    if (y < 0.75) return randomString(r);
    if (y < 0.85) return Math.floor((r() - 0.5) * 1e6);
    if (y < 0.9) return r() < 0.5;
    if (y < 0.93) return null;
    if (y < 0.96) return r() * 10;
    return -0;
  }
  if (x < 0.7) {
    return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  }
  const obj: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const key = r() < 0.7
      ? ["apiVersion", "kind", "metadata", "name", "spec", "a1", "a10", "a2", "b", "B"][
        Math.floor(r() * 10)
      ]!
      : randomString(r);
    obj[key] = randomValue(r, depth + 1);
  }
  return obj;
}

Deno.test("toYaml() gives the yaml library's bytes for 20,000 random values", () => {
  const r = rng(13);
  for (let i = 0; i < 20_000; i++) {
    const v = randomValue(r, 0);
    assert.equal(toYaml(v), toYamlByLibrary(v), JSON.stringify(v));
  }
});

Deno.test("toYaml() gives the yaml library's bytes for CSR, Secret and List objects", () => {
  const csr = {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: "csr-00001", creationTimestamp: null, labels: {} },
    spec: {
      groups: ["system:bootstrappers", "system:authenticated"],
      request: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
      signerName: "kubernetes.io/kube-apiserver-client-kubelet",
      usages: ["digital signature", "client auth"],
      username: "system:node:node-1",
      expirationSeconds: 86400,
    },
    status: {
      conditions: [{
        lastTransitionTime: "2026-01-01T00:00:00Z",
        lastUpdateTime: "2026-01-01T00:00:00Z",
        message: "This CSR was approved by kubectl certificate approve.",
        reason: "KubectlApprove",
        status: "True",
        type: "Approved",
      }],
      certificate: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==",
    },
  };
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
    stringData: {
      "token-id": "abcdef",
      "token-secret": "0123456789abcdef",
      expiration: "2026-01-02T00:00:00Z",
      "usage-bootstrap-authentication": "true",
      "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
      description: "a token: with a colon, # and 'quotes'",
    },
  };
  const list = { apiVersion: "v1", items: [csr, secret, {}, []], kind: "List", metadata: {} };
  const odd = {
    when: new Date("2026-01-02T03:04:05Z"),
    bytes: new Uint8Array([1, 2]),
    map: new Map([["a", 1]]),
    bare: Object.assign(Object.create(null), { b: "x" }),
  };
  for (const v of [csr, secret, list, "yes", "", 1, [], {}, [[1]], { "1": 2 }, odd]) {
    assert.equal(toYaml(v), toYamlByLibrary(v), JSON.stringify(v));
  }
});
