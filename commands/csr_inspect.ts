/**
 * `joinkit csr inspect`: show CSRs and judge them as kube-apiserver, the
 * built-in signers and kube-controller-manager's approver would.
 *
 * @module
 */

import { type CsrReport, judgeObject, judgePemReport } from "../lib/kubelet/csr_judge.ts";
import { readCsrObject } from "../lib/kubelet/csr_object.ts";
import { InputError, UsageError } from "../lib/base/errors.ts";
import { pemRequests, submissionOf } from "../lib/kubelet/sign_batch.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagList, flagSet, flagString, outputFormat } from "./_flags.ts";
import { eachManifestInput } from "./_io.ts";
import { dataListWriter, HeldOutput } from "./_list_output.ts";
import type { KubeObject } from "../lib/k8s/manifest.ts";

const FLAGS = flagSet("csr inspect", [
  "requester",
  [
    "signer-name",
    "as for 'csr sign': PEM CSRs: the signer; objects: only this\nsigner's CSRs",
  ],
  ["usages", "as for 'csr sign': PEM CSRs: the usage strings"],
  ["output", "text (default), json or yaml"],
]);

export const command: Command = {
  name: "csr inspect",
  options: FLAGS.options,
  help: `Show CSRs and judge them as the cluster would.

FILE holds PEM CSRs ("CERTIFICATE REQUEST" blocks) or CertificateSigningRequest
objects (YAML or JSON, streams and Lists; '-' reads stdin). For each CSR:
subject, SANs, key type and size, signature algorithm and validity, and for
objects signerName, usages and expirationSeconds. Then the judgement
'csr sign' acts on (one function serves both, so they cannot disagree), in
the cluster's order:
  api:       kube-apiserver's create-time validation (the request's first PEM
             block parses and its signature verifies as Go's CheckSignature:
             SHA-1 allowed, MD5 and RSA < 1024 bits refused; signerName form,
             length and not kubernetes.io/legacy-unknown; known, unrepeated
             usages; expirationSeconds >= 600; conditions; status.certificate)
  admission: CertificateSubjectRestriction (O=system:masters is forbidden for
             kubernetes.io/kube-apiserver-client)
  signer:    the built-in signer's own rules, with upstream's exact messages
  approver:  kube-controller-manager's classification: selfnodeclient (requester
             = CN), nodeclient, or ignored
  verdict:   what 'csr sign' does with it, with upstream's reason
A bare PEM CSR is judged as 'csr sign' would submit it: the signer from
--signer-name or what it suits (kubelet client or serving), the usages from
--usages or the kubelet's for its key type.
Weak keys (RSA < 2048, ECDSA < P-256: client-go refuses them) are flagged.

Usage:
  joinkit csr inspect FILE... [--requester USER] [--signer-name NAME] [--usages U,...]
                      [-o text|json|yaml]

${FLAGS.help}
Output (-o json): one report object per CSR (an array when there are
several): source, subject, SANs (dnsNames, ipAddresses, emailAddresses,
uris), key, signature fields, for objects name, signerName, usages,
expirationSeconds and status, then apiErrors, admission, signer, approver and
verdict {outcome, stage, reason}. Keys sorted; -o yaml is the same data.

Exit code 3, with one stderr line per refused CSR, when 'csr sign' would
refuse a CSR (the API server would reject it, the signer would refuse it, it
is Denied, Failed or already issued, or no built-in signer signs its
signerName).

${EXIT_CODES}

Examples:
  joinkit csr inspect pki/kubelet-client.csr
  kubectl get csr -o yaml | joinkit csr inspect - --requester system:node:worker-1
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "FILE");
    const requester = flagString(ctx.flags, "requester");
    const signerName = flagString(ctx.flags, "signer-name");
    const usages = flagList(ctx.flags, "usages", true).map((u) => u.trim()).filter(Boolean);
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    // Each report is printed as it is made (held up to 16 MiB, so a refusal midway still prints
    // nothing); each refusal is also one stderr line, as 'csr sign' says it, at the end.
    const out = new HeldOutput(ctx.stdout);
    const data = format === "text" ? undefined : await dataListWriter(format, out, true);
    const rejected: string[] = [];
    let count = 0;
    const emit = (r: CsrReport) => {
      if (data) data.add(r);
      else out.write((count > 0 ? "\n" : "") + renderText(r));
      count++;
      if (r.rejected) rejected.push(`error: ${r.source}: ${r.verdict.reason}`);
    };
    const judge = (obj: KubeObject, where: string) => {
      const c = readCsrObject(obj, where);
      return judgeObject({ ...submissionOf(c), username: c.username }, where, c.name, requester, {
        signerFilter: signerName,
      });
    };
    // Files up to 16 MiB are read whole; a longer stream or List of objects piece by piece.
    for (const input of eachManifestInput(ctx.args, { pemCsrPieces: true })) {
      if (input.pemParts) {
        // PEM CSRs over 1 MiB, in pieces that each start with a CSR block: numbered across them.
        let i = 0;
        for (const part of input.pemParts) {
          for (const request of pemRequests(part.text, input.name)) {
            const where = `${input.name}[${i++}]`;
            emit(await judgePemReport(request, where, { signerName, usages }, requester));
          }
        }
        continue;
      }
      if (input.text?.includes("-----BEGIN")) {
        const requests = pemRequests(input.text, input.name);
        for (let i = 0; i < requests.length; i++) {
          const where = requests.length > 1 ? `${input.name}[${i}]` : input.name;
          emit(await judgePemReport(requests[i]!, where, { signerName, usages }, requester));
        }
        continue;
      }
      if (usages.length) {
        throw new UsageError("--usages applies to PEM CSRs; objects carry spec.usages");
      }
      const { parseManifests, parseManifestChunk } = await import("../lib/k8s/manifest.ts");
      if (input.text !== undefined) {
        const objects = parseManifests(input.text, input.name);
        if (objects.length === 0) throw new InputError(`${input.name}: no objects found`);
        for (let i = 0; i < objects.length; i++) {
          const where = objects.length > 1 ? `${input.name}: object ${i + 1}` : input.name;
          emit(await judge(objects[i]!, where));
        }
        continue;
      }
      const counts = { documents: 0, objects: 0 };
      let n = 0;
      for (const chunk of input.pieces) {
        for (const obj of parseManifestChunk(chunk, counts)) {
          emit(await judge(obj, `${input.name}: object ${++n}`));
        }
      }
      if (n === 0) throw new InputError(`${input.name}: no objects found`);
    }
    if (data) data.end();
    else out.end();
    for (const line of rejected) ctx.stderr(line);
    return rejected.length > 0 ? 3 : 0;
  },
};

function renderText(r: CsrReport): string {
  const rows: [string, string][] = [];
  const list = (xs: readonly string[]) => (xs.length ? xs.join(", ") : "(none)");
  if (r.name) rows.push(["name", r.name]);
  rows.push(["subject", r.subject || "(empty)"]);
  const sans = [
    ...r.dnsNames.map((d) => `DNS:${d}`),
    ...r.ipAddresses.map((d) => `IP:${d}`),
    ...r.emailAddresses.map((d) => `email:${d}`),
    ...r.uris.map((d) => `URI:${d}`),
  ];
  rows.push(["SANs", list(sans)]);
  rows.push(["key", r.key + (r.weakKey ? `  WEAK: ${r.weakKey}` : "")]);
  rows.push([
    "signature",
    r.parseError !== undefined
      ? `UNPARSEABLE: ${r.parseError}`
      : `${r.signatureAlgorithm}, ${r.signatureValid ? "valid" : `INVALID: ${r.signatureError}`}`,
  ]);
  if (r.signerName !== undefined) {
    rows.push(["signerName", r.signerName || "(none)"]);
    rows.push(["usages", list(r.usages ?? [])]);
  }
  if (r.status !== undefined) {
    rows.push([
      "expirationSeconds",
      r.expirationSeconds == null ? "(unset: the signer's default)" : String(r.expirationSeconds),
    ]);
    if (r.requester !== undefined) rows.push(["requester", r.requester]);
    rows.push(["status", r.status]);
    if (r.certificate) rows.push(["certificate", r.certificate]);
  }
  const api = r.verdict.stage === "usage" && r.apiErrors.length === 0
    ? "not judged without a signer"
    : r.apiErrors.length
    ? `REJECTED: ${r.apiErrors.join("; ")}`
    : "valid";
  rows.push(["api", api]);
  if (r.admission) rows.push(["admission", `FORBIDDEN: ${r.admission}`]);
  rows.push(["signer", r.signer]);
  rows.push(["approver", `${r.approver[0] ?? "none"}: ${r.approverNote}`]);
  rows.push([
    "verdict",
    r.verdict.outcome === "sign"
      ? r.status !== undefined && r.verdict.unapproved === true
        // An object: kube-controller-manager signs only Approved CSRs, and so does csr sign.
        ? "ok once approved: csr sign --approve signs it (without --approve: not approved)"
        : "ok: csr sign signs it"
      : r.verdict.outcome === "usage"
      ? `csr sign needs a flag: ${r.verdict.reason}`
      : `REJECTED: ${r.verdict.reason}`,
  ]);
  const w = Math.max(...rows.map(([k]) => k.length)) + 2;
  return `${r.source}\n` + rows.map(([k, v]) => `  ${(k + ":").padEnd(w)}${v}`).join("\n") +
    "\n";
}
