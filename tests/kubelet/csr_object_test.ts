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
