/**
 * `joinkit doctor`: prove a directory of rendered bootstrap artefacts
 * consistent and schema-valid, offline. The checks are
 * `lib/phases/doctor.ts`; reading files and printing live here.
 *
 * @module
 */

import * as fs from "node:fs";
import process from "node:process";
import { InputError } from "../lib/base/errors.ts";
import { doctor, type DoctorFile, type DoctorReport } from "../lib/phases/doctor.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagSet, outputFormat, renderData } from "./_flags.ts";
import { MAX_INPUT_FILES, walkFiles } from "./_io.ts";
import { readInput } from "./_read.ts";

const FLAGS = flagSet("doctor", [
  ["output", "text (default), json or yaml"],
  [
    "config",
    "the kubeadm configuration kubeadm PKI trees were made from: their\nSANs and kubeconfig servers are checked against it",
  ],
]);

export const command: Command = {
  name: "doctor",
  options: FLAGS.options,
  help: `Check rendered bootstrap artefacts for consistency, offline.

Reads every file under each DIR (recursively, symlinks followed, dot-files
skipped), each FILE, or stdin (-): what 'joinkit init --out-dir' writes and
what kubeadm writes -- bootstrap-token Secrets, RBAC, the cluster-info
ConfigMap, bootstrap and other kubeconfigs, discovery files, JoinConfigurations
and Init/ClusterConfigurations (kubeadm.k8s.io), join commands (a 'kubeadm
join ...' line), certificates and keys, upload-certs' kubeadm-certs Secret --
and the files inside node payloads ('joinkit node-payload': a #cloud-config,
with or without '## template: jinja', and its write_files; an Ignition
config and its storage.files data URLs), each judged as if loose (named
PAYLOAD:PATH) -- and checks that:
  - every JoinConfiguration passes kubeadm join's loader (an unknown field
    is a finding: kubeadm join ignores it, 'kubeadm config validate' refuses
    it) and ValidateJoinConfiguration (kubeadm v1.32's texts); file discovery
    without a TLS bootstrap token has credentials in the discovery file (found
    at its path in the same payload); every Init/ClusterConfiguration passes
    kubeadm init's loader and ValidateInitConfiguration;
  - a kube-system/kubeadm-certs Secret's values are AES-GCM ciphertexts
    (nonce and tag present; without the key they are not read as PEM);
  - every token a kubeconfig (user token), join command (--token,
    --discovery-token, --tls-bootstrap-token), JoinConfiguration
    (discovery.bootstrapToken.token, tlsBootstrapToken) or InitConfiguration
    (bootstrapTokens, with their usages and groups) refers to exists as a
    kube-system bootstrap-token Secret, is not expired at --now and has the
    usage it needs: signing for discovery, authentication for the TLS
    bootstrap (judged as kube-apiserver's authenticator does);
  - cluster-info carries a valid JWS for every token that signs, and none
    for a token that does not (as the bootstrapsigner would leave it);
  - every CA pin (--discovery-token-ca-cert-hash, caCertHashes) matches the
    CA in cluster-info, and every kubeconfig's CA and server agree with it;
  - ClusterRoleBindings bind the groups of every authentication token to
    system:node-bootstrapper and the nodeclient auto-approval role, and
    system:anonymous may read cluster-info;
  - every certificate (files, kubeconfigs, CSR status.certificate, Secret
    tls.crt/ca.crt) chains to a CA found in the input and is inside its
    lifetime;
  - every kubeadm PKI tree (a DIR/pki/ca.crt, or a cert dir with ca.crt and
    apiserver.crt or front-proxy-ca.crt) is kubeadm's: each certificate of
    kubeadm's list chains to its own CA (front-proxy-client to
    front-proxy-ca, etcd/* and apiserver-etcd-client to etcd/ca, the rest to
    ca), matches the key beside it and has kubeadm's subject and extended key
    usages; each CA key is its certificate's; sa.pub is sa.key's; the five
    kubeconfigs beside pki/ embed ca.crt and a client certificate and key
    with kubeadm's subject (admin.conf O=kubeadm:cluster-admins
    CN=kubernetes-admin, super-admin.conf O=system:masters, kubelet.conf
    O=system:nodes CN=system:node:<name>, ...) signed by ca; missing files
    of a tree that has leaves are findings. With --config the SANs kubeadm
    computes must be in the API server and etcd certificates (what kubeadm
    join --control-plane checks) and the servers must be kubeadm's URLs.
    These findings have check 'pki' and the rule as their field;
  - every Kubernetes object validates against the Kubernetes OpenAPI schema
    (kubernetes-models: types, required fields, enums, formats; unknown
    fields allowed, server-side rules not checked).

Output: one line per finding, 'FILE: OBJECT: FIELD: CHECK: MESSAGE', then a
summary line. A file that cannot be read or is not recognised is skipped
with a 'warning:' line on stderr and the rest is still checked, but the run
does not pass (exit 1): doctor never says ok about a file it did not check,
nor about a run that checked nothing (an empty directory). -o json|yaml
prints the report: files, payloads, kubeadmConfigs, kubeadmCertsSecrets,
objects, tokenReferences, tokenSecrets, certificates, validated,
unvalidatedKinds, findings [{file, object, field, check, message}], skipped
[{file, reason}].

Usage:
  joinkit doctor DIR|FILE|-... [-o text|json|yaml]

${FLAGS.help}
Exit 3 when there is any finding (one 'error:' line on stderr); else exit 1
when a file was skipped or nothing at all was checked; 0 only when every
input was read and checked and nothing was found.
Times are judged at the global --now (default: the system time).

${EXIT_CODES}

Examples:
  joinkit init --server 10.0.0.1:6443 --ca ca.crt --out-dir out && joinkit doctor out
  joinkit doctor /etc/kubernetes bootstrap.yaml join-config.yaml -o json
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "DIR|FILE|-");
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    const files: DoctorFile[] = [];
    const warnings: { file: string; reason: string }[] = [];
    for (const arg of ctx.args) {
      if (arg !== "-" && isDirectory(arg)) {
        for (const file of walkFiles(arg, (file, reason) => warnings.push({ file, reason }))) {
          if (files.length >= MAX_INPUT_FILES) {
            throw new InputError(`${arg}: more than ${MAX_INPUT_FILES} files to read`);
          }
          try {
            files.push(readInput(file));
          } catch (e) {
            warnings.push({ file, reason: (e as Error).message.replace(`${file}: `, "") });
          }
        }
      } else {
        // A named FILE that cannot be read is bad input, as everywhere.
        files.push(readInput(arg));
      }
    }
    // kubernetes-models' validators load ajv-formats, which require()s the
    // deprecated built-in punycode: keep its warning off stderr.
    process.noDeprecation = true;
    const { readPkiConfig } = await import("./certs/_pki_config.ts");
    const pkiSpec = await readPkiConfig(ctx, false);
    const report = await doctor(files, ctx.now, pkiSpec ? { pkiSpec } : {});
    report.skipped.unshift(...warnings);
    report.files += warnings.length;
    for (const s of report.skipped) ctx.stderr(`warning: ${s.file}: skipped: ${s.reason}`);
    if (format === "text") ctx.stdout(textReport(report));
    else ctx.stdout(await renderData(report, format));
    if (report.findings.length) {
      ctx.stderr(
        `error: doctor: ${report.findings.length} inconsistenc${
          report.findings.length === 1 ? "y" : "ies"
        } found`,
      );
      return 3;
    }
    if (report.skipped.length) {
      ctx.stderr(
        `error: doctor: ${report.skipped.length} file${
          report.skipped.length === 1 ? "" : "s"
        } not checked (skipped): the run does not pass`,
      );
      return 1;
    }
    if (report.objects + report.certificates + report.payloads === 0) {
      ctx.stderr("error: doctor: nothing to check in the input");
      return 1;
    }
    return 0;
  },
};

function textReport(r: DoctorReport): string {
  const lines = r.findings.map((f) =>
    `${f.file}: ${f.object}: ${f.field || "(object)"}: ${f.check}: ${f.message}`
  );
  const unvalidated = r.unvalidatedKinds.length
    ? `, not validated (no schema here): ${r.unvalidatedKinds.join(", ")}`
    : "";
  lines.push(
    `doctor: ${r.files} files${r.payloads ? ` (${r.payloads} node payloads)` : ""}${
      r.pkiTrees ? `, ${r.pkiTrees} kubeadm PKI tree${r.pkiTrees === 1 ? "" : "s"}` : ""
    }, ${r.objects} objects (${r.validated} validated against the schema${unvalidated}), ${r.tokenSecrets} token Secrets, ${r.tokenReferences} token references, ${r.certificates} certificates: ${r.findings.length} findings, ${r.skipped.length} files skipped`,
  );
  return lines.join("\n") + "\n";
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
