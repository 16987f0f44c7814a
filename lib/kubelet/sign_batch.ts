/**
 * One CSR through kube-controller-manager's signer, as `csr sign` runs it for
 * each object or PEM block of its input: status checks (Denied, Failed,
 * already issued), parsing, the CSR signature, the signer's validator, then
 * signing. As the controller, only Approved objects are signed (or those the
 * run approves: `approve`). Each outcome says what to output and why a CSR
 * was refused.
 *
 * @module
 */

import { judgePem, judgeSubmission, type Submission, type Verdict } from "./csr_judge.ts";
import {
  approvedCondition,
  type CsrObject,
  failedCondition,
  readCsrObject,
  withStatus,
} from "./csr_object.ts";
import { CheckError, InputError, JoinkitError, UsageError } from "../base/errors.ts";
import type { KubeObject } from "../k8s/manifest.ts";
import { decodePem, encodePem, type PemBlock } from "../pki/pem.ts";
import { signCsr, type SigningCa } from "./signer.ts";

/** How to sign. */
export interface SignOptions {
  ca: SigningCa;
  /** `--cluster-signing-duration`, ms. */
  ttlMs: number;
  now: Date;
  /** Add kubectl's Approved condition to unapproved objects. */
  approve?: boolean;
  /** Objects: only this signer's CSRs; PEM: the signer to use. */
  signerName?: string | undefined;
  /** PEM: the usages to use. */
  usages?: readonly string[] | undefined;
}

/** What became of one object. */
export interface ObjectOutcome {
  /** The object to output: with the certificate, a Failed condition, or unchanged. */
  obj: KubeObject;
  /** The issued certificate PEM, when signed. */
  certPem?: string;
  /** Why it was not signed. */
  error?: JoinkitError;
}

/**
 * The refusal of an object without the Approved condition that the run did
 * not approve: kube-controller-manager's signer ignores such an object
 * (`IsCertificateRequestApproved`), so it stays as it is, unsigned.
 */
export const NOT_APPROVED =
  "csr is not approved: kube-controller-manager signs only Approved CSRs " +
  "(--approve, or --approve --policy FILE, approves it in the same run)";

function prefixed(e: unknown, label: string): JoinkitError {
  if (e instanceof JoinkitError) return new JoinkitError(`${label}: ${e.message}`, e.exitCode);
  throw e;
}

/** An object's fields as the judgement reads them. */
export function submissionOf(c: CsrObject): Submission {
  return {
    metadataName: c.metadataName,
    generateName: c.generateName,
    request: c.request,
    signerName: c.signerName,
    usages: c.usages,
    expirationSeconds: c.expirationSeconds,
    conditions: c.conditions,
    certificate: c.certificate,
  };
}

/** The error a refusing verdict is reported with. */
function refusal(v: Verdict): JoinkitError {
  return v.outcome === "usage" ? new UsageError(v.reason!) : new CheckError(v.reason!);
}

/**
 * Judges (`judgeSubmission`, the judgement `csr inspect` reports) and signs
 * one CertificateSigningRequest object. Bad input and refusals come back as
 * `error` (never thrown); a signer-validator refusal also adds the signer's
 * `Failed` / `SignerValidationFailure` condition. Objects the API server
 * would not have stored come back unchanged.
 */
export async function signObject(
  obj: KubeObject,
  where: string,
  o: SignOptions,
): Promise<ObjectOutcome> {
  let c: CsrObject;
  try {
    c = readCsrObject(obj, where); // its refusals already name `where`
  } catch (e) {
    if (e instanceof JoinkitError) return { obj, error: e };
    throw e;
  }
  const label = `${where} (${c.name})`;
  try {
    const j = await judgeSubmission(submissionOf(c), { signerFilter: o.signerName });
    const v = j.verdict;
    // The controller's order: an unapproved object is ignored before the signer's validator
    // could add a Failed condition (signer.go handle()). Denied and Failed are refused above.
    if (
      j.status === "Pending" && o.approve !== true &&
      (v.outcome === "sign" || v.stage === "signer")
    ) {
      return { obj, error: new CheckError(`${label}: ${NOT_APPROVED}`) };
    }
    if (v.outcome !== "sign") {
      const error = new CheckError(`${label}: ${v.reason}`);
      if (v.failedCondition !== undefined) {
        // Approved by this run, then failed by the signer: both conditions, in that order.
        const approved = o.approve === true && j.status === "Pending"
          ? [approvedCondition(o.now)]
          : [];
        return {
          obj: withStatus(obj, [...approved, failedCondition(o.now, v.failedCondition)]),
          error,
        };
      }
      return { obj, error };
    }
    const der = await signCsr(o.ca, {
      csr: j.request.csr!,
      usages: c.usages,
      expirationSeconds: c.expirationSeconds,
      certTtlMs: o.ttlMs,
      now: o.now,
      signatureChecked: true,
    });
    const certPem = encodePem("CERTIFICATE", der);
    const addApproval = o.approve === true && v.unapproved === true;
    return {
      obj: withStatus(obj, addApproval ? [approvedCondition(o.now)] : [], certPem),
      certPem,
    };
  } catch (e) {
    return { obj, error: prefixed(e, label) };
  }
}

/**
 * The requests a PEM file holds, as `csr sign` and `csr inspect` split it:
 * when its first block is not a `CERTIFICATE REQUEST`, the whole file is one
 * request (which `ParseCSR` refuses, as the API server would); otherwise
 * each `CERTIFICATE REQUEST` block is a request of its own (other blocks
 * are ignored, as `ParseCSR` ignores what follows the first). A file with
 * no CSR block at all is not a CSR file (InputError).
 */
export function pemRequests(text: string, source: string): string[] {
  const blocks: PemBlock[] = decodePem(text, source);
  const csrs = blocks.filter((b) => b.type === "CERTIFICATE REQUEST");
  if (csrs.length === 0) {
    throw new InputError(`${source}: PEM block type must be CERTIFICATE REQUEST`);
  }
  if (blocks[0]!.type !== "CERTIFICATE REQUEST") return [text];
  return csrs.map((b) => encodePem(b.type, b.der));
}

/**
 * Judges (`judgePem`, the judgement `csr inspect` reports) and signs one
 * bare PEM CSR. The signer defaults to what the CSR suits (kubelet client or
 * serving), the usages to the kubelet's for the key type. Throws refusals,
 * prefixed with `where`.
 */
export async function signPemCsr(request: string, where: string, o: SignOptions): Promise<string> {
  try {
    const { judgement: j, usages } = await judgePem(request, {
      signerName: o.signerName,
      usages: o.usages,
    });
    if (j.verdict.outcome !== "sign") throw refusal(j.verdict);
    const cert = await signCsr(o.ca, {
      csr: j.request.csr!,
      usages: usages!,
      certTtlMs: o.ttlMs,
      now: o.now,
      signatureChecked: true,
    });
    return encodePem("CERTIFICATE", cert);
  } catch (e) {
    throw prefixed(e, where);
  }
}

/**
 * Maps `items` through the async `fn` with at most `limit` calls in flight,
 * resolving to the settled results in input order. Lets WebCrypto's
 * signing and verifying (off the main thread) overlap the parsing of the
 * next items.
 */
export async function mapOrdered<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { status: "fulfilled", value: await fn(items[i]!, i) };
      } catch (reason) {
        out[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
