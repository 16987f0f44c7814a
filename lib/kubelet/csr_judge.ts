/**
 * The one judgement of a CSR that `csr inspect` reports and `csr sign` acts
 * on, so the two can never disagree. It runs, in the cluster's order,
 * everything between a user and a signed certificate:
 *
 * 1. kube-apiserver's create-time validation
 *    (`ValidateCertificateSigningRequestCreate`: request parse and
 *    signature, usages, signerName, expirationSeconds, conditions,
 *    certificate; all errors collected, reported as the 422 message);
 * 2. the CertificateSubjectRestriction admission plugin (403 message);
 * 3. the object's state as the signer controller sees it (Denied, Failed,
 *    already issued);
 * 4. the built-in signer's request validator (`Failed` /
 *    `SignerValidationFailure`).
 *
 * Only what depends on the CA and the clock (an expired CA) is left to the
 * signing itself. Pure: the caller supplies the request bytes and fields.
 *
 * @module
 */

import { keyStrengthProblem, KUBELET_CLIENT_SIGNER, recognize } from "./approver.ts";
import { type Csr, NOT_A_CSR, parseCsrDer } from "./csr.ts";
import { checkSignature } from "../pki/x509_signature.ts";
import {
  certificateProblem,
  type Condition,
  forbiddenMessage,
  invalid,
  invalidMessage,
  objectNameForErrors,
  subjectRestriction,
  validateCsrCreate,
} from "./csr_validation.ts";
import { oneLine } from "../base/errors.ts";
import { goQuote } from "../go/quote.ts";
import { formatKey } from "../pki/pkix_key.ts";
import { formatName } from "../pki/pkix_name.ts";
import { BUILTIN_SIGNERS, defaultUsages, guessSigner, signerValidator } from "./signer.ts";
import { sigAlgName } from "../pki/sigalg.ts";
import { parseCertificate } from "../pki/cert_info.ts";
import { decodePem } from "../pki/pem.ts";
import { formatRfc3339 } from "../go/time.ts";

/**
 * `CertificateRequest.CheckSignature`: Go's `checkSignature` with SHA-1
 * allowed (Go 1.25: MD5 insecure, unknown or unsupported-PSS algorithms
 * unimplemented, RSA keys below 1024 bits refused by rsa1024min — Go 1.23
 * accepted those — and the FIPS RSA key checks).
 */
export function csrSignatureProblem(csr: Csr): string | undefined {
  return checkSignature(
    csr.signatureAlgorithm,
    csr.tbs,
    csr.signature,
    csr.publicKeyAlgorithm,
    csr.key.spki,
    true,
  );
}

/** One decoder for every request (a TextDecoder keeps no state between whole decodes). */
const UTF8 = new TextDecoder();

/** `spec.request` through `certificates.ParseCSR` and `CheckSignature`. */
export interface RequestCheck {
  /** The parsed request (absent when it does not parse). */
  csr?: Csr;
  /** Why it does not parse (`PEM block type must be CERTIFICATE REQUEST`, x509's reason). */
  parseError?: string;
  /** Why its signature does not verify. */
  signatureError?: string;
}

/**
 * `certificates.ParseCSR` then `CheckSignature` on request bytes: the first
 * PEM block must be a `CERTIFICATE REQUEST`; text around blocks is ignored.
 */
export function checkRequest(request: Uint8Array | string): RequestCheck {
  const text = typeof request === "string" ? request : UTF8.decode(request);
  const first = decodePem(text, "spec.request")[0];
  if (!first || first.type !== "CERTIFICATE REQUEST") return { parseError: NOT_A_CSR };
  let csr: Csr;
  try {
    csr = parseCsrDer(first.der);
  } catch (e) {
    return { parseError: oneLine(e) };
  }
  const signatureError = csrSignatureProblem(csr);
  return signatureError === undefined ? { csr } : { csr, signatureError };
}

/** A CSR as submitted: an object's fields, or a bare PEM CSR with the signer and usages to use. */
export interface Submission {
  /** `metadata.name` ("" when absent). */
  metadataName: string;
  /** `metadata.generateName` ("" when absent). */
  generateName: string;
  /** `spec.request`: the PEM bytes. */
  request: Uint8Array | string;
  signerName: string;
  usages: readonly string[];
  expirationSeconds?: number | undefined;
  conditions: readonly Condition[];
  /** Decoded `status.certificate` ("" when none). */
  certificate: string;
}

/** Where the judgement stopped. */
export type Stage = "filter" | "api" | "admission" | "state" | "signer" | "usage";

/** What `csr sign` will do with a CSR, and why. */
export interface Verdict {
  /** `sign`, `refuse` (exit 3), or `usage` (a bare PEM CSR needs a flag, exit 2). */
  outcome: "sign" | "refuse" | "usage";
  stage?: Stage;
  /** Upstream's reason, one line. */
  reason?: string;
  /** A signer-validator refusal: the message of the `Failed` condition the signer adds. */
  failedCondition?: string;
  /** Signed although not Approved. */
  unapproved?: boolean;
}

/** Everything found while judging, for reports. */
export interface Judgement {
  request: RequestCheck;
  /** kube-apiserver's field errors (empty when valid). */
  apiErrors: string[];
  /** The admission plugin's reason, when it forbids. */
  admission?: string;
  /** `Pending`, `Approved`, `Approved,Issued`, `Denied` or `Failed`. */
  status: string;
  /** The built-in signer's validator refusal. */
  signerRefusal?: string;
  verdict: Verdict;
}

const isTrue = (c: Condition, type: string) =>
  c.type === type && (c.status === "True" || !c.status);

/** The object's state as the signer controller reads its conditions. */
function statusOf(s: Submission): string {
  const has = (t: string) => s.conditions.some((c) => isTrue(c, t));
  return has("Denied")
    ? "Denied"
    : has("Failed")
    ? "Failed"
    : has("Approved")
    ? (s.certificate ? "Approved,Issued" : "Approved")
    : "Pending";
}

/** Options shared by `csr inspect` and `csr sign`. */
export interface JudgeOptions {
  /** Objects: only this signer's CSRs are judged (`--signer-name`). */
  signerFilter?: string | undefined;
}

/** Judges a submission (see the module comment for the order). */
export function judgeSubmission(s: Submission, o: JudgeOptions = {}): Judgement {
  const request = checkRequest(s.request);
  const j: Judgement = {
    request,
    apiErrors: [],
    status: statusOf(s),
    verdict: { outcome: "sign" },
  };
  const refuse = (stage: Stage, reason: string): Judgement => {
    j.verdict = { outcome: "refuse", stage, reason };
    return j;
  };
  if (o.signerFilter !== undefined && s.signerName !== o.signerFilter) {
    return refuse(
      "filter",
      `signerName ${JSON.stringify(s.signerName)} is not ${JSON.stringify(o.signerFilter)}`,
    );
  }
  const name = objectNameForErrors(s.metadataName, s.generateName);
  j.apiErrors = validateCsrCreate({
    metadataName: s.metadataName,
    generateName: s.generateName,
    requestError: request.parseError ?? request.signatureError,
    signerName: s.signerName,
    usages: s.usages,
    expirationSeconds: s.expirationSeconds,
    conditions: s.conditions,
    certificate: s.certificate,
  });
  if (j.apiErrors.length) return refuse("api", invalidMessage(name, j.apiErrors));
  const csr = request.csr!;
  const forbidden = subjectRestriction(s.signerName, { organization: csr.subject.organization });
  if (forbidden) {
    j.admission = forbidden;
    return refuse("admission", forbiddenMessage(name, forbidden));
  }
  if (j.status === "Denied") return refuse("state", "csr is denied");
  if (j.status === "Failed") return refuse("state", "csr has failed");
  if (s.certificate) return refuse("state", "csr already has a certificate");
  if (!BUILTIN_SIGNERS.includes(s.signerName)) {
    // NewCSRSigningController's refusal: kube-controller-manager has no such signer.
    return refuse("signer", `unrecognized signerName: ${goQuote(s.signerName)}`);
  }
  const refusal = signerValidator(s.signerName)(csr, s.usages);
  if (refusal) {
    j.signerRefusal = refusal;
    j.verdict = { outcome: "refuse", stage: "signer", reason: refusal, failedCondition: refusal };
    return j;
  }
  j.verdict = { outcome: "sign", unapproved: j.status !== "Approved" };
  return j;
}

/** What a bare PEM CSR is submitted with: flags, else what its content suits. */
export interface PemChoice {
  signerName?: string | undefined;
  usages?: readonly string[] | undefined;
}

/**
 * Judges one bare PEM CSR (`request`: the PEM text that would be posted) as
 * the object `csr sign` would treat it as: `generateName: csr-`, the signer
 * from `--signer-name` or what the content suits (kubelet client or
 * serving), the usages from `--usages` or the kubelet's for the key type.
 * Without a signer or usages the outcome is `usage`, unless the request
 * itself is already invalid. Returns the signer and usages chosen.
 */
export function judgePem(
  request: Uint8Array | string,
  choice: PemChoice,
): { judgement: Judgement; signerName?: string; usages?: readonly string[] } {
  const check = checkRequest(request);
  const base: Submission = {
    metadataName: "",
    generateName: "csr-",
    request,
    signerName: "",
    usages: [],
    conditions: [],
    certificate: "",
  };
  const signerName = choice.signerName ??
    (check.csr && !check.signatureError ? guessSigner(check.csr) : undefined);
  const usages = choice.usages?.length
    ? choice.usages
    : signerName !== undefined && check.csr
    ? defaultUsages(signerName, check.csr.key.type)
    : undefined;
  if (signerName === undefined || usages === undefined) {
    const requestError = check.parseError ?? check.signatureError;
    if (requestError !== undefined) {
      // The request's own error comes first; the missing signer would be a usage problem.
      const apiErrors = [invalid("spec.request", "<request data>", requestError)];
      return {
        judgement: {
          request: check,
          apiErrors,
          status: "Pending",
          verdict: { outcome: "refuse", stage: "api", reason: invalidMessage("csr-", apiErrors) },
        },
      };
    }
    const reason = signerName === undefined
      ? "not a kubelet client or serving CSR; name the signer with --signer-name"
      : `--usages is required for signer ${signerName}`;
    return {
      judgement: {
        request: check,
        apiErrors: [],
        status: "Pending",
        verdict: { outcome: "usage", stage: "usage", reason },
      },
      ...(signerName !== undefined ? { signerName } : {}),
    };
  }
  const judgement = judgeSubmission({ ...base, signerName, usages });
  // A bare CSR has no approval to wait for: signing it is the user's approval.
  if (judgement.verdict.outcome === "sign") judgement.verdict = { outcome: "sign" };
  return { judgement, signerName, usages };
}

/** The report `csr inspect` prints for one CSR. */
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
  /** Why `spec.request` does not parse (the rest of the CSR fields are then empty). */
  parseError?: string;
  signerName?: string;
  usages?: string[];
  expirationSeconds?: number | null;
  requester?: string;
  status?: string;
  /** kube-apiserver validation errors. */
  apiErrors: string[];
  /** The admission plugin's reason, when it forbids. */
  admission?: string;
  /** The signer's verdict, in words. */
  signer: string;
  signerOk: boolean;
  /** Recognizers that match (`selfnodeclient`, `nodeclient`), empty when ignored. */
  approver: string[];
  approverNote: string;
  weakKey?: string;
  /** The issued certificate in `status.certificate`, summarized. */
  certificate?: string;
  /** What `csr sign` would do: the shared verdict. */
  verdict: Verdict;
  /** Whether `csr sign` would refuse it (exit 3). */
  rejected: boolean;
}

function baseReport(source: string, name: string, j: Judgement, user: string | undefined) {
  const csr = j.request.csr;
  const r: CsrReport = {
    source,
    name,
    subject: csr ? formatName(csr.subject) : "",
    commonName: csr?.subject.commonName ?? "",
    organization: csr?.subject.organization ?? [],
    dnsNames: csr?.sans.dns ?? [],
    ipAddresses: csr?.sans.ips ?? [],
    emailAddresses: csr?.sans.emails ?? [],
    uris: csr?.sans.uris ?? [],
    key: csr ? formatKey(csr.key) : "",
    keyType: csr?.key.type ?? "",
    keyBits: csr?.key.bits ?? 0,
    signatureAlgorithm: csr ? sigAlgName(csr.sigAlg) : "",
    signatureValid: csr !== undefined && j.request.signatureError === undefined,
    apiErrors: j.apiErrors,
    signer: "",
    signerOk: false,
    approver: [],
    approverNote: "",
    verdict: j.verdict,
    rejected: j.verdict.outcome === "refuse",
  };
  if (j.request.parseError !== undefined) r.parseError = j.request.parseError;
  if (j.request.signatureError !== undefined) r.signatureError = j.request.signatureError;
  if (j.admission) r.admission = j.admission;
  if (csr) {
    const weak = keyStrengthProblem(csr.key);
    if (weak) r.weakKey = weak;
  }
  if (user !== undefined) r.requester = user;
  return r;
}

function describeSigner(r: CsrReport, j: Judgement, signerName: string) {
  const v = j.verdict;
  if (v.outcome === "sign") {
    r.signer = `${signerName} would sign it`;
    r.signerOk = true;
  } else if (v.stage === "signer") {
    r.signer = v.failedCondition !== undefined
      ? `refused (Failed, SignerValidationFailure): ${v.failedCondition}`
      : `${v.reason}: kube-controller-manager has no such signer (a custom signer must sign it)`;
  } else if (v.stage === "usage") {
    r.signer = v.reason ?? "";
  } else {
    r.signer = `not reached: ${v.stage === "state" ? v.reason : `refused by the API server`}`;
  }
}

function describeApprover(r: CsrReport, j: Judgement, signerName: string, usages: string[]) {
  const csr = j.request.csr;
  if (!csr) {
    r.approverNote = "unparseable: kube-controller-manager ignores it";
    return;
  }
  r.approver = recognize({ signerName, usages, username: r.requester }, csr);
  r.approverNote = r.approver.length
    ? `auto-approved if a SubjectAccessReview allows create on ` +
      `certificatesigningrequests/${r.approver.join(" (else /")}${r.approver.length > 1 ? ")" : ""}`
    : signerName === KUBELET_CLIENT_SIGNER
    ? "not a node client CSR: kube-controller-manager ignores it (approve it yourself)"
    : `${signerName || "this signer"} CSRs are never auto-approved by kube-controller-manager`;
}

/**
 * Judges a CSR object for `csr inspect` (the same judgement `csr sign`
 * acts on). `requester` overrides `spec.username` for the approver.
 */
export function judgeObject(
  s: Submission & { username?: string | undefined },
  source: string,
  displayName: string,
  requester: string | undefined,
  o: JudgeOptions = {},
): CsrReport {
  const j = judgeSubmission(s, o);
  const r = baseReport(source, displayName, j, requester ?? s.username);
  r.signerName = s.signerName;
  r.usages = [...s.usages];
  r.expirationSeconds = s.expirationSeconds ?? null;
  r.status = j.status;
  describeSigner(r, j, s.signerName);
  if (s.certificate && certificateProblem(s.certificate) === undefined && j.request.csr) {
    r.certificate = describeIssued(s.certificate, j.request.csr);
  }
  describeApprover(r, j, s.signerName, [...s.usages]);
  return r;
}

/** Judges a bare PEM CSR for `csr inspect` (the same judgement `csr sign` acts on). */
export function judgePemReport(
  request: Uint8Array | string,
  source: string,
  choice: PemChoice,
  requester: string | undefined,
): CsrReport {
  const { judgement: j, signerName, usages } = judgePem(request, choice);
  const r = baseReport(source, "", j, requester);
  if (signerName !== undefined) {
    r.signerName = signerName;
    r.usages = [...usages ?? []];
  }
  describeSigner(r, j, signerName ?? "");
  if (j.verdict.outcome === "usage" && signerName === undefined) {
    r.signer = "not a kubelet client or serving CSR (kube-apiserver-client or a custom signer): " +
      "csr sign needs --signer-name";
  }
  describeApprover(r, j, signerName ?? "", [...usages ?? []]);
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
