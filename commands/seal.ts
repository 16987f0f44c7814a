/**
 * `joinkit seal`: every Secret of a manifest stream as the SealedSecret
 * `kubeseal --cert CONTROLLER.crt` writes, offline; other objects unchanged.
 *
 * @module
 */

import { InputError, UsageError } from "../lib/base/errors.ts";
import type { KubeObject } from "../lib/k8s/manifest.ts";
import { isSecretObject } from "../lib/k8s/secret.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagOut,
  flagSet,
  outputFormat,
  requireOutDir,
  requireString,
} from "./_flags.ts";
import { ensureParentDir, writeFilesAtomic } from "./_io.ts";
import { memoryCheckpoint } from "./_memory.ts";
import { ShapeWriter } from "./_list_output.ts";
import { emitSpool, Spool } from "./_spool.ts";
import {
  eachObject,
  ensureGitopsDirs,
  gitopsFiles,
  protectObject,
  readSealingCert,
  scopeFlag,
  sealedProtection,
} from "./_secret_output.ts";

/** kubeseal's refusal of an input without a Secret (`Seal`). */
const NO_SECRETS = "no secrets found. Ensure the input is valid and UTF-8 encoded";

const FLAGS = flagSet("seal", [
  [
    "cert",
    "the controller's certificate, PEM (required): 'kubeseal\n--fetch-cert' prints it; RSA, not expired at --now",
  ],
  [
    "scope",
    "strict (default: name and namespace), namespace-wide or\ncluster-wide: where the controller will unseal it",
  ],
  "allow-empty-data",
  ["output", "yaml (default; a '---' stream) or json (one object, or a v1 List)"],
  ["out", "write to FILE (atomically) instead of stdout"],
  [
    "out-dir",
    "write each SealedSecret to DIR/<namespace>.<name>.sealedsecret.yaml,\nother objects to DIR/resources.yaml, and DIR/kustomization.yaml",
  ],
  "force",
]);

export const command: Command = {
  name: "seal",
  options: FLAGS.options,
  help: `Seal Secrets for Bitnami Sealed Secrets, offline, as 'kubeseal --cert' does.

Reads a manifest stream, List or file (FILE, or stdin when absent or -) and
writes every Secret as the SealedSecret (bitnami.com/v1alpha1) that
'kubeseal --cert CERT --scope S' writes for it; other objects are written
unchanged. Commit the output; the controller in the cluster turns it back
into the Secret. Only the holder of the controller's private key can open it.

Each data and stringData value is sealed on its own: a fresh AES-256-GCM
session key encrypts the value, RSA-OAEP (SHA-256) with the scope's label
encrypts the session key:
  strict          label "<namespace>/<name>": only that Secret
  namespace-wide  label "<namespace>" (annotation sealedsecrets.bitnami.com/namespace-wide)
  cluster-wide    label "" (annotation sealedsecrets.bitnami.com/cluster-wide)
With the default scope a Secret's own scope annotation decides, as in
kubeseal. spec.template keeps the Secret's metadata (minus last-applied
annotations and ownerReferences), type and immutable. The output differs on
every run only by the encryption's randomness.

Usage:
  joinkit seal --cert CONTROLLER.crt [--scope S] [FILE|-] [flags]

${FLAGS.help}
Refusals (nothing is written; no secret value is ever printed):
  exit 1  the certificate is not a certificate, not RSA ("expected RSA public
          key but found …"), under 1024 bits ("crypto/rsa: 768-bit keys are
          insecure …") or expired ("failed to encrypt using an expired
          certificate on …"); a Secret without a namespace outside
          cluster-wide scope ("input secret has no namespace and cannot infer
          the namespace automatically when no kube config is available"), with
          no data (unless --allow-empty-data) or without a name; bad base64;
          an input with no object at all ("no secrets found. Ensure the
          input is valid and UTF-8 encoded")
  exit 2  a bad flag (--scope, -o); --cert - with the input on stdin too

${EXIT_CODES}

Examples:
  kubeseal --fetch-cert > controller.crt      # once, where the cluster is reachable
  joinkit token create --now 2026-01-01T00:00:00Z | joinkit seal --cert controller.crt > token.yaml
  joinkit seal --cert controller.crt --scope namespace-wide secret.yaml
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "FILE");
    const certFile = requireString(ctx.flags, "cert");
    const scope = scopeFlag(ctx.flags, "scope");
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const out = flagOut(ctx.flags);
    const outDir = ctx.flags["out-dir"] === undefined ? undefined : requireOutDir(ctx.flags);
    if (out !== undefined && outDir !== undefined) {
      throw new UsageError("--out and --out-dir: give one");
    }
    if (outDir !== undefined && format !== "yaml") {
      throw new UsageError("--out-dir writes YAML files: -o json is not supported with it");
    }
    const force = flagBool(ctx.flags, "force");
    const file = ctx.args[0] ?? "-";
    if (certFile === "-" && file === "-") {
      // stdin is read once: the Secrets would be read as the certificate, or not at all.
      throw new UsageError("--cert - and the input both read stdin: give one a file");
    }
    const key = await readSealingCert(certFile, ctx.now);
    const protection = await sealedProtection(key, scope, {
      allowEmptyData: flagBool(ctx.flags, "allow-empty-data"),
    });
    const source = file === "-" ? "stdin" : file;
    if (outDir !== undefined) {
      const sealed: KubeObject[] = [];
      let count = 0;
      for (const obj of eachObject(file)) {
        if (isSecretObject(obj)) count++;
        sealed.push(protectObject(obj, protection, source));
      }
      if (sealed.length === 0) throw new InputError(`${source}: ${NO_SECRETS}`);
      if (count === 0) ctx.stderr(`warning: ${source}: no Secret to seal`);
      const files = gitopsFiles(
        outDir,
        [{ name: "resources.yaml", objects: sealed.filter((o) => o.kind !== "SealedSecret") }],
        sealed.filter((o) => o.kind === "SealedSecret"),
      );
      ensureGitopsDirs(outDir, files);
      writeFilesAtomic(files, force);
      ctx.stderr(`sealed ${count} Secret(s) into ${outDir} (${files.length} files)`);
      return;
    }
    // Each object is sealed and written as it is read (memory flat in the number of Secrets),
    // in the bytes renderObjects gives the whole list, to a private temporary file that goes
    // to stdout or --out only once the whole input is sealed: a refusal writes nothing.
    const spool = new Spool();
    let count = 0;
    try {
      const writer = new ShapeWriter(
        await import("../lib/k8s/manifest.ts"),
        format,
        false,
        (t) => {
          spool.write(t);
          // Sealing makes ~12 times the input's bytes: collect by output, not only by input.
          memoryCheckpoint(t.length);
        },
      );
      let objects = 0;
      for (const obj of eachObject(file)) {
        objects++;
        if (isSecretObject(obj)) count++;
        writer.add(protectObject(obj, protection, source));
      }
      // kubeseal refuses an input with nothing in it: an empty stream is a failed step
      // upstream, never a file to commit. (Objects but no Secret pass through with a warning.)
      if (objects === 0) throw new InputError(`${source}: ${NO_SECRETS}`);
      if (count === 0) ctx.stderr(`warning: ${source}: no Secret to seal`);
      writer.end();
      if (out !== undefined) ensureParentDir(out);
      emitSpool(spool, out, force, ctx.stdout);
    } finally {
      spool.remove();
    }
    if (out === undefined) return;
    ctx.stderr(`sealed ${count} Secret(s) into ${out}`);
  },
};
