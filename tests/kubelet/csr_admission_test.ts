/**
 * What stands between a user and a signed certificate, on hostile CSRs:
 * kube-apiserver's validation, the CertificateSubjectRestriction admission
 * plugin, then the signer's validator — each row with the exact upstream
 * text, at lib level (`judgeSubmission`, `signObject`) and at CLI level
 * (`csr sign`, `csr inspect`). The fixtures under tests/fixtures/csr/ were
 * made with openssl and a throw-away Go 1.23.5 program; the CheckSignature
 * and parse verdicts below are what Go printed for them (`go run`,
 * `x509.ParseCertificateRequest` + `CheckSignature`), except the RSA < 1024
 * rows, where Go 1.23 accepts and Go 1.24+ (rsa1024min, on under the go1.24
 * and go1.25 GODEBUG defaults Kubernetes 1.33–1.35 use) refuses: joinkit
 * follows Go 1.25.
 *
 * @module
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { judgePem, judgeSubmission, type Submission } from "../../lib/kubelet/csr_judge.ts";
import { forbiddenMessage, subjectRestriction } from "../../lib/kubelet/csr_validation.ts";
import { isNodeClientCert, recognize } from "../../lib/kubelet/approver.ts";
import { readCsrObject } from "../../lib/kubelet/csr_object.ts";
import type { KubeObject } from "../../lib/k8s/manifest.ts";
import { signObject, signPemCsr, submissionOf } from "../../lib/kubelet/sign_batch.ts";
import { loadSigningCa, type SigningCa } from "../../lib/kubelet/signer.ts";
import { runCli, tempDir } from "../_cli.ts";
import { assertRefused } from "../_check.ts";
import { CSR_FIXTURES, csrCorpus, opensslCa, run } from "../_csr_pki.ts";

const KC = "kubernetes.io/kube-apiserver-client-kubelet";
const KS = "kubernetes.io/kubelet-serving";
const AC = "kubernetes.io/kube-apiserver-client";
const LEGACY = "kubernetes.io/legacy-unknown";
const CLIENT = ["digital signature", "client auth"];
const CLIENT_RSA = ["digital signature", "key encipherment", "client auth"];
const SERVING = ["digital signature", "server auth"];
const NOW = new Date("2026-11-22T00:00:00Z");
const HAVE_OPENSSL = run("openssl", ["version"]).code === 0;

const fixture = (f: string) => fs.readFileSync(path.join(CSR_FIXTURES, f), "utf8");
const invalid = (name: string, errors: string) =>
  `CertificateSigningRequest.certificates.k8s.io "${name}" is invalid: ${errors}`;
const forbidden = (name: string, reason: string) =>
  `certificatesigningrequests.certificates.k8s.io "${name}" is forbidden: ${reason}`;
const request = (err: string) => `spec.request: Invalid value: "<request data>": ${err}`;
const MASTERS =
  "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed";
const NOT_NODES = "subject organization is not system:nodes";

/** `allValidUsages.List()`: sorted and quoted. */
const SUPPORTED = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
].map((u) => JSON.stringify(u)).join(", ");

/** One hostile submission and what the cluster does with it. */
interface Row {
  name: string;
  file: string;
  signer: string;
  usages: string[];
  expirationSeconds?: number;
  /** `sign`, or the stage and exact reason of the refusal. */
  want: "sign" | { stage: "api" | "admission" | "signer"; reason: string };
}

const ROWS: Row[] = [
  // --- spec.request: ParseCSR + CheckSignature (Go's texts, from the Go program) ---
  { name: "sha1", file: "sha1.csr", signer: KC, usages: CLIENT_RSA, want: "sign" },
  { name: "ecdsa-sha1", file: "ecdsa-sha1.csr", signer: KC, usages: CLIENT, want: "sign" },
  {
    name: "md5",
    file: "md5.csr",
    signer: KC,
    usages: CLIENT_RSA,
    want: {
      stage: "api",
      reason: invalid("md5", request("x509: cannot verify signature: insecure algorithm MD5-RSA")),
    },
  },
  {
    // Go 1.23.5 accepts this one; Go 1.24+ (rsa1024min) refuses it with this text.
    name: "rsa512",
    file: "rsa512.csr",
    signer: KC,
    usages: CLIENT_RSA,
    want: {
      stage: "api",
      reason: invalid(
        "rsa512",
        request(
          "crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)",
        ),
      ),
    },
  },
  {
    // As rsa512: Go 1.23.5 accepts, Go 1.24+ refuses.
    name: "rsa768",
    file: "rsa768.csr",
    signer: KC,
    usages: CLIENT_RSA,
    want: {
      stage: "api",
      reason: invalid(
        "rsa768",
        request(
          "crypto/rsa: 768-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)",
        ),
      ),
    },
  },
  { name: "rsa1024", file: "rsa1024.csr", signer: KC, usages: CLIENT_RSA, want: "sign" },
  {
    name: "bad-signature",
    file: "bad-signature.csr",
    signer: KC,
    usages: CLIENT,
    want: {
      stage: "api",
      reason: invalid("bad-signature", request("x509: ECDSA verification failure")),
    },
  },
  {
    name: "pss-salt20",
    file: "pss-salt20.csr",
    signer: KC,
    usages: CLIENT_RSA,
    want: {
      stage: "api",
      reason: invalid(
        "pss-salt20",
        request("x509: cannot verify signature: algorithm unimplemented"),
      ),
    },
  },
  { name: "pss-sha256", file: "pss-sha256.csr", signer: KC, usages: CLIENT_RSA, want: "sign" },
  // pem.Decode skips text around blocks; ParseCSR reads the first block only.
  { name: "trailing-junk", file: "trailing-junk.csr", signer: KC, usages: CLIENT, want: "sign" },
  {
    name: "cert-first",
    file: "cert-first.csr",
    signer: KC,
    usages: CLIENT,
    want: {
      stage: "api",
      reason: invalid("cert-first", request("PEM block type must be CERTIFICATE REQUEST")),
    },
  },
  // --- the rest of create-time validation ---
  {
    name: "legacy",
    file: "node-client.csr",
    signer: LEGACY,
    usages: CLIENT,
    want: {
      stage: "api",
      reason: invalid(
        "legacy",
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
      ),
    },
  },
  {
    name: "exp599",
    file: "node-client.csr",
    signer: KC,
    usages: CLIENT,
    expirationSeconds: 599,
    want: {
      stage: "api",
      reason: invalid(
        "exp599",
        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)",
      ),
    },
  },
  {
    name: "exp600",
    file: "node-client.csr",
    signer: KC,
    usages: CLIENT,
    expirationSeconds: 600,
    want: "sign",
  },
  {
    name: "unknown-usages",
    file: "node-client.csr",
    signer: KC,
    usages: ["unknown", "unknown"],
    want: {
      stage: "api",
      reason: invalid(
        "unknown-usages",
        `[spec.usages[0]: Unsupported value: "unknown": supported values: ${SUPPORTED}, ` +
          `spec.usages[1]: Unsupported value: "unknown": supported values: ${SUPPORTED}, ` +
          'spec.usages[1]: Duplicate value: "unknown"]',
      ),
    },
  },
  {
    name: "duplicate-usage",
    file: "node-client.csr",
    signer: KC,
    usages: ["digital signature", "client auth", "client auth"],
    want: {
      stage: "api",
      reason: invalid("duplicate-usage", 'spec.usages[2]: Duplicate value: "client auth"'),
    },
  },
  {
    // All errors are collected, in upstream's order: request, usages, signerName, expirationSeconds.
    name: "everything",
    file: "md5.csr",
    signer: LEGACY,
    usages: [],
    expirationSeconds: 0,
    want: {
      stage: "api",
      reason: invalid(
        "everything",
        "[" + request("x509: cannot verify signature: insecure algorithm MD5-RSA") +
          ", spec.usages: Required value" +
          ', spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version' +
          ", spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 600 seconds (10 minutes)]",
      ),
    },
  },
  // --- CertificateSubjectRestriction (validation first: an invalid CSR gets 422, not 403) ---
  {
    name: "pooh",
    file: "masters.csr",
    signer: AC,
    usages: ["client auth"],
    want: { stage: "admission", reason: forbidden("pooh", MASTERS) },
  },
  {
    name: "masters-second-o",
    file: "masters-second.csr",
    signer: AC,
    usages: ["client auth"],
    want: { stage: "admission", reason: forbidden("masters-second-o", MASTERS) },
  },
  {
    // The admission wins over the signer's own usage refusal.
    name: "masters-bad-usage",
    file: "masters.csr",
    signer: AC,
    usages: ["server auth"],
    want: { stage: "admission", reason: forbidden("masters-bad-usage", MASTERS) },
  },
  {
    name: "masters-invalid",
    file: "masters.csr",
    signer: AC,
    usages: ["client auth"],
    expirationSeconds: 60,
    want: {
      stage: "api",
      reason: invalid(
        "masters-invalid",
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)",
      ),
    },
  },
  { name: "admin", file: "admin.csr", signer: AC, usages: ["client auth"], want: "sign" },
  // Exact, case-sensitive equality on O only.
  {
    name: "masters-case",
    file: "masters-case.csr",
    signer: AC,
    usages: ["client auth"],
    want: "sign",
  },
  {
    name: "masters-ou-cn",
    file: "masters-ou.csr",
    signer: AC,
    usages: ["client auth"],
    want: "sign",
  },
  {
    // O=system:masters as a UniversalString: Go's CSR parser drops it, so the plugin does not
    // see it and the signer issues a certificate. Upstream's behaviour, reproduced on purpose.
    name: "masters-universal",
    file: "masters-universal.csr",
    signer: AC,
    usages: ["client auth"],
    want: "sign",
  },
  {
    name: "masters-visible",
    file: "masters-visible.csr",
    signer: AC,
    usages: ["client auth"],
    want: "sign",
  },
  // --- the signer's validator (the plugin does not cover the kubelet signers) ---
  {
    name: "masters-kubelet-client",
    file: "masters.csr",
    signer: KC,
    usages: CLIENT,
    want: { stage: "signer", reason: NOT_NODES },
  },
  {
    name: "masters-kubelet-serving",
    file: "masters.csr",
    signer: KS,
    usages: SERVING,
    want: { stage: "signer", reason: NOT_NODES },
  },
  {
    // The dropped O leaves no organization: the kubelet signers refuse it.
    name: "masters-universal-kubelet",
    file: "masters-universal.csr",
    signer: KC,
    usages: CLIENT,
    want: { stage: "signer", reason: NOT_NODES },
  },
  {
    name: "nodes-universal",
    file: "nodes-universal.csr",
    signer: KC,
    usages: CLIENT,
    want: { stage: "signer", reason: NOT_NODES },
  },
  {
    name: "nodes-and-masters",
    file: "nodes-masters.csr",
    signer: KC,
    usages: CLIENT,
    want: { stage: "signer", reason: NOT_NODES },
  },
  {
    name: "nodes-twice",
    file: "nodes-nodes.csr",
    signer: KC,
    usages: CLIENT,
    want: { stage: "signer", reason: NOT_NODES },
  },
  {
    name: "no-org",
    file: "no-org.csr",
    signer: KC,
    usages: CLIENT,
    want: { stage: "signer", reason: NOT_NODES },
  },
  { name: "node-client", file: "node-client.csr", signer: KC, usages: CLIENT, want: "sign" },
  { name: "node-serving", file: "node-serving.csr", signer: KS, usages: SERVING, want: "sign" },
];

function objectFor(r: Row, pem = fixture(r.file)): KubeObject {
  const spec: Record<string, unknown> = {
    request: Buffer.from(pem).toString("base64"),
    signerName: r.signer,
    usages: r.usages,
  };
  if (r.expirationSeconds !== undefined) spec.expirationSeconds = r.expirationSeconds;
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: r.name },
    spec,
    status: {
      conditions: [{ type: "Approved", status: "True", reason: "KubectlApprove", message: "ok" }],
    },
  };
}

const submission = (r: Row): Submission => submissionOf(readCsrObject(objectFor(r), r.file));

let caPromise:
  | Promise<{ ca: SigningCa; crt: string; key: string; cleanup: () => void }>
  | undefined;
function testCa() {
  caPromise ??= (async () => {
    const { dir, cleanup } = tempDir();
    const { crt, key } = opensslCa(dir, "ca");
    const ca = await loadSigningCa(
      fs.readFileSync(crt, "utf8"),
      crt,
      fs.readFileSync(key, "utf8"),
      key,
    );
    globalThis.addEventListener("unload", cleanup);
    return { ca, crt, key, cleanup };
  })();
  return caPromise;
}

for (const r of ROWS) {
  Deno.test(`judgeSubmission() ${r.name}: ${r.want === "sign" ? "signed" : r.want.stage}`, async () => {
    const j = await judgeSubmission(submission(r));
    if (r.want === "sign") {
      assert.equal(j.verdict.outcome, "sign", j.verdict.reason);
      return;
    }
    assert.equal(j.verdict.outcome, "refuse");
    assert.equal(j.verdict.stage, r.want.stage);
    assert.equal(j.verdict.reason, r.want.reason);
    assert.equal(j.verdict.failedCondition, r.want.stage === "signer" ? r.want.reason : undefined);
  });
}

Deno.test({
  name: "signObject() acts on the judgement: signed, Failed condition only from the signer",
  ignore: !HAVE_OPENSSL,
  fn: async () => {
    const { ca } = await testCa();
    for (const r of ROWS) {
      const out = await signObject(objectFor(r), r.file, { ca, ttlMs: 3_600_000, now: NOW });
      if (r.want === "sign") {
        assert.equal(out.error, undefined, `${r.name}: ${out.error?.message}`);
        assert.match(out.certPem ?? "", /^-----BEGIN CERTIFICATE-----/, r.name);
        continue;
      }
      assert.equal(out.error?.exitCode, 3, r.name);
      assert.equal(out.error?.message, `${r.file} (${r.name}): ${r.want.reason}`);
      assert.equal(out.certPem, undefined);
      const conds = (out.obj.status as { conditions: Record<string, unknown>[] }).conditions;
      if (r.want.stage === "signer") {
        assert.deepEqual(conds.at(-1), {
          lastTransitionTime: "2026-11-22T00:00:00Z",
          lastUpdateTime: "2026-11-22T00:00:00Z",
          message: r.want.reason,
          reason: "SignerValidationFailure",
          status: "True",
          type: "Failed",
        });
      } else {
        // The API server would never have stored it: no controller condition, object unchanged.
        assert.deepEqual(out.obj, objectFor(r), r.name);
      }
    }
  },
});

Deno.test("subjectRestriction() upstream's admission_test cases", () => {
  assert.equal(
    forbiddenMessage("pooh", subjectRestriction(AC, { organization: ["system:masters"] })!),
    forbidden("pooh", MASTERS),
  );
  assert.equal(subjectRestriction(AC, { organization: ["system:admin"] }), undefined);
  assert.equal(
    forbiddenMessage(
      "bear",
      subjectRestriction(AC, { parseError: "PEM block type must be CERTIFICATE REQUEST" })!,
    ),
    'certificatesigningrequests.certificates.k8s.io "bear" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST',
  );
  // Only the kube-apiserver-client signer is covered, and only exact O values.
  for (const s of [KC, KS, LEGACY, "example.com/x"]) {
    assert.equal(subjectRestriction(s, { organization: ["system:masters"] }), undefined, s);
    assert.equal(subjectRestriction(s, { parseError: "x" }), undefined, s);
  }
  for (const o of ["System:masters", " system:masters", "system:masters ", "system:master"]) {
    assert.equal(subjectRestriction(AC, { organization: [o] }), undefined, o);
  }
});

Deno.test("judgeSubmission() metadata: neither name nor generateName is a validation error", async () => {
  const s = { ...submission(ROWS.find((r) => r.name === "node-client")!), metadataName: "" };
  const j = await judgeSubmission(s);
  assert.equal(
    j.verdict.reason,
    invalid("Unknown", "metadata.name: Required value: name or generateName is required"),
  );
  const g = await judgeSubmission({ ...s, generateName: "csr-" });
  assert.equal(g.verdict.outcome, "sign");
});

Deno.test("judgeSubmission() state after admission: Denied, Failed and issued are refused", async () => {
  const base = submission(ROWS.find((r) => r.name === "node-client")!);
  const cases: [Record<string, unknown>[], string][] = [
    [[{ type: "Denied", status: "True" }], "csr is denied"],
    [[{ type: "Failed", status: "True" }], "csr has failed"],
  ];
  for (const [conditions, reason] of cases) {
    const j = await judgeSubmission({ ...base, conditions });
    assert.deepEqual(j.verdict, { outcome: "refuse", stage: "state", reason });
  }
  // A forbidden CSR is forbidden whatever its conditions say.
  const pooh = submission(ROWS.find((r) => r.name === "pooh")!);
  const j = await judgeSubmission({ ...pooh, conditions: [{ type: "Denied", status: "True" }] });
  assert.equal(j.verdict.stage, "admission");
});

Deno.test("approver: a CSR carrying system:masters besides system:nodes is never recognized", async () => {
  // Kills the mutation "O includes system:nodes" for "O is exactly [system:nodes]".
  for (const f of ["nodes-masters.csr", "nodes-nodes.csr", "no-org.csr", "nodes-universal.csr"]) {
    const j = await judgePem(fixture(f), { signerName: KC, usages: CLIENT });
    const csr = j.judgement.request.csr!;
    const obj = { signerName: KC, usages: CLIENT, username: "system:node:w1" };
    assert.equal(isNodeClientCert(obj, csr), false, f);
    assert.deepEqual(recognize(obj, csr), [], f);
  }
  const ok = (await judgePem(fixture("node-client.csr"), {})).judgement.request.csr!;
  assert.deepEqual(recognize({ signerName: KC, usages: CLIENT, username: "system:node:w1" }, ok), [
    "selfnodeclient",
    "nodeclient",
  ]);
});

// ---------------------------------------------------------------------------
// inspect predicts sign, over every CSR in the suite

/** Signer and usage choices a bare CSR is judged under (flags as for csr sign). */
const CHOICES: { signerName?: string; usages?: string[] }[] = [
  {},
  { signerName: KC },
  { signerName: KS },
  { signerName: AC, usages: ["client auth"] },
  { signerName: AC, usages: ["server auth"] },
  { signerName: LEGACY, usages: CLIENT },
  { signerName: KC, usages: ["digital signature", "client auth", "client auth"] },
];

Deno.test({
  name: "csr inspect's verdict predicts csr sign's outcome for every CSR in the suite",
  ignore: !HAVE_OPENSSL,
  fn: async () => {
    const { ca } = await testCa();
    const { dir, cleanup } = tempDir();
    try {
      const corpus = await csrCorpus(dir);
      assert.ok(corpus.length >= 30, `corpus of ${corpus.length}`);
      let signed = 0, refused = 0;
      for (const c of corpus) {
        for (const choice of CHOICES) {
          const what = `${c.name} ${JSON.stringify(choice)}`;
          const { judgement } = await judgePem(c.pem, choice);
          const v = judgement.verdict;
          const o = {
            ca,
            ttlMs: 3_600_000,
            now: NOW,
            signerName: choice.signerName,
            usages: choice.usages,
          };
          let outcome: string, reason: string | undefined;
          try {
            await signPemCsr(c.pem, c.name, o);
            outcome = "sign";
          } catch (e) {
            const err = e as { exitCode: number; message: string };
            outcome = err.exitCode === 3 ? "refuse" : err.exitCode === 2 ? "usage" : "error";
            reason = err.message.slice(`${c.name}: `.length);
          }
          assert.equal(outcome, v.outcome, what);
          assert.equal(reason, v.reason, what);
          if (outcome === "sign") signed++;
          else refused++;
        }
        // The same CSR as an object, under each signer: inspect's report and sign agree.
        for (const signer of [KC, KS, AC, LEGACY, "example.com/custom"]) {
          const row: Row = {
            name: "corpus",
            file: c.name,
            signer,
            usages: signer === KS ? SERVING : CLIENT,
            want: "sign",
          };
          const obj = objectFor(row, c.pem);
          const j = await judgeSubmission(submissionOf(readCsrObject(obj, c.name)));
          const out = await signObject(obj, c.name, { ca, ttlMs: 3_600_000, now: NOW });
          const what = `${c.name} as ${signer}`;
          assert.equal(out.error === undefined ? "sign" : "refuse", j.verdict.outcome, what);
          if (out.error) assert.equal(out.error.message, `${c.name} (corpus): ${j.verdict.reason}`);
          assert.equal(
            out.obj.status !== undefined &&
              (out.obj.status as { conditions: { type: string }[] }).conditions.some((x) =>
                x.type === "Failed"
              ),
            j.verdict.failedCondition !== undefined,
            what,
          );
        }
      }
      assert.ok(signed > 0 && refused > 0);
    } finally {
      cleanup();
    }
  },
});

// ---------------------------------------------------------------------------
// CLI level

Deno.test({
  name: "CLI csr sign and csr inspect refuse each hostile CSR with the upstream reason",
  ignore: !HAVE_OPENSSL,
  fn: async () => {
    const { crt, key } = await testCa();
    const { dir, cleanup } = tempDir();
    try {
      const files = ROWS.map((r) => {
        const f = path.join(dir, `${r.name}.json`);
        fs.writeFileSync(f, JSON.stringify(objectFor(r)));
        return f;
      });
      // inspect keeps its report on stdout, exits 3 and carries the same reason as sign.
      const inspect = await runCli(["csr", "inspect", ...files, "-o", "json"]);
      assert.equal(inspect.code, 3);
      const reports = JSON.parse(inspect.stdout);
      // One stderr line per refused CSR, with the report's reason (issue 10: it was silent).
      assert.deepEqual(
        inspect.stderr.split("\n").filter(Boolean),
        (reports as { rejected: boolean; source: string; verdict: { reason: string } }[])
          .filter((r) => r.rejected).map((r) => `error: ${r.source}: ${r.verdict.reason}`),
      );
      const text = await runCli(["csr", "inspect", ...files]);
      assert.equal(text.code, 3);
      const sections = text.stdout.split(/\n(?=\/)/);
      assert.equal(sections.length, ROWS.length);
      for (const [i, r] of ROWS.entries()) {
        const f = files[i]!;
        const sign = await runCli([
          "csr",
          "sign",
          f,
          "--ca",
          crt,
          "--ca-key",
          key,
          "--now",
          "2026-11-22T00:00:00Z",
        ]);
        const rep = reports[i];
        if (r.want === "sign") {
          assert.equal(sign.code, 0, `${r.name}: ${sign.stderr}`);
          assert.equal(sign.stderr, "");
          assert.match(sign.stdout, /"certificate": "LS0t/);
          assert.deepEqual(rep.verdict, { outcome: "sign", unapproved: false }, r.name);
          assert.match(sections[i]!, /\n {2}verdict: +ok: csr sign signs it\n/);
          continue;
        }
        assertRefused(sign, r.want.reason, { where: `${f} (${r.name})` });
        assert.equal(rep.verdict.reason, r.want.reason);
        assert.equal(rep.rejected, true);
        assert.ok(sections[i]!.includes(`verdict:`), sections[i]);
        assert.ok(sections[i]!.includes(`REJECTED: ${r.want.reason}\n`), sections[i]);
      }
    } finally {
      cleanup();
    }
  },
});

Deno.test({
  name: "CLI csr sign on bare PEM files: refused as the object csr- would be, nothing written",
  ignore: !HAVE_OPENSSL,
  fn: async () => {
    const { crt, key } = await testCa();
    const { dir, cleanup } = tempDir();
    try {
      const out = path.join(dir, "out.crt");
      const cases: [string, string[], string][] = [
        [
          "rsa512.csr",
          [],
          invalid(
            "csr-",
            request(
              "crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)",
            ),
          ),
        ],
        [
          "cert-first.csr",
          [],
          invalid("csr-", request("PEM block type must be CERTIFICATE REQUEST")),
        ],
        [
          "md5.csr",
          [],
          invalid("csr-", request("x509: cannot verify signature: insecure algorithm MD5-RSA")),
        ],
        [
          "masters.csr",
          ["--signer-name", AC, "--usages", "client auth"],
          forbidden("csr-", MASTERS),
        ],
        [
          "node-client.csr",
          ["--signer-name", LEGACY, "--usages", "client auth"],
          invalid(
            "csr-",
            'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
          ),
        ],
        ["masters.csr", ["--signer-name", KC], NOT_NODES],
      ];
      for (const [file, flags, reason] of cases) {
        const f = path.join(CSR_FIXTURES, file);
        const sign = await runCli([
          "csr",
          "sign",
          f,
          "--ca",
          crt,
          "--ca-key",
          key,
          ...flags,
          "--out",
          out,
        ]);
        assertRefused(sign, reason, { where: f });
        assert.equal(fs.existsSync(out), false);
        const inspect = await runCli(["csr", "inspect", f, ...flags, "-o", "json"]);
        assert.equal(inspect.code, 3, `${file}: ${inspect.stderr}`);
        assert.equal(JSON.parse(inspect.stdout).verdict.reason, reason);
      }
      // Tolerated: junk around the block; SHA-1; a dropped UniversalString O.
      for (const file of ["trailing-junk.csr", "sha1.csr", "masters-universal.csr"]) {
        const f = path.join(CSR_FIXTURES, file);
        const flags = file === "masters-universal.csr"
          ? ["--signer-name", AC, "--usages", "client auth"]
          : [];
        const sign = await runCli(["csr", "sign", f, "--ca", crt, "--ca-key", key, ...flags]);
        assert.equal(sign.code, 0, `${file}: ${sign.stderr}`);
        assert.match(sign.stdout, /^-----BEGIN CERTIFICATE-----/);
      }
    } finally {
      cleanup();
    }
  },
});
