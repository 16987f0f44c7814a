/**
 * `joinkit encrypt`: every Secret of a manifest stream as a SOPS document
 * encrypted for age recipients (what `sops --encrypt --encrypted-regex
 * '^(data|stringData)$' --age …` writes, and Flux decrypts); other objects
 * unchanged.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { InputError, UsageError } from "../lib/base/errors.ts";
import type { KubeObject } from "../lib/k8s/manifest.ts";
import { isSecretObject } from "../lib/k8s/secret.ts";
import { SOPS_VERSION } from "../lib/gitops/sops.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagOut, flagSet, requireOutDir } from "./_flags.ts";
import { ensureParentDir, writeFilesAtomic } from "./_io.ts";
import { memoryCheckpoint } from "./_memory.ts";
import { emitSpool, Spool } from "./_spool.ts";
import {
  ageRecipientsFlag,
  eachObject,
  ensureGitopsDirs,
  gitopsFiles,
  protectObject,
  type SecretProtection,
  sopsProtection,
} from "./_secret_output.ts";

const FLAGS = flagSet("encrypt", [
  [
    "age-recipient",
    "age X25519 public key (age1..., from 'age-keygen -y'), repeatable\nor comma-separated (required): each can decrypt",
  ],
  ["out", "write to FILE (atomically) instead of stdout"],
  [
    "out-dir",
    "write each Secret to DIR/<namespace>.<name>.sops.yaml, other\nobjects to DIR/resources.yaml, and DIR/kustomization.yaml",
  ],
  "force",
]);

export const command: Command = {
  name: "encrypt",
  options: FLAGS.options,
  help: `Encrypt Secrets with SOPS for age recipients, offline, as Flux expects them.

Reads a manifest stream, List or file (FILE, or stdin when absent or -) and
writes every Secret as the YAML document that 'sops --encrypt
--encrypted-regex "^(data|stringData)$" --age R' writes: apiVersion, kind,
metadata and type in clear; each data and stringData value replaced by
ENC[AES256_GCM,data:…,iv:…,tag:…,type:str] (AES-256-GCM under a random data
key, the value's key path as additional data); a 'sops' block with the data
key age-encrypted to each recipient, encrypted_regex, lastmodified (--now),
the encrypted MAC and version ${SOPS_VERSION}. Other objects are written
unchanged. Flux's kustomize-controller (spec.decryption.provider: sops)
decrypts them at apply time; 'sops --decrypt FILE' reads them back.

Every encrypted document carries the metadata (Flux decrypts each resource
on its own). A stream is written as sops writes a multi-document file: one
MAC over all documents, which 'sops --decrypt' checks from the first one
(a stream starting with an object in clear keeps one MAC per document);
--out-dir writes one file per Secret, each with its own MAC. All Secrets of
one run share one data key (wrapped once per recipient); every value has its
own random IV.

Usage:
  joinkit encrypt --age-recipient age1... [--age-recipient ...] [FILE|-] [flags]

${FLAGS.help}
Refusals (nothing is written; no secret value is ever printed):
  exit 2  a recipient that is not Bech32 age1… X25519 ("malformed recipient …")
  exit 1  unreadable input, an input with no object at all, a Secret that
          already has a 'sops' key

${EXIT_CODES}

Examples:
  age-keygen -o flux.agekey        # the private half goes into the cluster's sops-age Secret
  joinkit token create | joinkit encrypt --age-recipient "$(age-keygen -y flux.agekey)" > token.sops.yaml
  SOPS_AGE_KEY_FILE=flux.agekey sops --decrypt token.sops.yaml
`,
  async run(ctx) {
    expectArgs(ctx, 0, 1, "FILE");
    const recipients = ageRecipientsFlag(ctx.flags);
    if (recipients.length === 0) throw new UsageError("missing required flag --age-recipient");
    const out = flagOut(ctx.flags);
    const outDir = ctx.flags["out-dir"] === undefined ? undefined : requireOutDir(ctx.flags);
    if (out !== undefined && outDir !== undefined) {
      throw new UsageError("--out and --out-dir: give one");
    }
    const force = flagBool(ctx.flags, "force");
    const file = ctx.args[0] ?? "-";
    const source = file === "-" ? "stdin" : file;
    const protection = await sopsProtection(recipients, ctx.now);
    if (outDir !== undefined) {
      const encrypted: KubeObject[] = [];
      let count = 0;
      for (const obj of eachObject(file)) {
        if (isSecretObject(obj)) count++;
        encrypted.push(protectObject(obj, protection, source));
      }
      if (encrypted.length === 0) throw new InputError(`${source}: ${NO_OBJECTS}`);
      if (count === 0) ctx.stderr(`warning: ${source}: no Secret to encrypt`);
      const isSops = (o: KubeObject) => o.sops !== undefined;
      const files = gitopsFiles(
        outDir,
        [{ name: "resources.yaml", objects: encrypted.filter((o) => !isSops(o)) }],
        encrypted.filter(isSops),
      );
      ensureGitopsDirs(outDir, files);
      writeFilesAtomic(files, force);
      ctx.stderr(`encrypted ${count} Secret(s) into ${outDir} (${files.length} files)`);
      return;
    }
    const count = await encryptStream(file, source, protection, out, force, ctx.stdout);
    if (count === 0) ctx.stderr(`warning: ${source}: no Secret to encrypt`);
    if (out !== undefined) ctx.stderr(`encrypted ${count} Secret(s) into ${out}`);
  },
};

/** The refusal of an input with no object at all. */
const NO_OBJECTS = "no objects found: nothing to encrypt";

/**
 * Encrypts the objects of `file` and writes the stream `renderStream` gives
 * for all of them, with memory flat in their number: each document is
 * rendered as it is read into a private temporary file, keeping only the
 * stream's running MAC and where each document's MAC lies. The stream's MAC
 * (known at the end, the same length as a document's own) then replaces the
 * documents' ones in place, and the file is copied to stdout or moved to
 * `out`. A refusal midway writes nothing. Returns the number of Secrets.
 * (Exported for the test that holds it to `renderStream` of the whole input.)
 */
export async function encryptStream(
  file: string,
  source: string,
  protection: SecretProtection,
  out: string | undefined,
  force: boolean,
  stdout: (text: string) => void,
): Promise<number> {
  const { SopsStreamMac, isSopsStreamPart } = await import("../lib/gitops/sops.ts");
  const { toYaml } = await import("../lib/k8s/manifest.ts");
  const spool = new Spool();
  try {
    const mac = new SopsStreamMac();
    const macAt: number[] = [];
    let macBytes = 0;
    let objects = 0;
    let count = 0;
    for (const obj of eachObject(file)) {
      if (isSecretObject(obj)) count++;
      const doc = protectObject(obj, protection, source);
      mac.add(doc);
      const text = (objects++ === 0 ? "" : "---\n") + toYaml(doc);
      if (isSopsStreamPart(doc)) {
        // The document's own MAC: a fresh IV makes its text unique in the document.
        const own = String((doc.sops as { mac: unknown }).mac);
        macAt.push(spool.size + Buffer.byteLength(text.slice(0, text.lastIndexOf(own))));
        macBytes = own.length;
      }
      spool.write(text);
      memoryCheckpoint(text.length);
    }
    // An empty stream is a failed step upstream, never a file to commit (as seal, kubeseal).
    if (objects === 0) throw new InputError(`${source}: ${NO_OBJECTS}`);
    const shared = mac.finish();
    if (shared !== undefined) {
      if (shared.length !== macBytes) throw new Error("sops stream MAC of another length");
      for (const at of macAt) spool.patch(at, shared);
    }
    if (out !== undefined) ensureParentDir(out);
    emitSpool(spool, out, force, stdout);
    return count;
  } finally {
    spool.remove();
  }
}
