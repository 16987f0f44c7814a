/**
 * `joinkit csr inspect`: show CSRs and judge them as kube-apiserver, the
 * built-in signers and kube-controller-manager's approver would.
 *
 * @module
 */

import { parseCsrDer } from "../lib/csr.ts";
import { type CsrReport, judgeCsr } from "../lib/csr_judge.ts";
import { readCsrObject } from "../lib/csr_object.ts";
import { InputError, oneLine } from "../lib/errors.ts";
import { decodePem } from "../lib/pem.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagChoice, flagString } from "./_flags.ts";
import { readInputs } from "./_io.ts";

export const command: Command = {
  name: "csr inspect",
  options: {
    requester: { type: "string" },
    output: { type: "string", short: "o" },
  },
  help: `Show CSRs and judge them as the cluster would.

FILE holds PEM CSRs ("CERTIFICATE REQUEST" blocks) or CertificateSigningRequest
objects (YAML or JSON, streams and Lists; '-' reads stdin). For each CSR:
subject, SANs, key type and size, signature algorithm and validity, and for
objects signerName, usages and expirationSeconds. Then three verdicts:
  api:       kube-apiserver's create-time validation (signerName form and length,
             allowed and duplicate usages, expirationSeconds >= 600, the request's
             signature, conditions, status.certificate)
  signer:    the built-in signer's own rules, with upstream's exact messages
  approver:  kube-controller-manager's classification: selfnodeclient (requester
             = CN), nodeclient, or ignored
Weak keys (RSA < 2048, ECDSA < P-256: client-go refuses them) are flagged.

Usage:
  joinkit csr inspect FILE... [--requester USER] [-o text|json]

Flags:
  --requester USER     the user who posts the CSR (spec.username), for the approver
  -o, --output FORMAT  text (default) or json

Exit code 3 when a CSR would be rejected by the API server or could never be
signed (bad signature, signer refusal, unknown kubernetes.io signer, Denied).

${EXIT_CODES}

Examples:
  joinkit csr inspect pki/kubelet-client.csr
  kubectl get csr -o yaml | joinkit csr inspect - --requester system:node:worker-1
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "FILE");
    const requester = flagString(ctx.flags, "requester");
    const format = flagChoice(ctx.flags, "output", ["text", "json"] as const, "text");
    const reports: CsrReport[] = [];
    for (const input of readInputs(ctx.args)) {
      if (input.text.includes("-----BEGIN")) {
        const blocks = decodePem(input.text, input.name).filter((b) =>
          b.type === "CERTIFICATE REQUEST"
        );
        if (blocks.length === 0) {
          throw new InputError(`${input.name}: PEM block type must be CERTIFICATE REQUEST`);
        }
        for (let i = 0; i < blocks.length; i++) {
          const where = blocks.length > 1 ? `${input.name}[${i}]` : input.name;
          let csr;
          try {
            csr = parseCsrDer(blocks[i]!.der);
          } catch (e) {
            throw new InputError(`${where}: ${oneLine(e)}`);
          }
          reports.push(await judgeCsr(csr, where, undefined, requester));
        }
        continue;
      }
      const { parseManifests } = await import("../lib/manifest.ts");
      const objects = parseManifests(input.text, input.name);
      if (objects.length === 0) throw new InputError(`${input.name}: no objects found`);
      for (let i = 0; i < objects.length; i++) {
        const where = objects.length > 1 ? `${input.name}: object ${i + 1}` : input.name;
        const c = readCsrObject(objects[i]!, where);
        const text = new TextDecoder().decode(c.request);
        let csr;
        try {
          const b = decodePem(text, "spec.request")[0];
          if (!b || b.type !== "CERTIFICATE REQUEST") throw new Error("no CSR");
          csr = parseCsrDer(b.der);
        } catch {
          throw new InputError(
            `${where} (${c.name}): spec.request: PEM block type must be CERTIFICATE REQUEST`,
          );
        }
        reports.push(await judgeCsr(csr, where, c, requester));
      }
    }
    if (format === "json") {
      const { toJson } = await import("../lib/manifest.ts");
      ctx.stdout(toJson(reports.length === 1 ? reports[0] : reports));
    } else {
      ctx.stdout(reports.map(renderText).join("\n"));
    }
    return reports.some((r) => r.rejected) ? 3 : 0;
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
    `${r.signatureAlgorithm}, ${r.signatureValid ? "valid" : `INVALID: ${r.signatureError}`}`,
  ]);
  if (r.signerName !== undefined) {
    rows.push(["signerName", r.signerName || "(none)"]);
    rows.push(["usages", list(r.usages ?? [])]);
    rows.push([
      "expirationSeconds",
      r.expirationSeconds == null ? "(unset: the signer's default)" : String(r.expirationSeconds),
    ]);
    if (r.requester !== undefined) rows.push(["requester", r.requester]);
    rows.push(["status", r.status ?? ""]);
    if (r.certificate) rows.push(["certificate", r.certificate]);
    rows.push(["api", r.apiErrors.length ? `REJECTED: ${r.apiErrors.join("; ")}` : "valid"]);
  }
  rows.push(["signer", r.signer]);
  rows.push(["approver", `${r.approver[0] ?? "none"}: ${r.approverNote}`]);
  rows.push(["verdict", r.rejected ? "REJECTED" : "ok"]);
  const w = Math.max(...rows.map(([k]) => k.length)) + 2;
  return `${r.source}\n` + rows.map(([k, v]) => `  ${(k + ":").padEnd(w)}${v}`).join("\n") +
    "\n";
}
