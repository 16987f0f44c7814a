/**
 * `joinkit csr approve`: judge CSR objects offline by an approval policy, as
 * kubelet-csr-approver (kubelet-serving) and kube-controller-manager's
 * csrapproving (kubelet client) would, and add their conditions.
 *
 * @module
 */

import { InputError } from "../lib/base/errors.ts";
import type { KubeObject } from "../lib/k8s/manifest.ts";
import { type ApprovalOutcome, approveObject } from "../lib/kubelet/csr_approval.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import { readApprovalPolicy } from "./_approval_policy.ts";
import { expectArgs, flagBool, flagOut, flagSet, outputFormat } from "./_flags.ts";
import {
  ensureParentDir,
  inputFiles,
  type ManifestInput,
  openAtomicOutput,
  readManifestInput,
  writeFilesAtomic,
} from "./_io.ts";
import { ShapeWriter } from "./_list_output.ts";
import type { ApprovalPolicy } from "../lib/kubelet/approval_policy.ts";
import { CSR_KIND } from "../lib/kubelet/csr_object.ts";
import { MAX_INPUT_BYTES } from "../lib/base/limits.ts";

const FLAGS = flagSet("csr approve", [
  ["policy", "policy file (YAML; keys: the helm chart's value names, see below)"],
  ["provider-regex", "RE2 pattern every DNS SAN must match, unanchored (default .*)"],
  ["provider-ip-prefixes", "allowed IP ranges, comma-separated (default 0.0.0.0/0,::/0)"],
  ["max-expiration-sec", "largest spec.expirationSeconds approved (default 31708800)"],
  ["allowed-dns-names", "most DNS SANs per CSR (default 1)"],
  ["bypass-dns-resolution", "do not resolve DNS SANs (no host-table check)"],
  ["bypass-hostname-check", "DNS SANs need not start with the node name"],
  ["ignore-non-system-node", "leave serving CSRs of non-node users pending, never deny"],
  ["skip-deny-step", "never deny: refused CSRs stay pending even with --deny"],
  ["hosts", "hosts(5) file answering the DNS lookups (a miss is a deny)"],
  "deny",
  ["output", "yaml or json (default: the input's format)"],
  ["out", "write the output to FILE instead of stdout (atomically)"],
  ["force", "overwrite --out"],
]);

export const command: Command = {
  name: "csr approve",
  options: FLAGS.options,
  help: `Approve (or deny) CertificateSigningRequest objects offline, as the approvers
running in a cluster would, and add their condition.

FILE holds CertificateSigningRequest objects: one, a YAML stream, JSON, or a
List as 'kubectl get csr -o yaml' prints ('csr create --requester' writes
one). Several FILEs and directories (recursively, dot-files skipped) are
judged together: the output is then one stream of every object in order
(-o json: a v1 List), and a file found in a directory that holds no
CertificateSigningRequest (a key, a PEM CSR) is skipped with one warning.
Each is judged on its own:
  - signer kubernetes.io/kubelet-serving: postfinance/kubelet-csr-approver's
    checks in its order: requester (spec.username) is system:node:<name>; a
    DNS or IP SAN; CN = requester; at most --allowed-dns-names DNS SANs, each
    starting with the node name and matching --provider-regex, each resolved
    through --hosts (or the policy's hosts:) with every address inside
    --provider-ip-prefixes and every SAN IP among them; every SAN IP inside
    --provider-ip-prefixes; spec.expirationSeconds <= --max-expiration-sec.
    Approved: reason "kubelet-serving cert validated"; denied: reason
    "kubelet-serving cert denied" with upstream's message and reason text.
  - signer kubernetes.io/kube-apiserver-client-kubelet: kube-controller-
    manager's csrapproving: a node client CSR (O=system:nodes, CN
    system:node:*, no SANs, client usages), approved as selfnodeclient
    (requester = CN) or nodeclient when the requester's spec.groups hold a
    group the policy binds (default: system:nodes or system:masters for
    selfnodeclient; system:bootstrappers:kubeadm:default-node-token or
    system:masters for nodeclient). Reason "AutoApproved".
  - other signers, and CSRs already Approved, Denied or issued: left as is;
    conditions kube-apiserver would not store (Approved or Denied not "True",
    both, a type twice) are refused with its text (exit 3), left as is.
A CSR the policy refuses stays pending, with one stderr line giving upstream's
reason; with --deny it gets the Denied condition (kubelet-csr-approver's,
or kubectl certificate deny's for client CSRs), except under
--skip-deny-step, for requests that do not parse, and for non-node users
under --ignore-non-system-node. Added conditions carry status "True",
lastUpdateTime and lastTransitionTime = --now (the API server fills the
latter). The output keeps the input's shape (one object, a stream, a List).
No DNS is ever queried: DNS SANs resolve only through the host table.

Usage:
  joinkit csr approve FILE|DIR... [--policy FILE] [policy flags] [--deny]
                      [-o yaml|json] [--out FILE] [--force]

${FLAGS.help}
The clock is the global --now (default: the system time).

Policy file (flags win over it), e.g.:
  providerRegex: '^[\\w-]*\\.nodes\\.example\\.com$'
  providerIpPrefixes: [192.168.0.0/16, fc00::/7]
  maxExpirationSeconds: 31708800
  allowedDnsNames: 1
  bypassDnsResolution: false
  bypassHostnameCheck: false
  ignoreNonSystemNode: false
  skipDenyStep: false
  hosts: {node-1.nodes.example.com: [192.168.1.10]}
  nodeClientGroups: [system:bootstrappers:kubeadm:default-node-token]
  selfNodeClientGroups: [system:nodes]
An unknown key, a bad value, a bad regex or CIDR in the file: exit 1; in a
flag: exit 2. A CSR without spec.request, or a file that is not CSR objects:
exit 1, nothing written.

${EXIT_CODES}
  (3 here: at least one CSR was refused; the output is still written.)

Examples:
  kubectl get csr -o yaml | joinkit csr approve - --policy policy.yaml > decided.yaml
  joinkit csr approve csr.yaml --provider-regex '^node-\\d+\\.example\\.com$' \\
    --provider-ip-prefixes 10.0.0.0/8 --hosts hosts --deny
`,
  run(ctx) {
    expectArgs(ctx, 1, Infinity, "FILE");
    const deny = flagBool(ctx.flags, "deny");
    const outFile = flagOut(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const policy = readApprovalPolicy(ctx);
    const files = inputFiles(ctx.args);
    if (files.length !== 1 || files[0]!.inDirectory) {
      return approveMany(ctx, files, policy, deny, outFile, force);
    }

    // Up to 16 MiB the input is read whole, as ever; a longer one piece by piece.
    const read = readManifestInput(ctx.args[0]!);
    if (read.text === undefined) {
      return approveStream(ctx, read, policy, deny, outFile, force);
    }
    const input = { name: read.name, text: read.text };
    if (/^-----BEGIN /m.test(input.text) && !/^\s*(\{|apiVersion:|kind:)/m.test(input.text)) {
      throw new InputError(
        `${input.name}: csr approve reads CertificateSigningRequest objects (a PEM CSR has no requester)`,
      );
    }
    return import("../lib/k8s/manifest.ts").then(
      ({ parseManifests, renderInInputShape }) => {
        const trimmed = input.text.trimStart();
        const inputJson = trimmed.startsWith("{") || trimmed.startsWith("[");
        const format = outputFormat(
          ctx.flags,
          ["yaml", "json"] as const,
          inputJson ? "json" : "yaml",
        );
        const objects = parseManifests(input.text, input.name);
        if (objects.length === 0) throw new InputError(`${input.name}: no objects found`);
        // The input's shape, as csr sign keeps it: a List stays a List.
        const isList = inputJson
          ? /^\s*\{[\s\S]*"kind"\s*:\s*"[A-Za-z]*List"/.test(input.text) &&
            /"items"/.test(input.text)
          : /^kind:\s*['"]?[A-Za-z]*List['"]?\s*$/m.test(input.text) && /^items:/m.test(input.text);
        // Every object is read before anything is written: bad input stops the whole run.
        const outcomes: ApprovalOutcome[] = objects.map((obj, i) =>
          approveObject(
            obj,
            objects.length > 1 ? `${input.name}: object ${i + 1}` : input.name,
            policy,
            ctx.now,
            deny,
          )
        );
        let code = 0;
        for (const o of outcomes) {
          const d = o.decision;
          if (d.action === "skip") {
            if (d.reason) ctx.stderr(`warning: ${o.label}: ${d.reason}; left as is`);
            continue;
          }
          if (d.action === "approve") continue;
          code = 3;
          ctx.stderr(`error: ${o.label}: ${o.changed ? "denied" : "not approved"}: ${d.reason}`);
        }
        const out: KubeObject[] = outcomes.map((o) => o.obj);
        const text = renderInInputShape(out, isList, format);
        if (outFile) {
          ensureParentDir(outFile);
          writeFilesAtomic([{ path: outFile, data: text, mode: 0o644 }], force);
        } else ctx.stdout(text);
        return code;
      },
    );
  },
};

/**
 * Several inputs (files, and the files of directories): every object read and
 * judged before anything is written, then one stream of them in order (a v1
 * List for JSON). A file found in a directory that holds no
 * CertificateSigningRequest, or does not parse, is skipped with a warning;
 * a file named on its own is read as a single FILE is.
 */
async function approveMany(
  ctx: Context,
  files: readonly { file: string; inDirectory: boolean }[],
  policy: ApprovalPolicy,
  deny: boolean,
  outFile: string | undefined,
  force: boolean,
): Promise<number> {
  const { parseManifests, renderInInputShape } = await import("../lib/k8s/manifest.ts");
  const outcomes: ApprovalOutcome[] = [];
  let allJson = true;
  for (const { file, inDirectory } of files) {
    const read = readManifestInput(file);
    if (read.text === undefined) {
      throw new InputError(
        `${read.name}: larger than ${MAX_INPUT_BYTES} bytes: approve it on its own`,
      );
    }
    const skip = (why: string) => ctx.stderr(`warning: ${read.name}: skipped: ${why}`);
    const pem = /^-----BEGIN /m.test(read.text) && !/^\s*(\{|apiVersion:|kind:)/m.test(read.text);
    if (pem) {
      if (inDirectory) {
        skip("holds no CertificateSigningRequest");
        continue;
      }
      throw new InputError(
        `${read.name}: csr approve reads CertificateSigningRequest objects (a PEM CSR has no requester)`,
      );
    }
    let objects: KubeObject[];
    try {
      objects = parseManifests(read.text, read.name);
    } catch (e) {
      if (!inDirectory) throw e;
      const m = (e as Error).message;
      skip(
        `not a manifest (${m.startsWith(read.name + ": ") ? m.slice(read.name.length + 2) : m})`,
      );
      continue;
    }
    if (inDirectory && !objects.some((o) => o.kind === CSR_KIND)) {
      skip("holds no CertificateSigningRequest");
      continue;
    }
    if (objects.length === 0) throw new InputError(`${read.name}: no objects found`);
    const trimmed = read.text.trimStart();
    allJson &&= trimmed.startsWith("{") || trimmed.startsWith("[");
    objects.forEach((obj, i) =>
      outcomes.push(
        approveObject(
          obj,
          objects.length > 1 ? `${read.name}: object ${i + 1}` : read.name,
          policy,
          ctx.now,
          deny,
        ),
      )
    );
  }
  if (outcomes.length === 0) {
    throw new InputError(`${ctx.args.join(", ")}: no CertificateSigningRequest objects found`);
  }
  const format = outputFormat(ctx.flags, ["yaml", "json"] as const, allJson ? "json" : "yaml");
  let code = 0;
  for (const o of outcomes) {
    const d = o.decision;
    if (d.action === "skip") {
      if (d.reason) ctx.stderr(`warning: ${o.label}: ${d.reason}; left as is`);
      continue;
    }
    if (d.action === "approve") continue;
    code = 3;
    ctx.stderr(`error: ${o.label}: ${o.changed ? "denied" : "not approved"}: ${d.reason}`);
  }
  const out = outcomes.map((o) => o.obj);
  // One object stays one object; several: a stream (YAML) or a v1 List (JSON), as kubectl.
  const text = renderInInputShape(out, false, format);
  if (outFile) {
    ensureParentDir(outFile);
    writeFilesAtomic([{ path: outFile, data: text, mode: 0o644 }], force);
  } else ctx.stdout(text);
  return code;
}

/**
 * An input over 16 MiB (a `---` stream, or a List read item by item): each
 * object is judged and written as it is read, in the shape a whole read
 * gives; diagnostics as they come. `--out` goes to a temporary file moved
 * into place at the end; on stdout, a refusal midway leaves what was
 * written before it.
 */
async function approveStream(
  ctx: Context,
  input: Extract<ManifestInput, { pieces: Iterable<unknown> }>,
  policy: ApprovalPolicy,
  deny: boolean,
  outFile: string | undefined,
  force: boolean,
): Promise<number> {
  const m = await import("../lib/k8s/manifest.ts");
  const format = outputFormat(ctx.flags, ["yaml", "json"] as const, input.json ? "json" : "yaml");
  const isList = input.list ||
    (/^kind:\s*['"]?[A-Za-z]*List['"]?\s*$/m.test(input.head) && /^items:/m.test(input.head));
  let sink: { write(text: string): void; commit(): void; abort(): void } | undefined;
  const writer = new ShapeWriter(m, format, isList, (text) => {
    if (!sink) {
      if (outFile) {
        ensureParentDir(outFile);
        sink = openAtomicOutput(outFile, 0o644, force);
      } else sink = { write: (t) => ctx.stdout(t), commit() {}, abort() {} };
    }
    sink.write(text);
  });
  let code = 0;
  let n = 0;
  const counts = { documents: 0, objects: 0 };
  try {
    for (const chunk of input.pieces) {
      for (const obj of m.parseManifestChunk(chunk, counts)) {
        const o: ApprovalOutcome = approveObject(
          obj,
          `${input.name}: object ${++n}`,
          policy,
          ctx.now,
          deny,
        );
        const d = o.decision;
        if (d.action === "skip") {
          if (d.reason) ctx.stderr(`warning: ${o.label}: ${d.reason}; left as is`);
        } else if (d.action !== "approve") {
          code = 3;
          ctx.stderr(`error: ${o.label}: ${o.changed ? "denied" : "not approved"}: ${d.reason}`);
        }
        writer.add(o.obj);
      }
    }
    if (n === 0) throw new InputError(`${input.name}: no objects found`);
    writer.end();
    sink?.commit();
    return code;
  } catch (e) {
    sink?.abort();
    throw e;
  }
}
