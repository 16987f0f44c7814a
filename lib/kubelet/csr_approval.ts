/**
 * Approving CSR objects offline, as the two approvers that run in clusters
 * would: postfinance/kubelet-csr-approver (`Reconcile`, `DNSCheck`,
 * `WhitelistedIPCheck`) for `kubernetes.io/kubelet-serving`, and
 * kube-controller-manager's `csrapproving` (`selfnodeclient`, then
 * `nodeclient`, with the SubjectAccessReview answered from the policy's
 * groups) for `kubernetes.io/kube-apiserver-client-kubelet`. Reasons and
 * conditions are upstream's, verbatim; DNS lookups read the policy's host
 * table (a miss is a deny, as a failed lookup is upstream).
 *
 * @module
 */

import {
  type Addr,
  type ApprovalPolicy,
  formatAddr,
  fromStdIp,
  hostKey,
  inPrefixes,
  parseAddr,
} from "./approval_policy.ts";
import { type Csr, NOT_A_CSR, parseCsrDer } from "./csr.ts";
import { type CsrObject, readCsrObject, storedCondition, withStatus } from "./csr_object.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { isObject } from "../base/object.ts";
import { invalidMessage, objectNameForErrors, validateConditions } from "./csr_validation.ts";
import { decodePem } from "../pki/pem.ts";
import {
  KUBELET_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  validateKubeletClientCSR,
} from "./approver.ts";

/** kubelet-csr-approver's reasons (`<R>` of its Denied message), verbatim. */
export const KCA_REASONS = {
  R1: "CSR Spec.Username is not prefixed with system:node:",
  R2: "The x509 Cert Request SAN contains neither an IP address nor a DNS name",
  R3: "CSR username does not match the parsed x509 certificate request commonname",
  R4: "The x509 Cert Request contains more DNS names than allowed through the config flag",
  R5: "The SAN DNS Name in the x509 CSR is not prefixed by the node name (hostname)",
  R6: "The SAN DNS name in the x509 CR is not allowed by the Cloud provider regex",
  R7: "The SAN DNS Name could not be resolved, denying the CSR",
  R8: (a: string) => `Error while parsing resolved IP address ${a}, denying the CSR`,
  R9: (a: string) =>
    `One of the resolved IP addresses, ${a},isn't part of the provider-specified set of whitelisted IP. denying the certificate`,
  R10: (a: string) => `Error while parsing x509 CR IP address ${a}, denying the CSR`,
  R11: (a: string) =>
    `One of the SAN IP addresses, ${a}, is not contained in the set of resolved IP addresses, denying the CSR.`,
  R12: (a: string) =>
    `One of the SAN IP addresses, ${a}, is not partof the allowed IP Prefixes/Subnets, denying the CSR.`,
  R13: "CSR spec.expirationSeconds is longer than the maximum allowed expiration second",
} as const;

/** The conditions' reason and message pairs, verbatim. */
export const CONDITIONS = {
  kcaApproved: {
    type: "Approved",
    reason: "kubelet-serving cert validated",
    message: "CSR complied with kubelet-csr-approver validation process",
  },
  kcaDenied: (r: string) => ({
    type: "Denied",
    reason: "kubelet-serving cert denied",
    message: `CSR not complying with kubelet-csr-approver validation process. Reason: ${r}`,
  }),
  selfNodeClient: {
    type: "Approved",
    reason: "AutoApproved",
    message: "Auto approving self kubelet client certificate after SubjectAccessReview.",
  },
  nodeClient: {
    type: "Approved",
    reason: "AutoApproved",
    message: "Auto approving kubelet client certificate after SubjectAccessReview.",
  },
  kubectlDeny: {
    type: "Denied",
    reason: "KubectlDeny",
    message: "This CSR was denied by kubectl certificate deny.",
  },
} as const;

/** What to do with one CSR. */
export interface ApprovalDecision {
  /**
   * `approve`: add `condition`; `deny`: the policy refuses (`condition` is
   * the Denied one to add when denying is asked for and not skipped);
   * `pending`: refused but never denied (ignored upstream); `skip`: not
   * for these approvers, or already decided or issued.
   */
  action: "approve" | "deny" | "pending" | "skip";
  /** Which approver judged it. */
  approver?: "kubelet-csr-approver" | "csrapproving";
  condition?: { type: string; reason: string; message: string };
  /** Why it is not approved (deny, pending), or why it was skipped. */
  reason?: string;
}

/** Go's `ParseCSR`: the first PEM block must be a CERTIFICATE REQUEST. */
function parseRequest(request: Uint8Array): Csr {
  const text = new TextDecoder().decode(request);
  const first = decodePem(text, "spec.request")[0];
  if (!first || first.type !== "CERTIFICATE REQUEST") throw new Error(NOT_A_CSR);
  return parseCsrDer(first.der);
}

/** `GetCertApprovalCondition`: any Approved or Denied condition, whatever its status. */
function decided(c: CsrObject): boolean {
  return c.conditions.some((x) => x.type === "Approved" || x.type === "Denied");
}

function groupsOf(c: CsrObject): string[] {
  const spec = isObject(c.obj.spec) ? c.obj.spec : {};
  return Array.isArray(spec.groups) ? spec.groups.filter((g) => typeof g === "string") : [];
}

/** kca's `DNSCheck`, offline. Returns the deny reason, or undefined. */
export function dnsCheck(
  username: string,
  dnsNames: readonly string[],
  sanIps: readonly string[],
  p: ApprovalPolicy,
): string | undefined {
  if (dnsNames.length > p.allowedDnsNames) return KCA_REASONS.R4;
  if (dnsNames.length === 0) return undefined;
  const hostname = username.startsWith("system:node:")
    ? username.slice("system:node:".length)
    : username;
  for (const name of dnsNames) {
    if (!p.bypassHostnameCheck && !name.startsWith(hostname)) return KCA_REASONS.R5;
    if (!p.providerRegexp.matchString(name)) return KCA_REASONS.R6;
  }
  if (p.bypassDnsResolution) return undefined;
  const resolved: string[] = [];
  for (const name of dnsNames) {
    const addrs = p.hosts.get(hostKey(name));
    if (!addrs || addrs.length === 0) return KCA_REASONS.R7;
    resolved.push(...addrs);
  }
  const set: Addr[] = [];
  for (const text of resolved) {
    const a = parseAddr(text);
    if (a === undefined) return KCA_REASONS.R8("invalid IP");
    set.push(a);
    if (!inPrefixes(p.prefixes, a)) return KCA_REASONS.R9(formatAddr(a));
  }
  for (const ip of sanIps) {
    const a = fromStdIp(ip);
    if (a === undefined) return KCA_REASONS.R10(ip);
    const same = (b: Addr) => b.length === a.length && b.every((x, i) => x === a[i]);
    if (!set.some(same)) return KCA_REASONS.R11(formatAddr(a));
  }
  return undefined;
}

/** kca's `WhitelistedIPCheck`. */
export function whitelistedIpCheck(
  sanIps: readonly string[],
  p: ApprovalPolicy,
): string | undefined {
  for (const ip of sanIps) {
    const a = fromStdIp(ip);
    if (a === undefined) return KCA_REASONS.R10(ip);
    if (!inPrefixes(p.prefixes, a)) return KCA_REASONS.R12(formatAddr(a));
  }
  return undefined;
}

/** kca's `Reconcile`, from the signer filter on; `csr` is the parsed request. */
export function kcaDecision(c: CsrObject, csr: Csr, p: ApprovalPolicy): ApprovalDecision {
  const approver = "kubelet-csr-approver" as const;
  const username = c.username ?? "";
  const deny = (reason: string): ApprovalDecision => ({
    action: "deny",
    approver,
    condition: CONDITIONS.kcaDenied(reason),
    reason,
  });
  if (!username.startsWith("system:node:")) {
    if (p.ignoreNonSystemNode) return { action: "pending", approver, reason: KCA_REASONS.R1 };
    return deny(KCA_REASONS.R1);
  }
  if (csr.sans.dns.length + csr.sans.ips.length === 0) return deny(KCA_REASONS.R2);
  if (csr.subject.commonName !== username) return deny(KCA_REASONS.R3);
  const dns = dnsCheck(username, csr.sans.dns, csr.sans.ips, p);
  if (dns !== undefined) return deny(dns);
  const ips = whitelistedIpCheck(csr.sans.ips, p);
  if (ips !== undefined) return deny(ips);
  if (c.expirationSeconds !== undefined && c.expirationSeconds > p.maxExpirationSeconds) {
    return deny(KCA_REASONS.R13);
  }
  return { action: "approve", approver, condition: CONDITIONS.kcaApproved };
}

/** `csrapproving`'s recognizers and SubjectAccessReviews, answered from the policy's groups. */
export function builtinDecision(c: CsrObject, csr: Csr, p: ApprovalPolicy): ApprovalDecision {
  const approver = "csrapproving" as const;
  const groups = groupsOf(c);
  const notRecognized = validateKubeletClientCSR(csr, c.usages);
  if (notRecognized !== undefined) {
    return { action: "deny", approver, condition: CONDITIONS.kubectlDeny, reason: notRecognized };
  }
  const tried: string[] = [];
  const recognizers = [
    {
      name: "selfnodeclient",
      ok: c.username === csr.subject.commonName,
      groups: p.selfNodeClientGroups,
      cond: CONDITIONS.selfNodeClient,
    },
    { name: "nodeclient", ok: true, groups: p.nodeClientGroups, cond: CONDITIONS.nodeClient },
  ];
  for (const r of recognizers) {
    if (!r.ok) continue;
    tried.push(r.name);
    if (groups.some((g) => r.groups.includes(g))) {
      return { action: "approve", approver, condition: r.cond };
    }
  }
  return {
    action: "deny",
    approver,
    condition: CONDITIONS.kubectlDeny,
    reason: `recognized csr ${JSON.stringify(c.name)} as [${
      tried.join(" ")
    }] but subject access review was not approved`,
  };
}

/**
 * Decides one CSR object: skip what neither approver handles or what is
 * already decided or issued, then the signer's approver. A request that
 * does not parse stays pending (kca logs it; csrapproving requeues it).
 */
export function decideApproval(c: CsrObject, p: ApprovalPolicy): ApprovalDecision {
  if (c.signerName !== KUBELET_SERVING_SIGNER && c.signerName !== KUBELET_CLIENT_SIGNER) {
    return {
      action: "skip",
      reason: `signer ${JSON.stringify(c.signerName)} is handled by neither approver`,
    };
  }
  // Conditions kube-apiserver would never have stored (Approved "False", both Approved and
  // Denied, a type twice): no approver ever sees such an object. It stays as it is, refused
  // with the API server's text, as csr sign refuses it (was: skipped as decided, exit 0).
  const invalid = validateConditions(c.conditions);
  if (invalid.length) {
    return {
      action: "pending",
      reason: invalidMessage(objectNameForErrors(c.metadataName, c.generateName), invalid),
    };
  }
  if (decided(c) || c.certificate !== "") return { action: "skip" };
  let csr: Csr;
  try {
    csr = parseRequest(c.request);
  } catch (e) {
    return {
      action: "pending",
      reason: `unable to parse csr ${JSON.stringify(c.name)}: ${(e as Error).message}`,
    };
  }
  return c.signerName === KUBELET_SERVING_SIGNER
    ? kcaDecision(c, csr, p)
    : builtinDecision(c, csr, p);
}

/** What became of one object. */
export interface ApprovalOutcome {
  /** The object to output: with the condition added, or unchanged. */
  obj: KubeObject;
  decision: ApprovalDecision;
  /** The object's label in messages: `<where> (<name>)`. */
  label: string;
  /** Whether a condition was added. */
  changed: boolean;
}

/**
 * Reads (`readCsrObject`: bad input throws `InputError`, prefixed with
 * `where`), decides and applies the decision to one object: the Approved
 * condition, or the Denied one when `deny` is asked for, the approver
 * writes one (`csrapproving` never does; kubectl's is used) and
 * `skipDenyStep` is off.
 */
export function approveObject(
  obj: KubeObject,
  where: string,
  p: ApprovalPolicy,
  now: Date,
  deny: boolean,
): ApprovalOutcome {
  const c = readCsrObject(obj, where);
  const label = `${where} (${c.name})`;
  const decision = decideApproval(c, p);
  const add = decision.action === "approve" ||
    (decision.action === "deny" && deny && !p.skipDenyStep);
  if (!add || decision.condition === undefined) return { obj, decision, label, changed: false };
  return {
    obj: withStatus(obj, [storedCondition(decision.condition, now)]),
    decision,
    label,
    changed: true,
  };
}
