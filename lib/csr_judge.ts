/**
 * Judges one CSR as the cluster would: kube-apiserver's create-time
 * validation, the built-in signer's rules, and kube-controller-manager's
 * approver. Pure: the caller supplies the parsed CSR and the object fields.
 *
 * @module
 */

import {
  APISERVER_CLIENT_SIGNER,
  keyStrengthProblem,
  KUBELET_CLIENT_SIGNER,
  LEGACY_UNKNOWN_SIGNER,
  recognize,
} from "./approver.ts";
import { checkCsrSignature, type Csr } from "./csr.ts";
import {
  certificateProblem,
  validateCertificateStatus,
  validateConditions,
  validateExpirationSeconds,
  validateNotLegacy,
  validateSignerName,
  validateUsages,
} from "./csr_validation.ts";
import { type CsrObject, hasCondition } from "./csr_object.ts";
import { formatKey, formatName } from "./pkix.ts";
import { BUILTIN_SIGNERS, guessSigner, signerValidator } from "./signer.ts";
import { sigAlgName } from "./sigalg.ts";
import { parseCertificate } from "./cert_info.ts";
import { decodePem } from "./pem.ts";
import { formatRfc3339 } from "./time.ts";

/** The verdict on one CSR. */
export interface CsrReport {
  source: string;
  name: string;
  subject: string;
  commonName: string;
  organization: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  key: string;
  keyType: string;
  keyBits: number;
  signatureAlgorithm: string;
  signatureValid: boolean;
  signatureError?: string;
  /** Object fields (absent for a bare PEM CSR). */
  signerName?: string;
  usages?: string[];
  expirationSeconds?: number | null;
  requester?: string;
  status?: string;
  /** kube-apiserver validation errors (objects). */
  apiErrors: string[];
  /** The signer's verdict. */
  signer: string;
  signerOk: boolean;
  /** Recognizers that match (`selfnodeclient`, `nodeclient`), empty when ignored. */
  approver: string[];
  approverNote: string;
  weakKey?: string;
  /** The issued certificate in `status.certificate`, summarized. */
  certificate?: string;
  /** Whether the request would be rejected or could never be signed. */
  rejected: boolean;
}

/**
 * Judges a CSR. `obj` is the CertificateSigningRequest it came in (undefined
 * for a bare PEM CSR); `requester` overrides `spec.username`.
 */
export async function judgeCsr(
  csr: Csr,
  source: string,
  obj: CsrObject | undefined,
  requester: string | undefined,
): Promise<CsrReport> {
  const sigErr = await checkCsrSignature(csr);
  const r: CsrReport = {
    source,
    name: obj?.name ?? "",
    subject: formatName(csr.subject),
    commonName: csr.subject.commonName,
    organization: csr.subject.organization,
    dnsNames: csr.sans.dns,
    ipAddresses: csr.sans.ips,
    emailAddresses: csr.sans.emails,
    uris: csr.sans.uris,
    key: formatKey(csr.key),
    keyType: csr.key.type,
    keyBits: csr.key.bits,
    signatureAlgorithm: sigAlgName(csr.sigAlg),
    signatureValid: sigErr === undefined,
    apiErrors: [],
    signer: "",
    signerOk: false,
    approver: [],
    approverNote: "",
    rejected: false,
  };
  if (sigErr) r.signatureError = sigErr;
  const weak = keyStrengthProblem(csr.key);
  if (weak) r.weakKey = weak;
  const user = requester ?? obj?.username;
  if (user !== undefined) r.requester = user;

  if (obj) {
    r.signerName = obj.signerName;
    r.usages = obj.usages;
    r.expirationSeconds = obj.expirationSeconds ?? null;
    if (sigErr) r.apiErrors.push(`spec.request: Invalid value: "<request data>": ${sigErr}`);
    r.apiErrors.push(
      ...validateUsages(obj.usages),
      ...validateNotLegacy(obj.signerName),
      ...(obj.signerName === LEGACY_UNKNOWN_SIGNER ? [] : validateSignerName(obj.signerName)),
      ...validateExpirationSeconds(obj.expirationSeconds),
      ...validateConditions(obj.conditions),
      ...validateCertificateStatus(obj.certificate),
    );
    if (
      obj.signerName === APISERVER_CLIENT_SIGNER &&
      csr.subject.organization.includes("system:masters")
    ) {
      // CertificateSubjectRestriction admission plugin (on by default)
      r.apiErrors.push(
        "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed",
      );
    }
    r.status = hasCondition(obj, "Denied")
      ? "Denied"
      : hasCondition(obj, "Failed")
      ? "Failed"
      : hasCondition(obj, "Approved")
      ? (obj.certificate ? "Approved,Issued" : "Approved")
      : "Pending";
    judgeSigner(r, csr, obj.signerName, obj.usages);
    if (obj.certificate && certificateProblem(obj.certificate) === undefined) {
      r.certificate = describeIssued(obj.certificate, csr);
    }
    r.approver = recognize({ signerName: obj.signerName, usages: obj.usages, username: user }, csr);
    r.approverNote = r.approver.length
      ? `auto-approved if a SubjectAccessReview allows create on ` +
        `certificatesigningrequests/${r.approver.join(" (else /")}${
          r.approver.length > 1 ? ")" : ""
        }`
      : "not a node client CSR: kube-controller-manager ignores it (approve it yourself)";
    r.rejected = r.apiErrors.length > 0 || !r.signerOk || r.status === "Denied" ||
      r.status === "Failed";
  } else {
    const guess = guessSigner(csr);
    if (guess) {
      r.signer = `suits ${guess}`;
      r.signerOk = true;
      const usages = guess === KUBELET_CLIENT_SIGNER
        ? ["digital signature", "client auth"]
        : ["digital signature", "server auth"];
      r.approver = guess === KUBELET_CLIENT_SIGNER
        ? recognize({ signerName: guess, usages, username: user }, csr)
        : [];
      r.approverNote = guess === KUBELET_CLIENT_SIGNER
        ? "as a kube-apiserver-client-kubelet CSR, kube-controller-manager approves it " +
          "after a SubjectAccessReview (nodeclient / selfnodeclient)"
        : "kubelet-serving CSRs are never auto-approved by kube-controller-manager";
    } else {
      r.signer = "not a kubelet client or serving CSR (kube-apiserver-client or a custom signer)";
      r.signerOk = true;
      r.approverNote = "kube-controller-manager would not auto-approve it";
    }
    r.rejected = !r.signatureValid;
  }
  return r;
}

function describeIssued(pem: string, csr: Csr): string {
  try {
    const block = decodePem(pem, "status.certificate").find((b) => b.type === "CERTIFICATE");
    if (!block) return "";
    const c = parseCertificate(block.der);
    const same = c.key.spki.length === csr.key.spki.length &&
      c.key.spki.every((b, i) => b === csr.key.spki[i]);
    return `${formatName(c.subject)}, issued by ${formatName(c.issuer)}, valid ${
      formatRfc3339(c.notBefore)
    } to ${formatRfc3339(c.notAfter)}; ${
      same ? "public key matches the request" : "PUBLIC KEY DIFFERS FROM THE REQUEST"
    }`;
  } catch (e) {
    return `unreadable: ${(e as Error).message}`;
  }
}

function judgeSigner(r: CsrReport, csr: Csr, signerName: string, usages: readonly string[]) {
  if (!signerName.startsWith("kubernetes.io/") && !/^[^/]*\.kubernetes\.io\//.test(signerName)) {
    r.signer = `${signerName || "(none)"} is not a built-in signer: kube-controller-manager ` +
      `never signs it (a custom signer must)`;
    r.signerOk = r.signatureValid;
    return;
  }
  if (!BUILTIN_SIGNERS.includes(signerName)) {
    r.signer = `unrecognized signerName: ${JSON.stringify(signerName)}: nothing will sign it`;
    r.signerOk = false;
    return;
  }
  const refusal = signerValidator(signerName)(csr, usages);
  if (refusal) {
    r.signer = `refused (Failed, SignerValidationFailure): ${refusal}`;
    r.signerOk = false;
  } else if (!r.signatureValid) {
    r.signer = `refused: unable to verify certificate request signature: ${r.signatureError}`;
    r.signerOk = false;
  } else {
    r.signer = `${signerName} would sign it`;
    r.signerOk = true;
  }
}
