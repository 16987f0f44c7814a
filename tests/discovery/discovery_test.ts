import assert from "node:assert/strict";
import * as fs from "node:fs";
import { computeDetachedSignature } from "../../lib/discovery/jws.ts";
import { verifyClusterInfo } from "../../lib/discovery/discovery.ts";
import { findClusterInfo } from "../../lib/discovery/cluster_info.ts";
import { kubeconfigYaml } from "../../lib/k8s/kubeconfig_yaml.ts";
import { CheckError } from "../../lib/base/errors.ts";
import { repoPath } from "../_cli.ts";
import { Buffer } from "node:buffer";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import { parseCertsPem } from "../../lib/pki/certsource.ts";
import { caCertHash } from "../../lib/pki/pin.ts";

// k/k cmd/kubeadm/app/discovery/token/token_test.go (TestRetrieveValidatedConfigInfo) and testdata.
const TOKEN = "123456.abcdef1234567890";
const CA_HASH = "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658";
const OTHER_HASH = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
const EXPECTED = fs.readFileSync(
  repoPath("tests/fixtures/discovery/expected-kubeconfig.yaml"),
  "utf8",
);
const SIG = computeDetachedSignature(EXPECTED, "123456", "abcdef1234567890");
const PREFIX = "couldn't validate the identity of the API Server: ";

function run(data: Record<string, string>, token = TOKEN, pins = [CA_HASH], unsafe = false) {
  return verifyClusterInfo({ data, token, caCertHashes: pins, unsafeSkipCAVerification: unsafe });
}

function fails(fn: () => unknown, message: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CheckError, String(e));
    assert.equal(e.message, message);
    assert.ok(!e.message.includes("abcdef1234567890"), "secret leaked");
    return true;
  });
}

Deno.test("verifyClusterInfo() upstream case: valid with CA pin returns the kubeconfig", () => {
  const r = run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": SIG });
  assert.equal(r.kubeconfig, EXPECTED);
  assert.equal(r.cluster.server, "https://127.0.0.1");
  assert.equal(r.pinnedIndex, 0);
  assert.equal(r.tokenId, "123456");
  const conf = kubeconfigYaml(r.bootstrapKubeconfig);
  assert.match(conf, /^ {2}name: kubernetes$/m);
  assert.match(conf, /^current-context: tls-bootstrap-token-user@kubernetes$/m);
  assert.match(conf, /^ {4}server: https:\/\/127\.0\.0\.1$/m);
  assert.match(conf, /^ {4}token: 123456\.abcdef1234567890$/m);
});

Deno.test("verifyClusterInfo() upstream case: valid without pin only with unsafe skip", () => {
  const data = { kubeconfig: EXPECTED, "jws-kubeconfig-123456": SIG };
  assert.equal(run(data, TOKEN, [], true).kubeconfig, EXPECTED);
  assert.equal(run(data, TOKEN, [], true).pinnedIndex, -1);
  fails(
    () => run(data, TOKEN, []),
    `discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue`,
  );
});

Deno.test("verifyClusterInfo() upstream case: invalid token", () => {
  fails(
    () => run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": SIG }, "foo.bar"),
    `discovery.bootstrapToken.token: Invalid value: "": the bootstrap token is invalid`,
  );
  fails(
    () => run({}, "foo.bar", []),
    `[discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue, discovery.bootstrapToken.token: Invalid value: "": the bootstrap token is invalid]`,
  );
});

Deno.test("verifyClusterInfo() upstream case: missing ConfigMap (named baz)", () => {
  const objects = [{
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "baz", namespace: "kube-public" },
  }];
  assert.throws(
    () => findClusterInfo(objects, "in.yaml"),
    /in\.yaml: ConfigMap kube-public\/baz is not kube-public\/cluster-info/,
  );
});

Deno.test("verifyClusterInfo() upstream case: wrong JWS", () => {
  fails(
    () => run({ kubeconfig: "foo", "jws-kubeconfig-123456": "bar" }),
    PREFIX +
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
  );
});

Deno.test("verifyClusterInfo() upstream case: no JWS for the token ID (also: signed for another token)", () => {
  fails(
    () => run({ kubeconfig: EXPECTED }),
    PREFIX + `could not find a JWS signature in the cluster-info ConfigMap for token ID "123456"`,
  );
  const other = computeDetachedSignature(EXPECTED, "654321", "abcdef1234567890");
  fails(
    () => run({ kubeconfig: EXPECTED, "jws-kubeconfig-654321": other }),
    PREFIX + `could not find a JWS signature in the cluster-info ConfigMap for token ID "123456"`,
  );
  // Another token's signature copied under our ID does not verify.
  fails(
    () => run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": other }),
    PREFIX +
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
  );
});

Deno.test("verifyClusterInfo() upstream case: wrong CA hash", () => {
  fails(
    () => run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": SIG }, TOKEN, ["foo"]),
    PREFIX +
      `invalid discovery token CA certificate hash: invalid hash, expected "format:hex-value". Known format(s) are: sha256`,
  );
  fails(
    () => run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": SIG }, TOKEN, [OTHER_HASH]),
    PREFIX +
      `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${CA_HASH}" are pinned`,
  );
  // Any one pin matching is enough (kubeadm#2471).
  assert.equal(
    run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": SIG }, TOKEN, [OTHER_HASH, CA_HASH])
      .pinnedIndex,
    0,
  );
});

Deno.test("verifyClusterInfo() kubeconfig key, empty signature and unparseable kubeconfig", () => {
  fails(
    () => run({ "jws-kubeconfig-123456": SIG }),
    PREFIX +
      "there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect",
  );
  fails(
    () => run({ kubeconfig: EXPECTED, "jws-kubeconfig-123456": "" }),
    PREFIX +
      `token id "123456" is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token`,
  );
  const garbage = "clusters: [\n";
  const sig = computeDetachedSignature(garbage, "123456", "abcdef1234567890");
  assert.throws(
    () => run({ kubeconfig: garbage, "jws-kubeconfig-123456": sig }),
    /^CheckError: couldn't validate the identity of the API Server: couldn't parse the kubeconfig file in the cluster-info ConfigMap: error converting YAML to JSON: yaml: /,
  );
  const noCa = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://a:1\n";
  const sig2 = computeDetachedSignature(noCa, "123456", "abcdef1234567890");
  fails(
    () => run({ kubeconfig: noCa, "jws-kubeconfig-123456": sig2 }),
    PREFIX +
      "failed to parse cluster CA from the cluster-info ConfigMap: data does not contain any valid RSA or ECDSA certificates",
  );
  const empty = "apiVersion: v1\nkind: Config\n";
  const sig3 = computeDetachedSignature(empty, "123456", "abcdef1234567890");
  fails(
    () => run({ kubeconfig: empty, "jws-kubeconfig-123456": sig3 }, TOKEN, [], true),
    PREFIX +
      'malformed kubeconfig in the cluster-info ConfigMap: no unnamed cluster, and the current context "" is not in the kubeconfig',
  );
});

Deno.test("verifyClusterInfo() fails when any byte of data.kubeconfig is tampered with", () => {
  const bytes = new TextEncoder().encode(EXPECTED);
  for (let i = 0; i < bytes.length; i++) {
    const copy = bytes.slice();
    copy[i] = copy[i] === 0x41 ? 0x42 : 0x41;
    const tampered = new TextDecoder().decode(copy);
    assert.throws(
      () => run({ kubeconfig: tampered, "jws-kubeconfig-123456": SIG }, TOKEN, [], true),
      /failed to verify JWS signature/,
      `byte ${i}`,
    );
  }
  for (const t of [EXPECTED + "\n", EXPECTED.slice(0, -1), " " + EXPECTED]) {
    assert.throws(
      () => run({ kubeconfig: t, "jws-kubeconfig-123456": SIG }, TOKEN, [], true),
      /failed to verify/,
    );
  }
});

// ---------------------------------------------------------------------------
// Hostile cluster-infos a token holder could craft (go-exact.md §5, vectors 37-39).

const pinPem = (f: string) => fs.readFileSync(repoPath("tests/fixtures/pin", f), "utf8");
const A = pinPem("test-cert.pem"); // H_A
const B = pinPem("ca-cert.pem"); // H_B
const C = pinPem("test-cert2.pem"); // H_C: the attacker's CA
const H_A = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
const H_B = "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658";
const H_C = "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971";
const b64 = (s: string) => Buffer.from(s, "latin1").toString("base64");
const GOOD = "https://good:6443";
const EVIL = "https://evil:6443";

interface Hostile {
  name: string;
  kubeconfig: string;
  pins?: string[];
  unsafe?: boolean;
  /** Success: the server and CA PEM of the cluster kubeadm chooses, and the pinned index. */
  ok?: { server: string; ca: string; pinned: number };
  /** Failure: the message after the discovery prefix. */
  error?: string;
}

const cluster = (name: string | undefined, server: string, ca: string) =>
  `- ${
    name === undefined ? "" : `name: ${JSON.stringify(name)}\n  `
  }cluster:\n    certificate-authority-data: ${b64(ca)}\n    server: ${server}\n`;
const context = (name: string, clusterName: string) =>
  `- name: ${name}\n  context:\n    cluster: ${clusterName}\n`;
const kc = (clusters: string[], contexts: string[] = [], current?: string) =>
  `apiVersion: v1\nkind: Config\nclusters:\n${clusters.join("")}${
    contexts.length ? `contexts:\n${contexts.join("")}` : ""
  }${current === undefined ? "" : `current-context: ${current}\n`}`;
const notPinned = (...h: string[]) =>
  `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${
    h.join(":")
  }" are pinned`;
const parseErr = "couldn't parse the kubeconfig file in the cluster-info ConfigMap: ";
const malformed = "malformed kubeconfig in the cluster-info ConfigMap: ";
const caErr = "failed to parse cluster CA from the cluster-info ConfigMap: ";

const HOSTILE: Hostile[] = [
  {
    name: 'vector 38: clusters "" and "other": kubeadm takes ""',
    kubeconfig: kc([cluster("other", EVIL, A), cluster("", GOOD, A)]),
    pins: [H_A],
    ok: { server: GOOD, ca: A, pinned: 0 },
  },
  {
    name:
      "unnamed cluster pinned, another cluster with the attacker CA: refused (kubeadm may check either)",
    kubeconfig: kc([cluster("", GOOD, A), cluster("other", EVIL, C)]),
    pins: [H_A],
    error: notPinned(H_C),
  },
  {
    name: "pinned CA in one cluster, attacker server and CA in the current context's: refused",
    kubeconfig: kc(
      [cluster("good", GOOD, A), cluster("evil", EVIL, C)],
      [context("c", "evil")],
      "c",
    ),
    pins: [H_A],
    error: notPinned(H_C),
  },
  {
    name: "current context on the pinned cluster, an unpinned other cluster: refused",
    kubeconfig: kc(
      [cluster("good", GOOD, A), cluster("evil", EVIL, C)],
      [context("c", "good")],
      "c",
    ),
    pins: [H_A],
    error: notPinned(H_C),
  },
  {
    name: "two named clusters, both CAs pinned: the current context's cluster is used",
    kubeconfig: kc([cluster("a", GOOD, A), cluster("b", EVIL, C)], [context("c", "b")], "c"),
    pins: [H_A, H_C],
    ok: { server: EVIL, ca: C, pinned: 0 },
  },
  {
    name: "vector 38: one cluster named prod, no current-context (post-#134715)",
    kubeconfig: kc([cluster("prod", GOOD, A)]),
    pins: [H_A],
    error: malformed + 'no unnamed cluster, and the current context "" is not in the kubeconfig',
  },
  {
    name: "two named clusters without current-context",
    kubeconfig: kc([cluster("a", GOOD, A), cluster("b", GOOD, A)]),
    pins: [H_A],
    error: malformed + 'no unnamed cluster, and the current context "" is not in the kubeconfig',
  },
  {
    name: "current-context naming a missing context",
    kubeconfig: kc([cluster("a", GOOD, A)], [context("c", "a")], "gone"),
    pins: [H_A],
    error: malformed +
      'no unnamed cluster, and the current context "gone" is not in the kubeconfig',
  },
  {
    name: "current context naming a missing cluster",
    kubeconfig: kc([cluster("a", GOOD, A)], [context("c", "b")], "c"),
    pins: [H_A],
    error: malformed + 'cluster "b" of the current context "c" is not in the kubeconfig',
  },
  {
    name: "malformed even when unsafe (kubeadm checks before the pins)",
    kubeconfig: kc([cluster("a", GOOD, A)]),
    pins: [],
    unsafe: true,
    error: malformed + 'no unnamed cluster, and the current context "" is not in the kubeconfig',
  },
  {
    name: "vector 37: two clusters named kubeconfig-cluster",
    kubeconfig: kc([
      cluster("kubeconfig-cluster", GOOD, A),
      cluster("kubeconfig-cluster", EVIL, C),
    ]),
    pins: [H_A],
    error: parseErr +
      'error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "kubeconfig-cluster" in list',
  },
  {
    name: "two unnamed clusters",
    kubeconfig: kc([cluster(undefined, GOOD, A), cluster("", EVIL, C)]),
    pins: [H_A],
    error: parseErr +
      'error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "" in list',
  },
  {
    name: "duplicate context names",
    kubeconfig: kc([cluster("", GOOD, A)], [context("c", "x1"), context("c", "y1")]),
    pins: [H_A],
    error: parseErr +
      'error converting *[]NamedContext into *map[string]*api.Context: duplicate name "c" in list',
  },
  {
    name: "duplicate user names",
    kubeconfig: kc([cluster("", GOOD, A)]) + "users:\n- name: u\n- name: u\n",
    pins: [H_A],
    error: parseErr +
      'error converting *[]NamedAuthInfo into *map[string]*api.AuthInfo: duplicate name "u" in list',
  },
  {
    name: "duplicate extension names",
    kubeconfig: kc([cluster("", GOOD, A)]) + "extensions:\n- name: e\n- name: e\n",
    pins: [H_A],
    error: parseErr +
      'error converting *[]NamedExtension into *map[string]runtime.Object: duplicate name "e" in list',
  },
  {
    name: "bad base64 in certificate-authority-data",
    kubeconfig:
      "clusters:\n- cluster:\n    certificate-authority-data: 'LS0t!!'\n    server: https://a\n",
    pins: [H_A],
    error: parseErr + "illegal base64 data at input byte 4",
  },
  {
    name: "vector 39: CA bundle [A, B], pin on B: passes, embeds both",
    kubeconfig: kc([cluster("", GOOD, A + B)]),
    pins: [H_B],
    ok: { server: GOOD, ca: A + B, pinned: 1 },
  },
  {
    name: "bundle with a garbage CERTIFICATE block: the whole CA is refused",
    kubeconfig: kc([
      cluster("", GOOD, A + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
    ]),
    pins: [H_A],
    error: caErr + "x509: malformed certificate",
  },
  {
    name: "bundle with a broken-base64 CERTIFICATE block: the block is invisible",
    kubeconfig: kc([
      cluster("", GOOD, A + "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"),
    ]),
    pins: [H_A],
    ok: {
      server: GOOD,
      ca: A + "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
      pinned: 0,
    },
  },
  {
    name: "a CERTIFICATE block with headers is skipped: a pin on it does not count",
    kubeconfig: kc([
      cluster("", GOOD, B.replace("-----\n", "-----\nProc-Type: 4,ENCRYPTED\n\n") + A),
    ]),
    pins: [H_B],
    error: notPinned(H_A),
  },
  {
    name: "no CA data with a pin",
    kubeconfig: "clusters:\n- cluster:\n    server: https://a\n",
    pins: [H_A],
    error: caErr + "data does not contain any valid RSA or ECDSA certificates",
  },
  {
    name: "unsafe without pins: kubeadm's cluster, its CA not parsed",
    kubeconfig: kc([cluster("", GOOD, "not a certificate"), cluster("x", EVIL, C)]),
    pins: [],
    unsafe: true,
    ok: { server: GOOD, ca: "not a certificate", pinned: -1 },
  },
  {
    name: "a number as server (Go's JSON decoding refuses it)",
    kubeconfig: "clusters:\n- cluster:\n    server: 6443\n",
    pins: [H_A],
    error: parseErr +
      "json: cannot unmarshal number into Go struct field Cluster.clusters.cluster.server of type string",
  },
  {
    name: "Clusters (wrong case) is an unknown field",
    kubeconfig: "Clusters:\n" + cluster("", GOOD, A),
    pins: [H_A],
    error: malformed + 'no unnamed cluster, and the current context "" is not in the kubeconfig',
  },
];

for (const c of HOSTILE) {
  Deno.test(`verifyClusterInfo() hostile cluster-info: ${c.name}`, () => {
    const sig = computeDetachedSignature(c.kubeconfig, "123456", "abcdef1234567890");
    const data = { kubeconfig: c.kubeconfig, "jws-kubeconfig-123456": sig };
    const go = () => run(data, TOKEN, c.pins ?? [], c.unsafe ?? false);
    if (c.error !== undefined) return fails(go, PREFIX + c.error);
    const r = go();
    assert.equal(r.cluster.server, c.ok!.server);
    assert.equal(Buffer.from(r.cluster.caData).toString("latin1"), c.ok!.ca);
    assert.equal(r.pinnedIndex, c.ok!.pinned);
    const out = (r.bootstrapKubeconfig.clusters as { cluster: Record<string, string> }[])[0]!
      .cluster;
    assert.equal(out.server, c.ok!.server);
    assert.equal(
      Buffer.from(out["certificate-authority-data"]!, "base64").toString("latin1"),
      c.ok!.ca,
    );
  });
}

Deno.test("verifyClusterInfo() embeds exactly the CA bytes it pin-checked (vector 39)", () => {
  const text = kc([cluster("", GOOD, A + B)]);
  const sig = computeDetachedSignature(text, "123456", "abcdef1234567890");
  const r = run({ kubeconfig: text, "jws-kubeconfig-123456": sig }, TOKEN, [H_B]);
  const embedded = new Uint8Array(Buffer.from(
    (r.bootstrapKubeconfig.clusters as { cluster: Record<string, string> }[])[0]!.cluster[
      "certificate-authority-data"
    ]!,
    "base64",
  ));
  // The embedded bytes are the chosen cluster's CA data, byte for byte...
  assert.deepEqual(embedded, r.cluster.caData);
  // ...and Go loads from them exactly the certificates that were pin-checked: both.
  const reloaded = parseCertsPem(embedded, parseCertificate).map((c) => caCertHash(c.der));
  assert.deepEqual(reloaded, r.caCerts.map((c) => caCertHash(c.der)));
  assert.deepEqual(reloaded, [H_A, H_B]);
  assert.equal(r.pinnedIndex, 1);
});
