/**
 * The CSR approval policy from the command line: `--policy FILE` (YAML,
 * the kubelet-csr-approver helm value names) and kubelet-csr-approver's own
 * flags, which win over the file as its flags win over its environment.
 * A bad flag value is a usage error (exit 2); a bad file, bad input (exit 1).
 * Shared by `csr approve` and `csr sign --approve --policy`.
 *
 * @module
 */

import { CheckError, InputError, JoinkitError, UsageError } from "../lib/base/errors.ts";
import type { KubeObject } from "../lib/k8s/manifest.ts";
import { approveObject } from "../lib/kubelet/csr_approval.ts";
import {
  type ApprovalPolicy,
  buildPolicy,
  parseHostsFile,
  parsePolicyFile,
  type PolicySettings,
} from "../lib/kubelet/approval_policy.ts";
import type { Context } from "./_command.ts";
import { flagBool, flagString } from "./_flags.ts";
import { readInput } from "./_read.ts";

/** The policy flags, in help order (`policy` first). */
export const POLICY_FLAGS = [
  "policy",
  "provider-regex",
  "provider-ip-prefixes",
  "max-expiration-sec",
  "allowed-dns-names",
  "bypass-dns-resolution",
  "bypass-hostname-check",
  "ignore-non-system-node",
  "skip-deny-step",
  "hosts",
] as const;

/** Each setting's flag. */
const FLAG_OF: Record<keyof PolicySettings, string> = {
  providerRegex: "provider-regex",
  providerIpPrefixes: "provider-ip-prefixes",
  maxExpirationSeconds: "max-expiration-sec",
  allowedDnsNames: "allowed-dns-names",
  bypassDnsResolution: "bypass-dns-resolution",
  bypassHostnameCheck: "bypass-hostname-check",
  ignoreNonSystemNode: "ignore-non-system-node",
  skipDenyStep: "skip-deny-step",
  hosts: "hosts",
  nodeClientGroups: "policy",
  selfNodeClientGroups: "policy",
};

/** A Go `int` flag value (`flag.IntVar`: optional sign, decimal). */
function intFlag(ctx: Context, name: string): number | undefined {
  const v = flagString(ctx.flags, name);
  if (v === undefined) return undefined;
  if (!/^[+-]?\d{1,15}$/.test(v)) {
    throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

/** Whether any policy flag (or `--policy`) was given. */
export function policyGiven(ctx: Context): boolean {
  return POLICY_FLAGS.some((f) => ctx.flags[f] !== undefined);
}

/**
 * Reads the policy: the file's settings, then the flags over them; checks
 * it (kubelet-csr-approver's start-up checks) and prints its warnings.
 */
export function readApprovalPolicy(ctx: Context): ApprovalPolicy {
  const fromFlags: PolicySettings = {};
  const regex = flagString(ctx.flags, "provider-regex");
  if (regex !== undefined) fromFlags.providerRegex = regex;
  const prefixes = flagString(ctx.flags, "provider-ip-prefixes");
  if (prefixes !== undefined) fromFlags.providerIpPrefixes = prefixes;
  const maxExp = intFlag(ctx, "max-expiration-sec");
  if (maxExp !== undefined) fromFlags.maxExpirationSeconds = maxExp;
  const dnsNames = intFlag(ctx, "allowed-dns-names");
  if (dnsNames !== undefined) fromFlags.allowedDnsNames = dnsNames;
  for (
    const [key, flag] of [
      ["bypassDnsResolution", "bypass-dns-resolution"],
      ["bypassHostnameCheck", "bypass-hostname-check"],
      ["ignoreNonSystemNode", "ignore-non-system-node"],
      ["skipDenyStep", "skip-deny-step"],
    ] as const
  ) {
    if (flagBool(ctx.flags, flag)) fromFlags[key] = true;
  }
  // Check the flags alone first: a bad flag is a usage error whatever the file holds.
  buildPolicy(fromFlags, (key, msg) => new UsageError(`--${FLAG_OF[key]}: ${msg}`));

  let fromFile: PolicySettings = {};
  let fileName = "";
  const file = flagString(ctx.flags, "policy");
  if (file !== undefined) {
    const input = readInput(file);
    fileName = input.name;
    // Decoding would turn invalid bytes into U+FFFD and a regex Go refuses ("invalid UTF-8")
    // into one that compiles; a YAML reader (go-yaml) refuses such a file outright.
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(input.bytes);
    } catch {
      throw new InputError(`${input.name}: not valid UTF-8`);
    }
    fromFile = parsePolicyFile(input.text, input.name);
  }
  const hostsFile = flagString(ctx.flags, "hosts");
  if (hostsFile !== undefined) {
    const input = readInput(hostsFile);
    fromFlags.hosts = { ...fromFile.hosts, ...parseHostsFile(input.text) };
  }
  const merged: PolicySettings = { ...fromFile, ...fromFlags };
  const { policy, warnings } = buildPolicy(
    merged,
    (key, msg) =>
      key in fromFlags && key !== "hosts"
        ? new UsageError(`--${FLAG_OF[key]}: ${msg}`)
        : new InputError(`${fileName || "--hosts"}: ${key}: ${msg}`),
  );
  for (const w of warnings) ctx.stderr(`warning: ${w}`);
  return policy;
}

/**
 * `csr sign --approve --policy FILE`: the policy, or `undefined` without
 * `--policy`; `--policy` without `--approve` is a usage error.
 */
export function signingPolicy(ctx: Context, approve: boolean): ApprovalPolicy | undefined {
  if (flagString(ctx.flags, "policy") === undefined) return undefined;
  if (!approve) throw new UsageError("--policy applies with --approve");
  return readApprovalPolicy(ctx);
}

/** Whether `csr sign` signs an object after the policy's judgement, and the object to sign. */
export type SigningGate =
  | { obj: KubeObject; sign: true }
  | { obj: KubeObject; sign: false; error: JoinkitError };

/**
 * `csr approve`'s judgement before `csr sign` signs: an object the policy
 * approves gets the approver's condition and is signed; one already decided
 * or issued goes on to the signer's own checks; any other is not signed, with
 * the policy's reason (exit 3). Bad input comes back as the error.
 */
export function gateForSigning(
  obj: KubeObject,
  where: string,
  policy: ApprovalPolicy,
  now: Date,
): SigningGate {
  let o;
  try {
    o = approveObject(obj, where, policy, now, false);
  } catch (e) {
    if (e instanceof JoinkitError) return { obj, sign: false, error: e };
    throw e;
  }
  const d = o.decision;
  if (d.action === "approve" || (d.action === "skip" && d.reason === undefined)) {
    return { obj: o.obj, sign: true };
  }
  return {
    obj,
    sign: false,
    error: new CheckError(`${o.label}: not approved by the policy: ${d.reason}`),
  };
}
