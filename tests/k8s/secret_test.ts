import assert from "node:assert/strict";
import {
  decodeBase64Strict,
  decodeSecret,
  describeObject,
  getData,
  isSecretObject,
} from "../../lib/k8s/secret.ts";
import { InputError } from "../../lib/base/errors.ts";

const base = (extra: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system" },
  type: "bootstrap.kubernetes.io/token",
  ...extra,
});

Deno.test("decodeSecret() decodes data and merges stringData over it", () => {
  const s = decodeSecret(
    base({
      data: { "token-id": "YWJjZGVm", description: "b2xk" },
      stringData: { description: "new", "usage-bootstrap-signing": "true" },
    }),
    "in.yaml",
  );
  assert.deepEqual(s, {
    name: "bootstrap-token-abcdef",
    namespace: "kube-system",
    type: "bootstrap.kubernetes.io/token",
    data: { "token-id": "abcdef", description: "new", "usage-bootstrap-signing": "true" },
  });
});

Deno.test("decodeSecret() defaults type to Opaque and keeps deletionTimestamp", () => {
  const s = decodeSecret(
    {
      kind: "Secret",
      metadata: { name: "x", deletionTimestamp: "2026-01-01T00:00:00Z" },
      data: null,
    },
    "in",
  );
  assert.equal(s.type, "Opaque");
  assert.equal(s.namespace, "");
  assert.equal(s.deletionTimestamp, "2026-01-01T00:00:00Z");
  assert.deepEqual(s.data, {});
});

Deno.test("decodeSecret() rejects bad input with one line naming source and object", () => {
  const cases: [unknown, string][] = [
    [{ kind: "ConfigMap", metadata: { name: "c" } }, 'in.yaml: ConfigMap "c": is not a Secret'],
    [
      base({ data: { "token-secret": "not base64!" } }),
      'in.yaml: Secret kube-system/bootstrap-token-abcdef: data["token-secret"] is not valid base64',
    ],
    [
      base({ data: { "token-secret": "YWJjZGVm=" } }),
      'in.yaml: Secret kube-system/bootstrap-token-abcdef: data["token-secret"] is not valid base64',
    ],
    [
      base({ data: { "token-id": 5 } }),
      'in.yaml: Secret kube-system/bootstrap-token-abcdef: data["token-id"] is not a string',
    ],
    [
      base({ stringData: ["x"] }),
      "in.yaml: Secret kube-system/bootstrap-token-abcdef: stringData is not a map",
    ],
    [
      base({ apiVersion: "v2" }),
      'in.yaml: Secret kube-system/bootstrap-token-abcdef: apiVersion "v2" is not v1',
    ],
    [
      { kind: "Secret", metadata: { name: 7 } },
      "in.yaml: Secret without metadata.name: metadata.name is not a string",
    ],
    ["text", "in.yaml: not an object"],
  ];
  for (const [obj, want] of cases) {
    assert.throws(() => decodeSecret(obj, "in.yaml"), (e: Error) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.message, want);
      return true;
    });
  }
});

Deno.test("decodeSecret() never puts a value into its messages", () => {
  assert.throws(
    () => decodeSecret(base({ data: { "token-secret": "s3cr3t-value!" } }), "f"),
    (e: Error) => !e.message.includes("s3cr3t"),
  );
});

Deno.test("decodeBase64Strict() follows Go's encoding/json []byte rules", () => {
  assert.equal(decodeBase64Strict("YWJjZGVm"), "abcdef");
  assert.equal(decodeBase64Strict("YWJj\r\nZGVm"), "abcdef");
  assert.equal(decodeBase64Strict(""), "");
  assert.equal(decodeBase64Strict("YQ=="), "a");
  for (const bad of ["YQ", "YQ=", "Y", "YW*j", "YWJjZGVm===", "YW-_", " YWJj"]) {
    assert.equal(decodeBase64Strict(bad), undefined, bad);
  }
});

Deno.test("getData() and isSecretObject() and describeObject() behave", () => {
  const s = decodeSecret(base({ stringData: { a: "b" } }), "f");
  assert.equal(getData(s, "a"), "b");
  assert.equal(getData(s, "missing"), "");
  assert.equal(getData(s, "toString"), "");
  assert.equal(isSecretObject({ kind: "Secret" }), true);
  assert.equal(isSecretObject({ kind: "ConfigMap" }), false);
  assert.equal(describeObject({ kind: "Secret", metadata: { name: "n" } }), 'Secret "n"');
});

Deno.test("decodeSecret() keeps a __proto__ key as data", () => {
  const obj = JSON.parse(
    '{"kind":"Secret","metadata":{"name":"x"},"stringData":{"__proto__":"v"}}',
  );
  const s = decodeSecret(obj, "f");
  assert.equal(getData(s, "__proto__"), "v");
  assert.equal(Object.getPrototypeOf(s.data), Object.prototype);
});
