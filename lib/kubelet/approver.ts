/**
 * The kubelet-certificate rules of `pkg/apis/certificates` (the internal
 * package: `ValidateKubeletClientCSR`, `ValidateKubeletServingCSR`,
 * `ValidateMLDSAKeyUsages`), kube-controller-manager's `csrapproving`
 * recognizers (`nodeclient`, `selfnodeclient`), the kube-apiserver-client
 * signer's usage rule, and client-go's key-strength check. Error strings are
 * upstream's, verbatim.
 *
 * @module
 */

import type { Sans } from "../pki/pkix.ts";
import type { KeyInfo } from "../pki/pkix_key.ts";
import type { Name } from "../pki/pkix_name.ts";

/** The parts of a CSR these rules look at. */
export interface CsrFacts {
  subject: Pick<Name, "organization" | "commonName">;
  sans: Sans;
  key: Pick<KeyInfo, "type" | "bits">;
}

/** The kubelet client signer. */
export const KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";
/** The kubelet serving signer. */
export const KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving";
/** The generic client signer. */
export const APISERVER_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client";
/** The legacy signer (refused by certificates.k8s.io/v1). */
export const LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown";

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
};

const orgIsNodes = (o: readonly string[]) => o.length === 1 && o[0] === "system:nodes";

const isMlDsa = (k: { type: string }) => k.type.startsWith("ML-DSA");

/**
 * `ValidateMLDSAKeyUsages`: joined errors, or `undefined` when fine.
 */
export function validateMLDSAKeyUsages(usages: readonly string[]): string | undefined {
  const errs: string[] = [];
  for (const u of usages) {
    if (
      ["key encipherment", "key agreement", "data encipherment", "encipher only", "decipher only"]
        .includes(u)
    ) {
      errs.push(`usage ${u} cannot be used with an ML-DSA signed certificate request`);
    }
  }
  const needed = ["cert sign", "content commitment", "crl sign", "digital signature"];
  if (!usages.some((u) => needed.includes(u))) {
    errs.push(`usages must contain at least one of [${needed.join(" ")}]`);
  }
  return errs.length ? errs.join("\n") : undefined;
}

/**
 * `ValidateKubeletClientCSR`: the first failing check's upstream message, or
 * `undefined` when the CSR is a kubelet client CSR.
 */
export function validateKubeletClientCSR(
  csr: CsrFacts,
  usages: readonly string[],
): string | undefined {
  if (!orgIsNodes(csr.subject.organization)) return "subject organization is not system:nodes";
  if (csr.sans.dns.length) return "DNS subjectAltNames are not allowed";
  if (csr.sans.emails.length) return "Email subjectAltNames are not allowed";
  if (csr.sans.ips.length) return "IP subjectAltNames are not allowed";
  if (csr.sans.uris.length) return "URI subjectAltNames are not allowed";
  if (!csr.subject.commonName.startsWith("system:node:")) {
    return "subject common name does not begin with system:node:";
  }
  if (
    !sameSet(usages, ["client auth", "digital signature", "key encipherment"]) &&
    !sameSet(usages, ["client auth", "digital signature"])
  ) {
    return "usages did not match [client auth digital signature key encipherment]";
  }
  if (isMlDsa(csr.key)) {
    const e = validateMLDSAKeyUsages(usages);
    if (e) return `validating usages for ml-dsa key: ${e}`;
  }
  return undefined;
}

/**
 * `ValidateKubeletServingCSR`: note upstream checks the CN last here.
 */
export function validateKubeletServingCSR(
  csr: CsrFacts,
  usages: readonly string[],
): string | undefined {
  if (!orgIsNodes(csr.subject.organization)) return "subject organization is not system:nodes";
  if (csr.sans.dns.length === 0 && csr.sans.ips.length === 0) {
    return "DNS or IP subjectAltName is required";
  }
  if (csr.sans.emails.length) return "Email subjectAltNames are not allowed";
  if (csr.sans.uris.length) return "URI subjectAltNames are not allowed";
  if (
    !sameSet(usages, ["digital signature", "key encipherment", "server auth"]) &&
    !sameSet(usages, ["digital signature", "server auth"])
  ) {
    return "usages did not match [digital signature key encipherment server auth]";
  }
  if (isMlDsa(csr.key)) {
    const e = validateMLDSAKeyUsages(usages);
    if (e) return `validating usages for ml-dsa key: ${e}`;
  }
  if (!csr.subject.commonName.startsWith("system:node:")) {
    return "subject common name does not begin with system:node:";
  }
  return undefined;
}

/** `IsKubeletClientCSR`. */
export function isKubeletClientCSR(csr: CsrFacts, usages: readonly string[]): boolean {
  return validateKubeletClientCSR(csr, usages) === undefined;
}

/** `IsKubeletServingCSR`. */
export function isKubeletServingCSR(csr: CsrFacts, usages: readonly string[]): boolean {
  return validateKubeletServingCSR(csr, usages) === undefined;
}

/** The kube-apiserver-client signer's `validAPIServerClientUsages`. */
export function validAPIServerClientUsages(
  csr: CsrFacts,
  usages: readonly string[],
): string | undefined {
  let hasClientAuth = false;
  for (const u of usages) {
    if (u === "digital signature" || u === "key encipherment") continue;
    if (u === "client auth") hasClientAuth = true;
    else return `invalid usage for client certificate: ${u}`;
  }
  if (!hasClientAuth) return "missing required usage for client certificate: client auth";
  if (isMlDsa(csr.key)) {
    const e = validateMLDSAKeyUsages(usages);
    if (e) return `validating usages for ml-dsa key: ${e}`;
  }
  return undefined;
}

/** What `csrapproving` looks at in a CSR object. */
export interface ApprovalInput {
  signerName: string;
  usages: readonly string[];
  /** `spec.username`, the requester. */
  username?: string | undefined;
}

/** sarapprove.go `isNodeClientCert`. */
export function isNodeClientCert(obj: ApprovalInput, csr: CsrFacts): boolean {
  if (obj.signerName !== KUBELET_CLIENT_SIGNER) return false;
  return isKubeletClientCSR(csr, obj.usages);
}

/** sarapprove.go `isSelfNodeClientCert`. */
export function isSelfNodeClientCert(obj: ApprovalInput, csr: CsrFacts): boolean {
  if (obj.username !== csr.subject.commonName) return false;
  return isNodeClientCert(obj, csr);
}

/**
 * The recognizers that match, in the approver's order (`selfnodeclient`,
 * then `nodeclient`); each is the SAR subresource the approver would ask
 * about. Empty when kube-controller-manager would ignore the CSR.
 */
export function recognize(obj: ApprovalInput, csr: CsrFacts): string[] {
  const out: string[] = [];
  if (isSelfNodeClientCert(obj, csr)) out.push("selfnodeclient");
  if (isNodeClientCert(obj, csr)) out.push("nodeclient");
  return out;
}

/**
 * client-go's `validateKeyStrength`: RSA ≥ 2048 bits, ECDSA ≥ 256 bits.
 * Returns the problem, or `undefined`.
 */
export function keyStrengthProblem(key: Pick<KeyInfo, "type" | "bits">): string | undefined {
  if (key.type === "RSA" && key.bits < 2048) {
    return `RSA key too weak: ${key.bits} bits, need at least 2048`;
  }
  if (key.type === "ECDSA" && key.bits < 256) {
    return `ECDSA key too weak: ${key.bits} bits, need at least 256`;
  }
  return undefined;
}
