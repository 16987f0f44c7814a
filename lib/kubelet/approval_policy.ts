/**
 * The CSR approval policy `csr approve` (and `csr sign --approve --policy`)
 * judges by: postfinance/kubelet-csr-approver's configuration for
 * kubelet-serving CSRs (its flags, defaults and start-up checks, with a
 * static host table in place of DNS), plus the groups whose
 * SubjectAccessReview kube-controller-manager's `csrapproving` would see
 * allowed for kubelet client CSRs (kubeadm's default bindings).
 *
 * Settings come from flags or a YAML file whose keys are the helm chart's
 * value names (`providerRegex`, `providerIpPrefixes`, …); unknown keys are
 * refused by name.
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { compileGoRegexp, type GoRegexp } from "../go/regexp.ts";
import { parseManifests } from "../k8s/manifest.ts";
import { formatIp, parseIp } from "../pki/pkix.ts";

/** kca's default `--max-expiration-sec`: 367 days. */
export const MAX_EXPIRATION_SECONDS = 367 * 24 * 3600;

/** kca's default `--provider-ip-prefixes`. */
export const DEFAULT_IP_PREFIXES = "0.0.0.0/0,::/0";

/** The group kubeadm's bootstrap tokens authenticate as (bound to `nodeclient`). */
export const KUBEADM_BOOTSTRAP_GROUP = "system:bootstrappers:kubeadm:default-node-token";

/** The settings, as given (flags or file), before checking. */
export interface PolicySettings {
  providerRegex?: string;
  /** Comma-separated, no trimming (kca splits on `,` only). */
  providerIpPrefixes?: string;
  maxExpirationSeconds?: number;
  bypassDnsResolution?: boolean;
  bypassHostnameCheck?: boolean;
  allowedDnsNames?: number;
  ignoreNonSystemNode?: boolean;
  skipDenyStep?: boolean;
  /** The offline resolver: name → addresses (text). */
  hosts?: Record<string, string[]>;
  /** Groups whose SubjectAccessReview for `nodeclient` is allowed. */
  nodeClientGroups?: string[];
  /** Groups whose SubjectAccessReview for `selfnodeclient` is allowed. */
  selfNodeClientGroups?: string[];
}

/** The keys a policy file may hold. */
export const POLICY_KEYS: readonly (keyof PolicySettings)[] = [
  "providerRegex",
  "providerIpPrefixes",
  "maxExpirationSeconds",
  "bypassDnsResolution",
  "bypassHostnameCheck",
  "allowedDnsNames",
  "ignoreNonSystemNode",
  "skipDenyStep",
  "hosts",
  "nodeClientGroups",
  "selfNodeClientGroups",
];

/** An IP address: 4 bytes (IPv4) or 16 (IPv6, IPv4-mapped kept as such). */
export type Addr = Uint8Array;

/** A CIDR prefix as `netip.ParsePrefix` reads it. */
export interface IpPrefix {
  addr: Addr;
  bits: number;
  text: string;
}

/** The checked policy. */
export interface ApprovalPolicy {
  providerRegex: string;
  providerRegexp: GoRegexp;
  prefixes: IpPrefix[];
  maxExpirationSeconds: number;
  bypassDnsResolution: boolean;
  bypassHostnameCheck: boolean;
  allowedDnsNames: number;
  ignoreNonSystemNode: boolean;
  skipDenyStep: boolean;
  /** Lower-case names without a trailing dot → addresses as given. */
  hosts: Map<string, string[]>;
  nodeClientGroups: string[];
  selfNodeClientGroups: string[];
}

/**
 * `netip.ParseAddr`, without zones: dotted IPv4 (no leading zeros) is 4
 * bytes, any IPv6 form 16 (an IPv4-mapped address stays IPv6, as in Go).
 */
export function parseAddr(text: string): Addr | undefined {
  if (text.includes("%")) return undefined;
  const b = parseIp(text);
  if (b === undefined) return undefined;
  if (!text.includes(":")) return b;
  if (b.length === 16) return b;
  const m = new Uint8Array(16);
  m[10] = 0xff;
  m[11] = 0xff;
  m.set(b, 12);
  return m;
}

/** `netip.Addr.String()`: an IPv4-mapped IPv6 address prints as `::ffff:a.b.c.d`. */
export function formatAddr(a: Addr): string {
  if (
    a.length === 16 && a.subarray(0, 10).every((x) => x === 0) && a[10] === 0xff && a[11] === 0xff
  ) {
    return `::ffff:${formatIp(a.subarray(12))}`;
  }
  return formatIp(a);
}

/** `netipx.FromStdIP`: an IPv4-mapped IPv6 address becomes IPv4. */
export function fromStdIp(text: string): Addr | undefined {
  return parseIp(text);
}

/** `netip.ParsePrefix`: `ADDR/BITS`, no zone, bits in decimal without leading zeros. */
export function parsePrefix(text: string): IpPrefix | undefined {
  const slash = text.lastIndexOf("/");
  if (slash < 0) return undefined;
  const addr = parseAddr(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (addr === undefined || !/^(0|[1-9][0-9]{0,2})$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > addr.length * 8) return undefined;
  return { addr, bits, text };
}

/** Whether `a` lies in `p` (same family only, as netipx's IPSet). */
export function prefixContains(p: IpPrefix, a: Addr): boolean {
  if (a.length !== p.addr.length) return false;
  let bits = p.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i]! & mask) !== (p.addr[i]! & mask)) return false;
  }
  return true;
}

/** Whether `a` lies in any of `set`. */
export function inPrefixes(set: readonly IpPrefix[], a: Addr): boolean {
  return set.some((p) => prefixContains(p, a));
}

/** The host-table key of a name: lower case, no trailing dot (Go's static host lookup). */
export function hostKey(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

/**
 * An /etc/hosts file (hosts(5)) as Go's resolver reads it: `#` comments,
 * `ADDR NAME [ALIAS…]`, lines whose address does not parse skipped.
 */
export function parseHostsFile(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    const f = line.split(/[ \t\r]+/).filter(Boolean);
    if (f.length < 2 || parseAddr(f[0]!) === undefined) continue;
    for (const name of f.slice(1)) (out[hostKey(name)] ??= []).push(f[0]!);
  }
  return out;
}

/** kca's start-up messages, verbatim (the regex one with upstream's typo). */
export const POLICY_MESSAGES = {
  emptyRegex: "the provider-spefic regex must be specified",
  prefix: (p: string) => `Unable to parse IP prefix: ${p}`,
  maxExpiration: "the maximum expiration seconds cannot be lower than 0 nor greater than 367 days",
  dnsNames: "the number of allowed DNS names must be at least 1 and no more than 1000",
} as const;

/**
 * Checks settings into a policy, with kca's defaults for what is absent.
 * `fail(key, message)` makes the error for a bad setting (the caller knows
 * whether it came from a flag, exit 2, or a file, exit 1). Returns the
 * warnings kca prints without stopping (allowed DNS names out of range).
 */
export function buildPolicy(
  s: PolicySettings,
  fail: (key: keyof PolicySettings, message: string) => Error,
): { policy: ApprovalPolicy; warnings: string[] } {
  const warnings: string[] = [];
  const regex = s.providerRegex ?? ".*";
  if (regex === "") throw fail("providerRegex", POLICY_MESSAGES.emptyRegex);
  let providerRegexp: GoRegexp;
  try {
    providerRegexp = compileGoRegexp(regex);
  } catch (e) {
    throw fail("providerRegex", (e as Error).message);
  }
  const prefixes: IpPrefix[] = [];
  for (const p of (s.providerIpPrefixes ?? DEFAULT_IP_PREFIXES).split(",")) {
    const parsed = parsePrefix(p);
    if (parsed === undefined) throw fail("providerIpPrefixes", POLICY_MESSAGES.prefix(p));
    prefixes.push(parsed);
  }
  const maxExp = s.maxExpirationSeconds ?? MAX_EXPIRATION_SECONDS;
  if (maxExp < 0 || maxExp > MAX_EXPIRATION_SECONDS) {
    throw fail("maxExpirationSeconds", POLICY_MESSAGES.maxExpiration);
  }
  const dnsNames = s.allowedDnsNames ?? 1;
  if (dnsNames < 1 || dnsNames > 1000) warnings.push(POLICY_MESSAGES.dnsNames);
  const hosts = new Map<string, string[]>();
  for (const [name, addrs] of Object.entries(s.hosts ?? {})) {
    for (const a of addrs) {
      if (parseAddr(a) === undefined) {
        throw fail("hosts", `${name}: ${JSON.stringify(a)} is not an IP address`);
      }
    }
    const key = hostKey(name);
    hosts.set(key, [...(hosts.get(key) ?? []), ...addrs]);
  }
  return {
    policy: {
      providerRegex: regex,
      providerRegexp,
      prefixes,
      maxExpirationSeconds: maxExp,
      bypassDnsResolution: s.bypassDnsResolution ?? false,
      bypassHostnameCheck: s.bypassHostnameCheck ?? false,
      allowedDnsNames: dnsNames,
      ignoreNonSystemNode: s.ignoreNonSystemNode ?? false,
      skipDenyStep: s.skipDenyStep ?? false,
      hosts,
      nodeClientGroups: s.nodeClientGroups ?? [KUBEADM_BOOTSTRAP_GROUP, "system:masters"],
      selfNodeClientGroups: s.selfNodeClientGroups ?? ["system:nodes", "system:masters"],
    },
    warnings,
  };
}

const stringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");

/**
 * Reads a policy file (YAML or JSON, one mapping of {@link POLICY_KEYS}).
 * Throws `InputError` naming the file and the key for an unknown key or a
 * value of the wrong type.
 */
export function parsePolicyFile(text: string, source: string): PolicySettings {
  const docs = parseManifests(text, source);
  if (docs.length !== 1) {
    throw new InputError(`${source}: a policy file holds one mapping, found ${docs.length}`);
  }
  const doc = docs[0]!;
  const s: PolicySettings = {};
  const bad = (key: string, want: string) => new InputError(`${source}: ${key} must be ${want}`);
  for (const [key, v] of Object.entries(doc)) {
    switch (key) {
      case "providerRegex":
        if (typeof v !== "string") throw bad(key, "a string");
        s.providerRegex = v;
        break;
      case "providerIpPrefixes":
        // The helm chart's list is joined with "," as its template does.
        if (typeof v === "string") s.providerIpPrefixes = v;
        else if (stringList(v)) s.providerIpPrefixes = (v as string[]).join(",");
        else throw bad(key, "a list of CIDR prefixes or a comma-separated string");
        break;
      case "maxExpirationSeconds":
      case "allowedDnsNames":
        if (typeof v !== "number" || !Number.isInteger(v)) throw bad(key, "a whole number");
        s[key] = v;
        break;
      case "bypassDnsResolution":
      case "bypassHostnameCheck":
      case "ignoreNonSystemNode":
      case "skipDenyStep":
        if (typeof v !== "boolean") throw bad(key, "true or false");
        s[key] = v;
        break;
      case "hosts": {
        if (!isObject(v)) throw bad(key, "a mapping of host names to addresses");
        const hosts: Record<string, string[]> = {};
        for (const [name, a] of Object.entries(v)) {
          if (typeof a === "string") hosts[name] = [a];
          else if (stringList(a)) hosts[name] = a as string[];
          else throw bad(`${key}.${name}`, "an address or a list of addresses");
        }
        s.hosts = hosts;
        break;
      }
      case "nodeClientGroups":
      case "selfNodeClientGroups":
        if (!stringList(v)) throw bad(key, "a list of group names");
        s[key] = v as string[];
        break;
      default:
        throw new InputError(
          `${source}: unknown policy key ${JSON.stringify(key)} (known: ${POLICY_KEYS.join(", ")})`,
        );
    }
  }
  return s;
}
