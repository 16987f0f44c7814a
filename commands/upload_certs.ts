/**
 * `joinkit upload-certs`: what `kubeadm init phase upload-certs
 * --upload-certs` puts into the cluster, rendered offline from a kubeadm
 * `pki/` directory (lib/phases/upload_certs.ts does the work).
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { InputError, UsageError } from "../lib/base/errors.ts";
import { renderObjects } from "../lib/k8s/manifest.ts";
import { certificateKeyBytes, createCertificateKey } from "../lib/pki/aes_gcm.ts";
import {
  CERT_TOKEN_DESCRIPTION,
  certsToTransfer,
  DEFAULT_CERT_TOKEN_TTL_MS,
  EXTERNAL_CA_KEYS,
  type ExternalEtcd,
  KUBEADM_CERTS_ROLE,
  UPLOAD_MESSAGE,
  uploadCerts,
} from "../lib/phases/upload_certs.ts";
import { generateToken, parseToken, SECRET_PREFIX } from "../lib/tokens/token.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagDuration,
  flagNonEmpty,
  flagOut,
  flagSet,
  flagString,
  flagToken,
  outputFormat,
  requireOutDir,
  requireString,
} from "./_flags.ts";
import { ensureParentDir, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";
import { SECRET_INPUT_HELP } from "./_secret_input.ts";
import {
  checkProtectedFormat,
  ensureGitopsDirs,
  gitopsFiles,
  protectionFromFlags,
  protectObjects,
  renderStream,
} from "./_secret_output.ts";

const FLAGS = flagSet("upload-certs", [
  ["pki-dir", "the kubeadm certificates directory to upload from (required)"],
  [
    "certificate-key",
    "the key to encrypt with: 64 hex characters (32 bytes), as\n'joinkit certs certificate-key' or kubeadm prints it;\ngenerated (and printed on stdout) when absent, which needs --out",
  ],
  ["token", "the TTL token (default: a random one; kubeadm always draws one)"],
  ["ttl", "the TTL token's lifetime, Go syntax (default 2h, kubeadm's; at least 1s)"],
  [
    "owner-uid",
    "metadata.uid the API server gave the TTL token's Secret: adds\nkubeadm's ownerReference (without it kubeadm-certs outlives the token)",
  ],
  "external-ca",
  ["etcd-cafile", "external etcd's CA file (any --etcd-* flag means external etcd)"],
  "etcd-certfile",
  "etcd-keyfile",
  ["out", "write the manifests to FILE (0600: they hold the token) instead of stdout"],
  ["output", "yaml (default; a '---' stream) or json (a v1 List)"],
  "force",
  [
    "seal-cert",
    "write both Secrets as SealedSecrets for this Sealed Secrets\ncontroller certificate (see GitOps below)",
  ],
  "seal-scope",
  [
    "age-recipient",
    "write both Secrets SOPS-encrypted for this age recipient\n(see GitOps below); repeatable",
  ],
  [
    "out-dir",
    "with --seal-cert or --age-recipient: a kustomize directory\n(see GitOps below)",
  ],
]);

/** The refusal when a generated key would be lost. */
export const NO_KEY_DESTINATION =
  "no --certificate-key and no --out: a generated key would be lost; run 'joinkit certs certificate-key' first or give --out FILE";

export const command: Command = {
  name: "upload-certs",
  options: FLAGS.options,
  help: `Render what 'kubeadm init phase upload-certs --upload-certs' creates, offline.

Reads the shared control-plane files from --pki-dir and prints, in kubeadm's
creation order:
  Secret kube-system/bootstrap-token-<id>  the TTL token: description
      "${CERT_TOKEN_DESCRIPTION}",
      expiration = --now + --ttl (2h), no usages, no groups (it can neither
      authenticate nor sign; its expiry removes kubeadm-certs)
  Secret kube-system/kubeadm-certs          one data key per file, each
      AES-256-GCM under the certificate key, stored as nonce|ciphertext|tag
      (kubeadm's cryptoutil.EncryptBytes); no type (the API server makes it
      Opaque); ownerReference to the token Secret when --owner-uid is given
  Role and RoleBinding kube-system/${KUBEADM_CERTS_ROLE}  get on that
      Secret for system:bootstrappers:kubeadm:default-node-token

Files and data keys (kubeadm's certsToTransfer; '/' becomes '-'):
  ca.crt ca.key front-proxy-ca.crt front-proxy-ca.key sa.pub sa.key
  etcd/ca.crt -> etcd-ca.crt, etcd/ca.key -> etcd-ca.key     (local etcd)
  --etcd-cafile/--etcd-certfile/--etcd-keyfile -> external-etcd-ca.crt,
      external-etcd.crt, external-etcd.key                   (external etcd)
Every file must exist (kubeadm silently uploads a missing one as empty, and
the join then lacks it). --external-ca lets ca.key, front-proxy-ca.key and
etcd/ca.key be absent: they are uploaded empty, as kubeadm does. An
external-etcd flag left out is uploaded empty (an etcd without TLS).

Before printing, the Secret is decrypted again and compared with the files
(exit 3 on any difference). Check it as a joining node would with
'joinkit download-certs'.

The API server gives every object its own metadata.uid, so the owner
reference can only be rendered once the token Secret exists: apply the token
Secret, read its uid (kubectl get secret -n kube-system bootstrap-token-<id>
-o jsonpath='{.metadata.uid}') and render again with the same --token and
--owner-uid. Without it, a warning says kubeadm-certs will not expire.

GitOps: with --seal-cert CERT [--seal-scope S] or --age-recipient R both
Secrets are written as SealedSecrets or SOPS documents (nothing in clear).
--out-dir DIR then writes DIR/rbac.yaml (the Role and RoleBinding), each
protected Secret as DIR/kube-system.<name>.sealedsecret.yaml (or .sops.yaml),
DIR/kustomization.yaml listing them, and a generated certificate key as
DIR/private/certificate-key.txt (0600, kept out of git by DIR/.gitignore)
instead of stdout.

Usage:
  joinkit upload-certs --pki-dir DIR [--certificate-key KEY] [flags]

${FLAGS.help}
The certificate key never appears on stderr; a generated one is printed on
stdout as kubeadm prints it ("[upload-certs] Using certificate key:" and the
key), so it needs --out for the manifests.

${SECRET_INPUT_HELP}
${EXIT_CODES}
Exit 2 also for a malformed --certificate-key (kubeadm's text: "certificate
key decoding error: …" or "invalid certificate key size N, the key must be an
AES key of size 32"); exit 1 for a missing or unreadable file.

Examples:
  KEY=$(joinkit certs certificate-key)
  joinkit upload-certs --pki-dir /etc/kubernetes/pki --certificate-key "$KEY" | kubectl apply -f -
  joinkit upload-certs --pki-dir pki --out kubeadm-certs.yaml --now 2026-01-01T00:00:00Z
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const pkiDir = requireString(ctx.flags, "pki-dir");
    if (pkiDir === "") throw new UsageError("--pki-dir must not be empty");
    const out = flagOut(ctx.flags);
    const protection = await protectionFromFlags(ctx);
    const outDir = ctx.flags["out-dir"] === undefined ? undefined : requireOutDir(ctx.flags);
    if (outDir !== undefined && protection === undefined) {
      throw new UsageError("--out-dir needs --seal-cert or --age-recipient (else use --out FILE)");
    }
    if (outDir !== undefined && out !== undefined) {
      throw new UsageError("--out and --out-dir: give one");
    }
    const keyText = flagString(ctx.flags, "certificate-key");
    if (keyText === undefined && out === undefined && outDir === undefined) {
      throw new UsageError(NO_KEY_DESTINATION);
    }
    const keyHex = keyText ?? createCertificateKey();
    const key = certificateKeyBytes(keyHex);
    const ttlMs = flagDuration(ctx.flags, "ttl", 1000) ?? DEFAULT_CERT_TOKEN_TTL_MS;
    const token = flagToken(ctx.flags) ?? parseToken(generateToken());
    const ownerUid = flagNonEmpty(ctx.flags, "owner-uid");
    const externalCa = flagBool(ctx.flags, "external-ca");
    const etcd = externalEtcdFlags(ctx);
    const force = flagBool(ctx.flags, "force");

    const transfer = certsToTransfer(etcd);
    const files = new Map<string, Uint8Array | undefined>();
    for (const f of transfer) {
      if (!f.inCertDir && f.path === "") {
        files.set(f.name, undefined); // an etcd without TLS: kubeadm uploads it empty
        continue;
      }
      const file = f.inCertDir ? path.join(pkiDir, f.path) : f.path;
      if (!fs.existsSync(file)) {
        if (externalCa && EXTERNAL_CA_KEYS.includes(f.name)) {
          files.set(f.name, undefined);
          continue;
        }
        throw new InputError(
          `${file}: no such file: kubeadm would upload ${f.name} (a joining control plane needs it)${
            EXTERNAL_CA_KEYS.includes(f.name) ? "; with an external CA give --external-ca" : ""
          }`,
        );
      }
      files.set(f.name, readInput(file).bytes);
    }

    const result = uploadCerts({
      key,
      files,
      transfer,
      token,
      ttlMs,
      now: ctx.now,
      ...(ownerUid !== undefined ? { ownerUid } : {}),
    });
    checkProtectedFormat(protection, format);
    const objects = protection === undefined
      ? result.objects
      : protectObjects(result.objects, protection, "upload-certs");
    const text = protection?.kind === "sops"
      ? renderStream(objects)
      : renderObjects(objects, format);
    ctx.stderr(UPLOAD_MESSAGE);
    if (ownerUid !== undefined && protection?.kind === "sealed") {
      // kubeseal drops ownerReferences from the template: the controller owns the Secret.
      ctx.stderr(
        "warning: sealing drops kubeadm-certs' ownerReference (the Sealed Secrets controller owns the Secret it makes): delete it yourself when the token expires",
      );
    }
    if (ownerUid === undefined) {
      ctx.stderr(
        `warning: kube-system/kubeadm-certs has no ownerReference (no --owner-uid): it will not be deleted when ${SECRET_PREFIX}${token.id} expires at ${result.expiration}`,
      );
    }
    if (outDir !== undefined) {
      const files = gitopsFiles(
        outDir,
        [{
          name: "rbac.yaml",
          objects: objects.filter((o) =>
            o.kind !== "Secret" && o.kind !== "SealedSecret" && o.sops === undefined
          ),
        }],
        objects.filter((o) => o.kind === "SealedSecret" || o.sops !== undefined),
        keyText === undefined ? [{ name: "certificate-key.txt", data: `${keyHex}\n` }] : [],
      );
      ensureGitopsDirs(outDir, files);
      writeFilesAtomic(files, force);
      for (const f of files) ctx.stderr(`wrote ${f.path}`);
      return;
    }
    if (out === undefined) {
      ctx.stdout(text);
      return;
    }
    ensureParentDir(out);
    writeFilesAtomic([{ path: out, data: text, mode: 0o600 }], force);
    ctx.stderr(`wrote ${out} (mode 0600)`);
    if (keyText === undefined) {
      ctx.stdout(`[upload-certs] Using certificate key:\n${keyHex}\n`);
    }
  },
};

/** The external etcd of `--etcd-cafile/--etcd-certfile/--etcd-keyfile`, or undefined when none is given. */
export function externalEtcdFlags(ctx: Context): ExternalEtcd | undefined {
  const ca = flagString(ctx.flags, "etcd-cafile");
  const cert = flagString(ctx.flags, "etcd-certfile");
  const key = flagString(ctx.flags, "etcd-keyfile");
  if (ca === undefined && cert === undefined && key === undefined) return undefined;
  return { caFile: ca ?? "", certFile: cert ?? "", keyFile: key ?? "" };
}
