import assert from "node:assert/strict";
import { approvedCondition, withStatus } from "../../lib/kubelet/csr_object.ts";
import type { KubeObject } from "../../lib/k8s/manifest.ts";

const NOW = new Date("2026-11-22T00:00:00Z");

Deno.test("withStatus() appends conditions and the certificate on a copy, leaving the input unchanged", () => {
  const input = {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: "a", labels: { x: "y" } },
    spec: { request: "UkVR", usages: ["client auth"] },
    status: { conditions: [{ type: "Pending", status: "True" }] },
  } as KubeObject;
  const before = structuredClone(input);
  const out = withStatus(input, [approvedCondition(NOW)], "PEM\n");
  assert.deepEqual(input, before);
  assert.deepEqual(Object.keys(out), Object.keys(input));
  const status = out.status as { conditions: unknown[]; certificate: string };
  assert.equal(status.conditions.length, 2);
  assert.deepEqual(status.conditions[0], { type: "Pending", status: "True" });
  assert.equal((status.conditions[1] as { type: string }).type, "Approved");
  assert.equal(status.certificate, btoa("PEM\n"));
  assert.notEqual(out.status, input.status);
});

Deno.test("withStatus() adds status last when the input has none, and nothing else", () => {
  const input = { apiVersion: "v1", kind: "CertificateSigningRequest", spec: {} } as KubeObject;
  const out = withStatus(input, []);
  assert.deepEqual(Object.keys(out), ["apiVersion", "kind", "spec", "status"]);
  assert.deepEqual(out.status, {});
  assert.equal("status" in input, false);
});

Deno.test("readCsrObject() refuses conditions Go's decoder refuses (not a list, an item not an object, a non-string type/status) instead of dropping them", async () => {
  const { readCsrObject: read } = await import("../../lib/kubelet/csr_object.ts");
  const base = {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: "n" },
    spec: { request: "AAAA", signerName: "kubernetes.io/kube-apiserver-client-kubelet" },
  };
  const rows: [unknown, string | null][] = [
    [
      ["Approved", { type: "Approved", status: "True" }],
      "f: status.conditions[0] must be an object",
    ],
    [{ type: "Approved", status: "True" }, "f: status.conditions must be a list of conditions"],
    [[{ type: "Approved", status: true }], "f: status.conditions[0].status must be a string"],
    [[{ type: 1, status: "True" }], "f: status.conditions[0].type must be a string"],
    [null, null],
    [[], null],
    [[{ type: "Approved", status: "True" }], null],
  ];
  for (const [conditions, want] of rows) {
    const obj = { ...base, status: { conditions } };
    if (want === null) assert.doesNotThrow(() => read(obj, "f"));
    else assert.throws(() => read(obj, "f"), { message: want, name: "InputError" });
  }
});
