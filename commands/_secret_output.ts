/**
 * Secrets that can be committed: the shared writer behind `seal`,
 * `encrypt` and the `--seal-cert`/`--seal-scope`/`--age-recipient` flags of
 * every command that renders Secrets (`token create`, `init`,
 * `upload-certs`). A Secret becomes the SealedSecret `kubeseal --cert`
 * writes, or a SOPS document (age) that `sops --decrypt` and Flux read;
 * every other object passes through unchanged. Also the GitOps directory
 * layout: public objects and protected Secrets as separate files plus a
 * `kustomization.yaml`, and what must stay off git under `private/`.
 *
 * @module
 */

import { InputError, UsageError } from "../lib/base/errors.ts";
import type { RandomBytes } from "../lib/base/random.ts";
import { parseAgeRecipient } from "../lib/gitops/age.ts";
import type { SealingKey, SealingScope } from "../lib/gitops/sealed_secret.ts";
import { type KubeObject, parseManifestChunk, toYaml } from "../lib/k8s/manifest.ts";
import type { Context, Flags } from "./_command.ts";
import { flagChoice, flagList, flagString } from "./_flags.ts";
import { ensureDir, type OutputFile, readManifestFile } from "./_io.ts";
import { readInput } from "./_read.ts";
import { refuseSecondStdinReader } from "./_secret_input.ts";
import * as path from "node:path";

/** The sealing scopes (lib/gitops/sealed_secret.ts SEALING_SCOPES, kept here so flags load nothing). */
const SCOPES = ["strict", "namespace-wide", "cluster-wide"] as const;

/**
 * How Secrets are protected: sealed for a controller, or SOPS-encrypted for
 * age recipients. The crypto modules are loaded when one is made (commands
 * that are given neither flag never load them).
 */
export interface SecretProtection {
  kind: "sealed" | "sops";
  /** Turns one Secret into its protected object; `source` names the input in errors. */
  protect(secret: KubeObject, source: string): KubeObject;
}

/** A sealing protection: `kubeseal --cert`'s SealedSecrets for `key` in `scope`. */
export async function sealedProtection(
  key: SealingKey,
  scope: SealingScope,
  opts: { allowEmptyData?: boolean; random?: RandomBytes } = {},
): Promise<SecretProtection> {
  const { sealSecret } = await import("../lib/gitops/sealed_secret.ts");
  return {
    kind: "sealed",
    protect: (secret, source) => sealSecret(secret, { key, scope, ...opts }, source),
  };
}

/** A SOPS protection for `recipients`: one data key for the run, wrapped once per recipient. */
export async function sopsProtection(
  recipients: readonly string[],
  now: Date,
  random?: RandomBytes,
): Promise<SecretProtection> {
  const { newSopsDataKey, sopsEncryptObject } = await import("../lib/gitops/sops.ts");
  const { withoutLastApplied } = await import("../lib/gitops/sealed_secret.ts");
  const dataKey = await newSopsDataKey(recipients);
  return {
    kind: "sops",
    // kubeseal drops the last-applied annotations (they hold the Secret in clear); sops
    // would keep them in clear, so they are dropped here too.
    protect: (secret) => sopsEncryptObject(withoutLastApplied(secret), dataKey, now, random),
  };
}

/** The help paragraph every Secret-writing command shows for the protection flags. */
export const SECRET_OUTPUT_HELP = `Secrets that can be committed (see docs/gitops.md):
  --seal-cert CERT    every Secret is written as the SealedSecret 'kubeseal
                      --cert CERT [--scope S]' would write (bitnami.com/v1alpha1;
                      each value RSA-OAEP + AES-256-GCM for the controller)
  --age-recipient R   every Secret is written SOPS-encrypted for age (data and
                      stringData encrypted, the rest clear), as 'sops --encrypt
                      --encrypted-regex ^(data|stringData)$ --age R' writes it;
                      Flux's kustomize-controller decrypts it at apply time
Only one of the two; other objects are written unchanged.
`;

/**
 * The controller certificate of `--cert`/`--seal-cert`, checked as kubeseal's
 * `ParseKey` checks it (a certificate, an RSA key, not expired at `now`);
 * errors name the file.
 */
export async function readSealingCert(file: string, now: Date): Promise<SealingKey> {
  const input = readInput(file);
  const { loadCertsPem } = await import("../lib/pki/certsource.ts");
  const { sealingKeyFromCert } = await import("../lib/gitops/sealed_secret.ts");
  const certs = await loadCertsPem(input.bytes, input.name);
  try {
    return sealingKeyFromCert(certs[0]!, now);
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`${input.name}: ${e.message}`);
    throw e;
  }
}

/** A `--scope`-like flag: strict (default), namespace-wide or cluster-wide. */
export function scopeFlag(flags: Flags, name: string): SealingScope {
  return flagChoice(flags, name, SCOPES, "strict");
}

/** Every `--age-recipient`, checked (a malformed one is a usage error naming it). */
export function ageRecipientsFlag(flags: Flags): string[] {
  const out: string[] = [];
  for (const r of flagList(flags, "age-recipient", true)) {
    const text = r.trim();
    if (!out.includes(text)) out.push(parseAgeRecipient(text));
  }
  return out;
}

/**
 * The protection `--seal-cert`/`--seal-scope`/`--age-recipient` ask for, or
 * undefined for plain Secrets. Giving both kinds, or `--seal-scope` alone, is
 * a usage error. Checks everything (certificate, recipients) before any
 * output is made.
 */
export async function protectionFromFlags(ctx: Context): Promise<SecretProtection | undefined> {
  const cert = flagString(ctx.flags, "seal-cert");
  const recipients = ageRecipientsFlag(ctx.flags);
  if (cert !== undefined && recipients.length > 0) {
    throw new UsageError("--seal-cert and --age-recipient: choose one way to protect Secrets");
  }
  if (cert === undefined && ctx.flags["seal-scope"] !== undefined) {
    throw new UsageError("--seal-scope needs --seal-cert");
  }
  if (cert !== undefined) {
    if (cert === "") throw new UsageError("--seal-cert must not be empty");
    if (cert === "-") refuseSecondStdinReader(ctx.flags, "seal-cert");
    const scope = scopeFlag(ctx.flags, "seal-scope");
    return await sealedProtection(await readSealingCert(cert, ctx.now), scope);
  }
  if (recipients.length > 0) return await sopsProtection(recipients, ctx.now);
  return undefined;
}

/**
 * The objects of a manifest input (FILE or `-`), read piece by piece
 * (commands/_io.ts `readManifestFile`): only one piece's objects are alive at
 * a time.
 */
export function* eachObject(file: string): Generator<KubeObject> {
  const counts = { documents: 0, objects: 0 };
  for (const chunk of readManifestFile(file)) yield* parseManifestChunk(chunk, counts);
}

/** `obj` protected when it is a Secret, else `obj` itself. `source` names the input in errors. */
export function protectObject(obj: KubeObject, p: SecretProtection, source: string): KubeObject {
  return obj.kind === "Secret" ? p.protect(obj, source) : obj;
}

/** {@link protectObject} over a list; all are made before anything is written. */
export function protectObjects(
  objs: readonly KubeObject[],
  p: SecretProtection,
  source: string,
): KubeObject[] {
  return objs.map((o) => protectObject(o, p, source));
}

/** Refuses `-o json` for SOPS output (sops' JSON store is another format). */
export function checkProtectedFormat(p: SecretProtection | undefined, format: string): void {
  if (p?.kind === "sops" && format !== "yaml") {
    throw new UsageError("--age-recipient writes SOPS YAML: -o json is not supported with it");
  }
}

/** Where lib/gitops/sops.ts keeps a document's share of a stream MAC (`SOPS_STREAM_PART`). */
const SOPS_STREAM_PART = Symbol.for("joinkit.sops.streamPart");

/**
 * A YAML stream of `objs` (kubectl's style). A stream of SOPS documents
 * only is written as sops writes a multi-document file, one MAC over all of
 * them (lib/gitops/sops.ts `sopsStreamDocuments`), so `sops --decrypt` reads
 * it whole; each file of a GitOps directory keeps its own MAC.
 */
export function renderStream(objs: readonly KubeObject[]): string {
  const part = objs[0] as
    | { [SOPS_STREAM_PART]?: { share(docs: readonly KubeObject[]): KubeObject[] } }
    | undefined;
  const docs = part?.[SOPS_STREAM_PART] ? part[SOPS_STREAM_PART].share(objs) : objs;
  return docs.map(toYaml).join("---\n");
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The file one protected Secret is written to in a GitOps directory:
 * `<namespace>.<name>.sealedsecret.yaml` or `<namespace>.<name>.sops.yaml`.
 * Names must be DNS subdomains (as the API server requires), so a name can
 * never reach outside the directory.
 */
export function protectedFileName(obj: KubeObject): string {
  const meta = (obj.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const name = typeof meta.name === "string" ? meta.name : "";
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  for (const part of ns === "" ? [name] : [ns, name]) {
    if (part.length > 253 || !DNS_SUBDOMAIN.test(part)) {
      throw new InputError(
        `${
          JSON.stringify(part)
        }: not a valid object name (a DNS subdomain), cannot name a file after it`,
      );
    }
  }
  const kind = obj.kind === "SealedSecret" ? "sealedsecret" : "sops";
  return `${ns === "" ? "" : ns + "."}${name}.${kind}.yaml`;
}

/** A `kustomization.yaml` listing `resources` (relative paths), in order. */
export function kustomizationYaml(resources: readonly string[]): string {
  return toYaml({
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: [...resources],
  });
}

/** The `.gitignore` a GitOps directory gets: what must never be committed. */
export const GITOPS_GITIGNORE =
  `# Written by joinkit: credentials in clear (join command, bootstrap kubeconfig,
# keys). Never commit them; hand them to the node out of band.
/private/
`;

/** One public file of a GitOps directory: its name and its objects (a YAML stream). */
export interface PublicFile {
  name: string;
  objects: readonly KubeObject[];
}

/**
 * The files of a GitOps directory `dir`, none written yet: each non-empty
 * public file, each protected Secret in its own file, a `kustomization.yaml`
 * listing all of them (what belongs in git: `kubectl kustomize DIR` builds
 * it with no secret in clear), and `private` files (credentials in clear)
 * under `DIR/private/` (0600) with a `.gitignore` that keeps them out of
 * git. Two Secrets that would share a file are refused.
 */
export function gitopsFiles(
  dir: string,
  publicFiles: readonly PublicFile[],
  protectedSecrets: readonly KubeObject[],
  privateFiles: readonly { name: string; data: string }[] = [],
): OutputFile[] {
  const files: OutputFile[] = [];
  const resources: string[] = [];
  const add = (name: string, data: string, mode = 0o644) => {
    files.push({ path: path.join(dir, name), data, mode, root: dir });
  };
  for (const f of publicFiles) {
    if (f.objects.length === 0) continue;
    add(f.name, renderStream(f.objects));
    resources.push(f.name);
  }
  for (const s of protectedSecrets) {
    const name = protectedFileName(s);
    if (resources.includes(name)) {
      throw new InputError(`${name}: two Secrets would share this file`);
    }
    add(name, toYaml(s));
    resources.push(name);
  }
  add("kustomization.yaml", kustomizationYaml(resources));
  if (privateFiles.length > 0) {
    add(".gitignore", GITOPS_GITIGNORE);
    for (const f of privateFiles) add(path.join("private", f.name), f.data, 0o600);
  }
  return files;
}

/** Creates `dir` (0700) and, when a file goes there, `dir/private` (0700). */
export function ensureGitopsDirs(dir: string, files: readonly OutputFile[]): void {
  ensureDir(dir, 0o700);
  const priv = path.join(dir, "private");
  if (files.some((f) => path.dirname(f.path) === priv)) ensureDir(priv, 0o700, dir);
}
