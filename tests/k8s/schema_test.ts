import assert from "node:assert/strict";
import process from "node:process";
import { fieldPath, validateObject } from "../../lib/k8s/schema.ts";

process.noDeprecation = true; // ajv-formats require()s the deprecated punycode built-in

const meta = { name: "x" };
const csr = (spec: unknown, status?: unknown) => ({
  apiVersion: "certificates.k8s.io/v1",
  kind: "CertificateSigningRequest",
  metadata: meta,
  spec,
  ...(status === undefined ? {} : { status }),
});
const okSpec = { request: "YWJj", signerName: "kubernetes.io/kube-apiserver-client-kubelet" };
const rbac = "rbac.authorization.k8s.io/v1";

// policy-lifecycle.md §5.1 (measured with kubernetes-models 5.1.0), vector G: input → err.message parts.
const VECTORS: [string, unknown, string[]][] = [
  ["Secret data not base64", {
    apiVersion: "v1",
    kind: "Secret",
    metadata: meta,
    data: { a: "not base64!" },
  }, ['data/data/a must match format "byte"']],
  ["Secret data a number", { apiVersion: "v1", kind: "Secret", metadata: meta, data: { a: 5 } }, [
    "data/data/a must be string",
  ]],
  ["ConfigMap data a number", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta,
    data: { a: 1 },
  }, ["data/data/a must be string"]],
  ["ClusterRole rule without verbs", {
    apiVersion: rbac,
    kind: "ClusterRole",
    metadata: meta,
    rules: [{ apiGroups: [""], resources: ["nodes"] }],
  }, ["data/rules/0 must have required property verbs"]],
  ["RoleBinding without roleRef", { apiVersion: rbac, kind: "RoleBinding", metadata: meta }, [
    "data must have required property roleRef",
  ]],
  ["CSR request not base64", csr({ ...okSpec, request: "PEM not base64" }), [
    'data/spec/request must match format "byte"',
  ]],
  ["CSR spec without request", csr({ signerName: okSpec.signerName }), [
    "data/spec must have required property request",
  ]],
  ["CSR spec without signerName", csr({ request: "YWJj" }), [
    "data/spec must have required property signerName",
  ]],
  ["CSR bogus usage", csr({ ...okSpec, usages: ["bogus"] }), [
    "data/spec/usages/0 must be equal to one of the allowed values",
  ]],
  ["CSR expirationSeconds a string", csr({ ...okSpec, expirationSeconds: "100" }), [
    "data/spec/expirationSeconds must be integer",
  ]],
  ["CSR condition without status", csr(okSpec, { conditions: [{ type: "Approved" }] }), [
    "data/status/conditions/0 must have required property status",
  ]],
  [
    "CSR condition lastUpdateTime not a date-time",
    csr(okSpec, {
      conditions: [{ type: "Approved", status: "True", lastUpdateTime: "yesterday" }],
    }),
    ['data/status/conditions/0/lastUpdateTime must match format "date-time"'],
  ],
  ["CSR spec null", csr(null), ["data/spec must be object"]],
  // Upstream __tests__/validate.ts
  ["Pod spec without containers", { apiVersion: "v1", kind: "Pod", spec: {} }, [
    "data/spec must have required property containers",
  ]],
  ["Pod containers null", { apiVersion: "v1", kind: "Pod", spec: { containers: null } }, [
    "data/spec/containers must be array",
  ]],
  ["Pod spec null", { apiVersion: "v1", kind: "Pod", spec: null }, []],
  ["Pod creationTimestamp null", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { creationTimestamp: null },
  }, []],
  ["ConfigMap data null", { apiVersion: "v1", kind: "ConfigMap", data: null }, []],
  ["PVC storage foo", {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    spec: { resources: { requests: { storage: "foo" } } },
  }, [
    "data/spec/resources/requests/storage must be number",
    'data/spec/resources/requests/storage must match format "quantity"',
    'data/spec/resources/requests/storage must match exactly one schema in "oneOf"',
  ]],
  ["PVC storage 8Gi", {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    spec: { resources: { requests: { storage: "8Gi" } } },
  }, []],
  ["PVC storage 8000", {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    spec: { resources: { requests: { storage: 8000 } } },
  }, []],
  ["Service targetPort 80", {
    apiVersion: "v1",
    kind: "Service",
    spec: { ports: [{ port: 80, targetPort: 80 }] },
  }, []],
  ["Service targetPort http", {
    apiVersion: "v1",
    kind: "Service",
    spec: { ports: [{ port: 80, targetPort: "http" }] },
  }, []],
  // Not caught (server-side rules): pass, as the reference lists.
  [
    "CSR expirationSeconds 100 (API minimum 600 not in the schema)",
    csr({
      ...okSpec,
      expirationSeconds: 100,
    }),
    [],
  ],
  ["Secret with an unknown top-level field", {
    apiVersion: "v1",
    kind: "Secret",
    metadata: meta,
    bogus: 1,
  }, []],
];

Deno.test("validateObject() gives kubernetes-models' messages (reference §5.1 vectors)", async () => {
  for (const [what, obj, want] of VECTORS) {
    const got = await validateObject(obj);
    assert.ok(got, what);
    assert.deepEqual(got.map((v) => v.message), want, what);
  }
});

Deno.test("validateObject() names the field, the missing property included", async () => {
  const got = await validateObject({ apiVersion: rbac, kind: "ClusterRole", rules: [{}] });
  assert.deepEqual(got, [{
    field: "rules[0].verbs",
    message: "data/rules/0 must have required property verbs",
  }]);
  const kind = await validateObject({ apiVersion: "v1", kind: "Secret", data: { "a/b": 1 } });
  assert.deepEqual(kind?.map((v) => v.field), ["data.a/b"]);
});

Deno.test("validateObject() returns undefined for kinds it has no schema for", async () => {
  assert.equal(await validateObject({ apiVersion: "example.com/v1", kind: "Widget" }), undefined);
  assert.equal(await validateObject({ apiVersion: "v1" }), undefined);
  assert.equal(await validateObject("text"), undefined);
});

Deno.test("fieldPath() turns an Ajv instancePath into a dotted field path", () => {
  assert.equal(fieldPath(""), "");
  assert.equal(fieldPath("/spec/usages/0"), "spec.usages[0]");
  assert.equal(fieldPath("/data/a~1b~0c"), "data.a/b~c");
});
