/**
 * One CSR through kube-controller-manager's signer, as `csr sign` runs it for
 * each object or PEM block of its input: status checks (Denied, Failed,
 * already issued), parsing, the CSR signature, the signer's validator, then
 * signing. Each outcome says what to output and why a CSR was refused.
 *
 * @module
 */

import { checkCsrSignature, type Csr, parseCsrDer } from "./csr.ts";
import {
  approvedCondition,
  failedCondition,
  hasCondition,
  readCsrObject,
  withStatus,
} from "./csr_object.ts";
import { CheckError, InputError, JoinkitError, oneLine, UsageError } from "./errors.ts";
import type { KubeObject } from "./manifest.ts";
import { decodePem, encodePem } from "./pem.ts";
import { defaultUsages, guessSigner, signCsr, signerValidator, type SigningCa } from "./signer.ts";

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
  usages?: readonly string[];
}

/** What became of one object. */
export interface ObjectOutcome {
  /** The object to output: with the certificate, a Failed condition, or unchanged. */
  obj: KubeObject;
  /** The issued certificate PEM, when signed. */
  certPem?: string;
  /** Why it was not signed. */
  error?: JoinkitError;
  /** Signed although not approved (and not approved by `approve`). */
  unapproved?: boolean;
}

function csrFromRequest(request: Uint8Array): Csr {
  const b = decodePem(new TextDecoder().decode(request), "spec.request")[0];
  if (!b || b.type !== "CERTIFICATE REQUEST") {
    throw new InputError("PEM block type must be CERTIFICATE REQUEST");
  }
  return parseCsrDer(b.der);
}

function prefixed(e: unknown, label: string): JoinkitError {
  if (e instanceof JoinkitError) return new JoinkitError(`${label}: ${e.message}`, e.exitCode);
  throw e;
}

/**
 * Judges and signs one CertificateSigningRequest object. Bad input and
 * refusals come back as `error` (never thrown); a signer-validator refusal
 * also adds the signer's `Failed` / `SignerValidationFailure` condition.
 */
export async function signObject(
  obj: KubeObject,
  where: string,
  o: SignOptions,
): Promise<ObjectOutcome> {
  let label = where;
  try {
    const c = readCsrObject(obj, where);
    label = `${where} (${c.name})`;
    if (o.signerName !== undefined && c.signerName !== o.signerName) {
      throw new CheckError(
        `signerName ${JSON.stringify(c.signerName)} is not ${JSON.stringify(o.signerName)}`,
      );
    }
    if (hasCondition(c, "Denied")) throw new CheckError("csr is denied");
    if (hasCondition(c, "Failed")) throw new CheckError("csr has failed");
    if (c.certificate) throw new CheckError("csr already has a certificate");
    const approved = hasCondition(c, "Approved");
    let csr: Csr;
    try {
      csr = csrFromRequest(c.request);
    } catch (e) {
      throw new InputError(`unable to parse csr: ${oneLine(e)}`);
    }
    const validator = signerValidator(c.signerName);
    const bad = await checkCsrSignature(csr);
    if (bad) throw new CheckError(`unable to verify certificate request signature: ${bad}`);
    const refusal = validator(csr, c.usages);
    if (refusal) {
      return {
        obj: withStatus(obj, [failedCondition(o.now, refusal)]),
        error: new CheckError(`${label}: ${refusal}`),
      };
    }
    const der = await signCsr(o.ca, {
      csr,
      usages: c.usages,
      expirationSeconds: c.expirationSeconds,
      certTtlMs: o.ttlMs,
      now: o.now,
      signatureChecked: true,
    });
    const certPem = encodePem("CERTIFICATE", der);
    const addApproval = o.approve === true && !approved;
    return {
      obj: withStatus(obj, addApproval ? [approvedCondition(o.now)] : [], certPem),
      certPem,
      unapproved: !approved && !addApproval,
    };
  } catch (e) {
    return { obj, error: prefixed(e, label) };
  }
}

/**
 * Judges and signs one DER PKCS#10 request. The signer defaults to what the
 * CSR suits (kubelet client or serving), the usages to the kubelet's for the
 * key type. Throws refusals, prefixed with `where`.
 */
export async function signPemCsr(der: Uint8Array, where: string, o: SignOptions): Promise<string> {
  try {
    let csr: Csr;
    try {
      csr = parseCsrDer(der);
    } catch (e) {
      throw new InputError(oneLine(e));
    }
    const signerName = o.signerName ?? guessSigner(csr);
    if (signerName === undefined) {
      throw new UsageError(
        "not a kubelet client or serving CSR; name the signer with --signer-name",
      );
    }
    const usages = o.usages?.length ? o.usages : defaultUsages(signerName, csr.key.type);
    if (usages === undefined) throw new UsageError(`--usages is required for signer ${signerName}`);
    const bad = await checkCsrSignature(csr);
    if (bad) throw new CheckError(`unable to verify certificate request signature: ${bad}`);
    const refusal = signerValidator(signerName)(csr, usages);
    if (refusal) throw new CheckError(refusal);
    const cert = await signCsr(o.ca, {
      csr,
      usages,
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
