/**
 * `joinkit csr sign`: kube-controller-manager's CSR signers, offline.
 *
 * @module
 */

import { InputError, JoinkitError, UsageError } from "../lib/base/errors.ts";
import type { KubeObject } from "../lib/k8s/manifest.ts";
import {
  mapOrdered,
  pemRequests,
  signObject,
  type SignOptions,
  signPemCsr,
} from "../lib/kubelet/sign_batch.ts";
import {
  DEFAULT_SIGNING_DURATION_MS,
  loadSigningCa,
  signerValidator,
} from "../lib/kubelet/signer.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagDuration,
  flagList,
  flagOut,
  flagSet,
  flagString,
  outputFormat,
  requireString,
} from "./_flags.ts";
import {
  ensureParentDir,
  type InputPiece,
  openAtomicOutput,
  pemCsrPieces,
  readInput,
  readManifestFile,
  type TextChunk,
  writeFilesAtomic,
} from "./_io.ts";
import { HeldOutput } from "./_list_output.ts";
import { MAX_INPUT_BYTES } from "../lib/base/limits.ts";
import { signStream } from "./_csr_sign_stream.ts";
import { progress } from "./_progress.ts";
import { gateForSigning, signingPolicy } from "./_approval_policy.ts";

const FLAGS = flagSet("csr sign", [
  ["ca", "the signing CA certificate (PEM) (required)"],
  ["ca-key", "its private key (PEM: PKCS#1, SEC 1 or PKCS#8; not encrypted) (required)"],
  [
    "signer-name",
    "PEM CSRs: the signer (default: guessed from the content as\nkubelet client or serving); objects: only sign this signer's CSRs",
  ],
  ["usages", "PEM CSRs: usage strings (default: the kubelet's for the key type)"],
  [
    "ttl",
    "the signer's --cluster-signing-duration, Go duration (default 8760h)",
  ],
  "approve",
  ["policy", "with --approve: approve only what this policy approves (see csr approve)"],
  [
    "output",
    "pem (default for PEM input), yaml or json (default for objects:\nthe input's format)",
  ],
  [
    "out",
    "write the output to FILE instead of stdout (atomically; missing\ndirectories created 0700)",
  ],
  ["force", "overwrite --out"],
]);

/** CSRs in flight at once: WebCrypto signs and verifies off the main thread meanwhile. */
const BATCH = 32;

export const command: Command = {
  name: "csr sign",
  options: FLAGS.options,
  help: `Sign CSRs offline exactly as kube-controller-manager's csrsigning controllers do.

FILE holds PEM CSRs, or CertificateSigningRequest objects (YAML stream, JSON,
or a List as 'kubectl get csr -o yaml' prints). Each CSR is judged on its own,
by the same judgement 'csr inspect' reports, in the cluster's order:
  - kube-apiserver's create-time validation: the request's first PEM block is a
    CERTIFICATE REQUEST that Go parses and whose signature verifies (SHA-1
    allowed, MD5 and RSA < 1024 bits refused), usages known and not repeated,
    signerName well formed and not kubernetes.io/legacy-unknown,
    expirationSeconds >= 600, conditions, status.certificate;
  - the CertificateSubjectRestriction admission plugin (no O=system:masters
    for kubernetes.io/kube-apiserver-client);
  - Denied, Failed or already-issued objects are refused;
  - as kube-controller-manager, only Approved objects are signed: an object
    without the Approved condition is signed only when this run approves it
    (--approve, or --approve --policy FILE approving it); any other stays
    as it is (no Failed condition either), one stderr line, exit 3;
  - the signer's validator (kubelet-client, kubelet-serving,
    kube-apiserver-client rules); a refusal gets the signer's Failed condition.
Each refusal is one stderr line with upstream's reason, and exit code 3.
A bare PEM CSR is judged as an object with generateName csr-, the signer and
usages below.
Then, as the signer:
  - lifetime = min(--ttl, spec.expirationSeconds), never below 10 minutes;
    NotBefore = now-5m; NotAfter = now+lifetime (lifetime < 8h) or
    now+lifetime-5m; cut at the CA's NotAfter; an expired CA refuses;
  - random 128-bit serial; key usage and EKUs from the usage strings; subject
    and SANs copied; every other requested extension dropped; CA:FALSE.
A PEM CSR gives a certificate PEM (several CSRs: one certificate per CSR that
passes, a stderr line per refusal). An object comes back with
status.certificate set (and, with --approve, the Approved condition
'kubectl certificate approve' adds); the output keeps the input's shape.
When other objects were signed, a refused object is output too: with the
signer's Failed/SignerValidationFailure condition when the signer refused it,
unchanged otherwise.

Usage:
  joinkit csr sign FILE --ca CA.crt --ca-key CA.key [--signer-name NAME] [--usages U,...]
                   [--ttl 8760h] [--approve] [-o pem|yaml|json] [--out FILE] [--force]

${FLAGS.help}
The clock is the global --now (default: the system time).

Output (-o json): the signed objects with status.certificate set, keys
sorted, as kubectl prints them (one object, a v1 List for several, or the
input's List); -o pem: the certificates.

${EXIT_CODES}

Examples:
  joinkit csr sign pki/kubelet-client.csr --ca ca.crt --ca-key ca.key > kubelet-client.crt
  kubectl get csr -o yaml | joinkit csr sign - --ca ca.crt --ca-key ca.key --approve
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "FILE");
    const caPath = requireString(ctx.flags, "ca");
    const keyPath = requireString(ctx.flags, "ca-key");
    const signerFlag = flagString(ctx.flags, "signer-name");
    const usagesFlag = flagList(ctx.flags, "usages", true).map((u) => u.trim()).filter(Boolean);
    const ttl = flagDuration(ctx.flags, "ttl", 1000) ?? DEFAULT_SIGNING_DURATION_MS;
    const approve = flagBool(ctx.flags, "approve");
    const outFile = flagOut(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    const policy = signingPolicy(ctx, approve);
    if (signerFlag !== undefined) {
      try {
        signerValidator(signerFlag);
      } catch (e) {
        throw new UsageError(`--signer-name: ${(e as Error).message}`);
      }
    }
    // Checked before any file is read: a malformed flag value is a usage error first.
    outputFormat(ctx.flags, ["pem", "yaml", "json"] as const, "pem");

    // PEM CSRs over 1 MiB: signed piece by piece (each piece starts with a CSR block, so it
    // reads as the whole file does), certificates written as they come.
    const pemParts = pemCsrPieces(ctx.args[0]!);
    if (pemParts) {
      const name = ctx.args[0]!;
      const caIn = readInput(caPath);
      const keyIn = readInput(keyPath);
      const ca = await loadSigningCa(caIn.text, caIn.name, keyIn.text, keyIn.name);
      if (policy) throw new UsageError("--policy judges CSR objects; a PEM CSR has no requester");
      outputFormat(ctx.flags, ["pem"] as const, "pem");
      const opts: SignOptions = {
        ca,
        ttlMs: ttl,
        now: ctx.now,
        approve,
        signerName: signerFlag,
        usages: usagesFlag,
      };
      return await signPemPieces(ctx, pemParts, name, opts, outFile, force);
    }

    // Read in pieces: up to 16 MiB the input is taken whole, as ever; a longer one
    // (a stream, or a List read item by item) is signed piece by piece (signStream).
    const pieces = readManifestFile(ctx.args[0]!);
    const read: TextChunk[] = [];
    let size = 0;
    for (let c = pieces.next(); !c.done; c = pieces.next()) {
      read.push(c.value);
      size += c.value.text.length;
      if (size > MAX_INPUT_BYTES || c.value.list) break;
    }
    const streamed = !read.at(-1)!.last;
    const input = { name: read[0]!.source, text: streamed ? "" : read.map((c) => c.text).join("") };
    if (streamed && read[0]!.text.includes("-----BEGIN")) {
      throw new InputError(`${input.name}: file larger than ${MAX_INPUT_BYTES} bytes`);
    }
    const caIn = readInput(caPath);
    const keyIn = readInput(keyPath);
    const ca = await loadSigningCa(caIn.text, caIn.name, keyIn.text, keyIn.name);
    const opts: SignOptions = {
      ca,
      ttlMs: ttl,
      now: ctx.now,
      approve,
      signerName: signerFlag,
      usages: usagesFlag,
    };
    const emit = (text: string) => {
      if (outFile) {
        ensureParentDir(outFile);
        writeFilesAtomic([{ path: outFile, data: text, mode: 0o644 }], force);
      } else ctx.stdout(text);
    };
    let code = 0;
    const report = (e: JoinkitError) => {
      ctx.stderr(`error: ${e.message}`);
      code ||= e.exitCode;
    };

    if (streamed) {
      if (usagesFlag.length) {
        throw new UsageError("--usages applies to PEM CSRs; objects carry spec.usages");
      }
      // A JSON List over 16 MiB comes in parts read item by item (lib/k8s/json_stream.ts).
      const json = read.some((c) => c.list?.json === true);
      const format = outputFormat(
        ctx.flags,
        ["yaml", "json", "pem"] as const,
        json ? "json" : "yaml",
      );
      return await signStream(ctx, {
        read,
        rest: pieces,
        name: input.name,
        format,
        opts,
        policy,
        outFile,
        force,
        batch: BATCH,
      });
    }

    if (input.text.includes("-----BEGIN")) {
      if (policy) throw new UsageError("--policy judges CSR objects; a PEM CSR has no requester");
      outputFormat(ctx.flags, ["pem"] as const, "pem");
      const requests = pemRequests(input.text, input.name);
      if (requests.length === 1) {
        emit(await signPemCsr(requests[0]!, input.name, opts));
        return 0;
      }
      const pems: string[] = [];
      const results = await mapOrdered(
        requests,
        BATCH,
        (r, i) => signPemCsr(r, `${input.name}[${i}]`, opts),
      );
      for (const r of results) {
        if (r.status === "fulfilled") pems.push(r.value);
        else if (r.reason instanceof JoinkitError) report(r.reason);
        else throw r.reason;
      }
      if (pems.length) emit(pems.join(""));
      return code;
    }

    if (usagesFlag.length) {
      throw new UsageError("--usages applies to PEM CSRs; objects carry spec.usages");
    }
    const trimmed = input.text.trimStart();
    const inputJson = trimmed.startsWith("{") || trimmed.startsWith("[");
    const format = outputFormat(
      ctx.flags,
      ["yaml", "json", "pem"] as const,
      inputJson ? "json" : "yaml",
    );
    const { parseManifests, renderInInputShape } = await import(
      "../lib/k8s/manifest.ts"
    );
    const objects = parseManifests(input.text, input.name);
    if (objects.length === 0) throw new InputError(`${input.name}: no objects found`);
    const isList = inputJson
      ? /^\s*\{[\s\S]*"kind"\s*:\s*"[A-Za-z]*List"/.test(input.text) && /"items"/.test(input.text)
      : /^kind:\s*['"]?[A-Za-z]*List['"]?\s*$/m.test(input.text) && /^items:/m.test(input.text);
    const out: KubeObject[] = [];
    const pems: string[] = [];
    const shown = progress(ctx, "csr sign");
    const results = await mapOrdered(
      objects,
      BATCH,
      (obj, i) => {
        shown.tick();
        const where = objects.length > 1 ? `${input.name}: object ${i + 1}` : input.name;
        const g = policy ? gateForSigning(obj, where, policy, ctx.now) : undefined;
        if (!g) return signObject(obj, where, opts);
        return g.sign ? signObject(g.obj, where, opts) : Promise.resolve({ obj, error: g.error });
      },
    );
    shown.done();
    for (const settled of results) {
      if (settled.status === "rejected") throw settled.reason;
      const r = settled.value;
      out.push(r.obj);
      if (r.error) report(r.error);
      if (r.certPem) pems.push(r.certPem);
    }
    if (pems.length === 0) return code; // nothing signed: nothing printed
    const text = format === "pem" ? pems.join("") : renderInInputShape(out, isList, format);
    emit(text);
    return code;
  },
};

/**
 * PEM CSRs over 1 MiB, piece by piece: the certificates in the order of the
 * CSRs, as a whole read writes them (stdout held up to 16 MiB first; `--out`
 * through a temporary file moved into place at the end), a stderr line per
 * refusal as it comes; nothing written when nothing was signed.
 */
async function signPemPieces(
  ctx: Context,
  parts: Iterable<InputPiece>,
  name: string,
  opts: SignOptions,
  outFile: string | undefined,
  force: boolean,
): Promise<number> {
  let code = 0;
  let i = 0;
  let sink: { write(text: string): void; commit(): void; abort(): void } | undefined;
  const write = (text: string) => {
    if (!sink) {
      if (outFile) {
        ensureParentDir(outFile);
        sink = openAtomicOutput(outFile, 0o644, force);
      } else {
        const held = new HeldOutput(ctx.stdout);
        sink = { write: (t) => held.write(t), commit: () => held.end(), abort() {} };
      }
    }
    sink.write(text);
  };
  const shown = progress(ctx, "csr sign");
  try {
    for (const part of parts) {
      const requests = pemRequests(part.text, name);
      const first = i;
      i += requests.length;
      const results = await mapOrdered(requests, BATCH, (r, j) => {
        shown.tick();
        return signPemCsr(r, `${name}[${first + j}]`, opts);
      });
      for (const r of results) {
        if (r.status === "fulfilled") write(r.value);
        else if (r.reason instanceof JoinkitError) {
          ctx.stderr(`error: ${r.reason.message}`);
          code ||= r.reason.exitCode;
        } else throw r.reason;
      }
    }
    shown.done();
    sink?.commit();
    return code;
  } catch (e) {
    shown.done();
    sink?.abort();
    throw e;
  }
}
