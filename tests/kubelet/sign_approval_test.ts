/**
 * Signing follows kube-controller-manager (issue 19, class 6): its signer
 * ignores a CSR unless `IsCertificateRequestApproved` (an Approved condition
 * and no Denied one) and no `Failed` condition is true (signer.go handle()).
 * An object the run does not approve stays as it is, unsigned, with one
 * refusal (exit 3 at the CLI); a bare PEM CSR has no conditions and is signed
 * as before.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { exportSpki, generateKeyPair } from "../../lib/pki/keys.ts";
import { createCsr, csrPem } from "../../lib/kubelet/csr.ts";
import { buildCsrObject } from "../../lib/kubelet/csr_object.ts";
import { NOT_APPROVED, signObject, signPemCsr } from "../../lib/kubelet/sign_batch.ts";
import { loadSigningCa } from "../../lib/kubelet/signer.ts";
import { parseManifests, toYaml } from "../../lib/k8s/manifest.ts";

const NOW = new Date("2026-05-06T07:08:09Z");
const CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";
const { dir, cleanup } = tempDir("joinkit-sign-approval-");
globalThis.addEventListener("unload", cleanup);
const caFiles = opensslCa(dir, "ca");
const ca = await loadSigningCa(
  fs.readFileSync(caFiles.crt, "utf8"),
  "ca.crt",
  fs.readFileSync(caFiles.key, "utf8"),
  "ca.key",
);
const kp = await generateKeyPair("ecdsa-p256");
const spki = await exportSpki(kp.publicKey);
const goodPem = csrPem(
  await createCsr(kp.privateKey, spki, {
    commonName: "system:node:w1",
    organization: ["system:nodes"],
  }),
);
// CN not system:node:…: the kubelet-client signer's validator refuses it (a Failed condition).
const badPem = csrPem(
  await createCsr(kp.privateKey, spki, { commonName: "w1", organization: ["system:nodes"] }),
);

const cond = (type: string, status = "True") => ({
  type,
  status,
  reason: "Test",
  message: "test",
  lastUpdateTime: "2026-01-01T00:00:00Z",
});

function object(name: string, conditions: Record<string, unknown>[], pem = goodPem) {
  const obj = buildCsrObject({
    name,
    requestPem: pem,
    signerName: CLIENT,
    usages: ["digital signature", "client auth"],
  });
  return conditions.length ? { ...obj, status: { conditions } } : obj;
}

// [what, conditions, request, approve, signed?, the refusal's reason, conditions added]
const ROWS: [
  string,
  Record<string, unknown>[],
  string,
  boolean,
  boolean,
  (string | undefined)?,
  string[]?,
][] = [
  ["pending", [], goodPem, false, false, NOT_APPROVED],
  ["pending, approved by this run", [], goodPem, true, true, undefined, ["Approved"]],
  ["approved", [cond("Approved")], goodPem, false, true],
  ["approved, --approve adds nothing", [cond("Approved")], goodPem, true, true, undefined, []],
  ["denied", [cond("Denied")], goodPem, false, false, "csr is denied"],
  ["denied, --approve does not override", [cond("Denied")], goodPem, true, false, "csr is denied"],
  [
    "approved and failed",
    [cond("Approved"), cond("Failed")],
    goodPem,
    true,
    false,
    "csr has failed",
  ],
  ["failed", [cond("Failed")], goodPem, false, false, "csr has failed"],
  // Approved by this run, then refused by the signer's validator: Approved, then Failed.
  [
    "pending, approved by this run, the signer refuses",
    [],
    badPem,
    true,
    false,
    "subject common name does not begin with system:node:",
    ["Approved", "Failed"],
  ],
  // The controller ignores an unapproved object before its validator could fail it.
  ["pending, the signer would refuse", [], badPem, false, false, NOT_APPROVED, []],
];

for (const [what, conditions, pem, approve, signed, reason, added] of ROWS) {
  Deno.test(`signObject() signs only Approved objects: ${what}${approve ? " (--approve)" : ""}`, async () => {
    const obj = object("csr-1", conditions, pem);
    const r = await signObject(obj, "in.yaml", { ca, ttlMs: 3600_000, now: NOW, approve });
    assert.equal(r.certPem !== undefined, signed, r.error?.message);
    if (reason !== undefined) {
      assert.equal(r.error?.message, `in.yaml (csr-1): ${reason}`);
      assert.equal(r.error?.exitCode, 3);
    } else assert.equal(r.error, undefined);
    if (added !== undefined) {
      const types = ((r.obj.status as { conditions?: { type: string }[] } | undefined)
        ?.conditions ?? []).map((c) => c.type);
      assert.deepEqual(types, [...conditions.map((c) => c.type), ...added], what);
    }
    // Refused objects come back as they were.
    if (!signed && reason === NOT_APPROVED) assert.equal(r.obj, obj);
  });
}

Deno.test("signPemCsr() still signs a bare PEM CSR (no object, no conditions)", async () => {
  const cert = await signPemCsr(goodPem, "w1.csr", { ca, ttlMs: 3600_000, now: NOW });
  assert.match(cert, /^-----BEGIN CERTIFICATE-----\n/);
});

Deno.test("CLI csr sign signs only Approved objects; the rest stay as they are, one line each, exit 3", async () => {
  const file = path.join(dir, "mixed.yaml");
  const objs = [
    object("pending", []),
    object("approved", [cond("Approved")]),
    object("denied", [cond("Denied")]),
    object("failed", [cond("Approved"), cond("Failed")]),
  ];
  fs.writeFileSync(file, objs.map((o) => toYaml(o)).join("---\n"));
  const args = [
    "csr",
    "sign",
    file,
    "--ca",
    caFiles.crt,
    "--ca-key",
    caFiles.key,
    "--now",
    NOW.toISOString(),
  ];
  const r = await runCli(args);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(
    r.stderr,
    `error: ${file}: object 1 (pending): ${NOT_APPROVED}\n` +
      `error: ${file}: object 3 (denied): csr is denied\n` +
      `error: ${file}: object 4 (failed): csr has failed\n`,
  );
  const out = parseManifests(r.stdout, "stdout");
  assert.equal(out.length, 4);
  const certOf = (o: Record<string, unknown>) =>
    (o.status as { certificate?: string } | undefined)?.certificate;
  assert.deepEqual(out.map((o) => certOf(o) !== undefined), [false, true, false, false]);
  // Unsigned objects are output unchanged.
  for (const i of [0, 2, 3]) assert.deepEqual(out[i], objs[i]);

  // Nothing signable at all: nothing printed, exit 3.
  const pendingOnly = path.join(dir, "pending.yaml");
  fs.writeFileSync(pendingOnly, toYaml(object("pending", [])));
  const p = await runCli([...args.slice(0, 2), pendingOnly, ...args.slice(3)]);
  assert.equal(p.code, 3);
  assert.equal(p.stdout, "");
  assert.equal(p.stderr, `error: ${pendingOnly} (pending): ${NOT_APPROVED}\n`);

  // csr inspect says the same: a pending object is signed once approved.
  const inspect = await runCli(["csr", "inspect", file, "--now", NOW.toISOString()]);
  const verdicts = [...inspect.stdout.matchAll(/\n {2}verdict: +(.*)\n/g)].map((m) => m[1]);
  assert.deepEqual(verdicts, [
    "ok once approved: csr sign --approve signs it (without --approve: not approved)",
    "ok: csr sign signs it",
    "REJECTED: csr is denied",
    "REJECTED: csr has failed",
  ]);

  // --approve approves in the same run: all but the denied and failed ones.
  const a = await runCli([...args, "--approve"]);
  assert.equal(a.code, 3);
  assert.deepEqual(
    parseManifests(a.stdout, "stdout").map((o) => certOf(o) !== undefined),
    [true, true, false, false],
  );
});

/**
 * kube-controller-manager v1.32.5's own gate (tests/fixtures/csr_sign/): its
 * `IsCertificateRequestApproved && !HasTrueCondition(Failed)`, built from the
 * vendored tree (not committed), over every object with up to two
 * conditions of the three types and four statuses (157). Where the API
 * server would have stored the object, `csr sign` signs exactly what the
 * controller signs; the rest it refuses with the API server's validation
 * (which lets Approved, Denied and Failed be only "True").
 */
Deno.test("signObject() signs exactly what kube-controller-manager's signer gate signs (157 condition sets)", async () => {
  const fixture = JSON.parse(
    fs.readFileSync(new URL("../fixtures/csr_sign/signer_gate.json", import.meta.url), "utf8"),
  ) as { cases: { conditions: { type: string; status: string }[]; sign: boolean }[] };
  assert.equal(fixture.cases.length, 157);
  const counts = { signed: 0, refused: 0, invalid: 0 };
  for (const c of fixture.cases) {
    const conditions = c.conditions.map((x) => ({ ...cond(x.type), status: x.status }));
    const r = await signObject(object("csr-1", conditions), "in.yaml", {
      ca,
      ttlMs: 3600_000,
      now: NOW,
    });
    const what = JSON.stringify(c.conditions);
    if (r.error && /is invalid: \[?status\.conditions/.test(r.error.message)) {
      counts.invalid++;
      continue;
    }
    assert.equal(r.certPem !== undefined, c.sign, `${what}: ${r.error?.message}`);
    counts[c.sign ? "signed" : "refused"]++;
  }
  // Both outcomes among the objects the API server stores.
  // The API server stores 8 of them (Approved, Denied and Failed only "True", not Approved with
  // Denied, no type twice): [], Approved, Denied, Failed, and pairs; the controller signs one.
  assert.deepEqual(counts, { signed: 1, refused: 7, invalid: 149 });
});

Deno.test("signObject() names an object that is not a CSR once (no doubled 'FILE: object N:' prefix)", async () => {
  const opts = { ca, ttlMs: 3600_000, now: NOW };
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } };
  const r = await signObject(cm, "f.yaml: object 2", opts);
  assert.equal(
    r.error?.message,
    'f.yaml: object 2: kind "ConfigMap" is not CertificateSigningRequest',
  );
  assert.equal(r.error?.exitCode, 1);
  assert.equal(r.obj, cm);
  const noRequest = await signObject(
    { apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", spec: {} },
    "f.yaml",
    opts,
  );
  assert.equal(noRequest.error?.message, "f.yaml: spec.request is missing");
});

Deno.test("CLI csr sign refuses an object whose conditions Go's decoder refuses (a string among them): nothing signed, exit 1", async () => {
  const file = path.join(dir, "odd-conditions.yaml");
  const obj = object("odd", [cond("Approved")]);
  (obj.status as { conditions: unknown[] }).conditions.unshift("Denied");
  fs.writeFileSync(file, toYaml(obj));
  const r = await runCli([
    "csr",
    "sign",
    file,
    "--ca",
    caFiles.crt,
    "--ca-key",
    caFiles.key,
    "--now",
    NOW.toISOString(),
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, `error: ${file}: status.conditions[0] must be an object\n`);
});
