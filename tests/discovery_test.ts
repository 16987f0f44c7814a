import assert from "node:assert/strict";
import * as fs from "node:fs";
import { computeDetachedSignature } from "../lib/jws.ts";
import { verifyClusterInfo } from "../lib/discovery.ts";
import { findClusterInfo } from "../lib/cluster_info.ts";
import { kubeconfigYaml } from "../lib/kubeconfig.ts";
import { CheckError } from "../lib/errors.ts";
import { repoPath } from "./_cli.ts";

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
    /^CheckError: couldn't validate the identity of the API Server: couldn't parse the kubeconfig file in the cluster-info ConfigMap: not YAML or JSON/,
  );
  const noCa =
    "apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: https://a:1\n";
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
    PREFIX + "malformed kubeconfig in the cluster-info ConfigMap",
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
