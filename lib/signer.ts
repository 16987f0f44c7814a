/**
 * kube-controller-manager's CSR signers, offline: the per-signer request
 * validators (`signer.go`), the lifetime rule (`duration`), the
 * `PermissiveSigningPolicy` (5-minute backdate, 8-hour short-cert rule, CA
 * expiry truncation, usages → KU/EKU, CA bit false, CSR extensions dropped)
 * and `CertificateAuthority.Sign` (CSR signature check, random 128-bit
 * serial, subject and SANs copied). Certificates are made with
 * `@peculiar/x509`'s `X509CertificateGenerator` and signed with WebCrypto.
 *
 * @module
 */

import {
  APISERVER_CLIENT_SIGNER,
  type CsrFacts,
  KUBELET_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  LEGACY_UNKNOWN_SIGNER,
  validAPIServerClientUsages,
  validateKubeletClientCSR,
  validateKubeletServingCSR,
} from "./approver.ts";
import type { Cert } from "./cert_info.ts";
import { checkCsrSignature, type Csr } from "./csr.ts";
import { CheckError, InputError } from "./errors.ts";
import { cryptoRandom, type RandomBytes } from "./random.ts";
import { goName, hex, sanExtension, sansEmpty } from "./pkix.ts";
import { signingAlgorithm } from "./sigalg.ts";
import { ekuOid, keyUsagesFromStrings } from "./usages.ts";
import { x509 } from "./x509.ts";

const MINUTE = 60_000;
/** The signer's backdate. */
export const BACKDATE_MS = 5 * MINUTE;
/** Below this TTL the end is not backdated. */
export const SHORT_MS = 8 * 60 * MINUTE;
/** The lifetime floor ("2x hard coded backdate"). */
export const MIN_DURATION_MS = 10 * MINUTE;
/** `--cluster-signing-duration` default: 8760h. */
export const DEFAULT_SIGNING_DURATION_MS = 8760 * 60 * MINUTE;

/** The four built-in signers, in upstream's table order. */
export const BUILTIN_SIGNERS: readonly string[] = [
  KUBELET_SERVING_SIGNER,
  KUBELET_CLIENT_SIGNER,
  APISERVER_CLIENT_SIGNER,
  LEGACY_UNKNOWN_SIGNER,
];

/** A signer's request validator: the refusal reason, or `undefined`. */
export type Validator = (csr: CsrFacts, usages: readonly string[]) => string | undefined;

/**
 * The validator of a built-in signer. Throws `unrecognized signerName: %q`
 * (as `NewCSRSigningController`) for any other name.
 */
export function signerValidator(signerName: string): Validator {
  switch (signerName) {
    case KUBELET_SERVING_SIGNER:
      return validateKubeletServingCSR;
    case KUBELET_CLIENT_SIGNER:
      return validateKubeletClientCSR;
    case APISERVER_CLIENT_SIGNER:
      return validAPIServerClientUsages;
    case LEGACY_UNKNOWN_SIGNER:
      return () => undefined;
    default:
      throw new CheckError(`unrecognized signerName: ${JSON.stringify(signerName)}`);
  }
}

/**
 * The signer's `duration(expirationSeconds)`: `certTTL` when unset, capped at
 * `certTTL`, floored at 10 minutes.
 *
 * @example
 * ```ts
 * signerDuration(3_600_000, 1800); // 1_800_000
 * ```
 */
export function signerDuration(certTtlMs: number, expirationSeconds?: number): number {
  if (expirationSeconds === undefined || expirationSeconds === null) return certTtlMs;
  const requested = expirationSeconds * 1000;
  if (requested > certTtlMs) return certTtlMs;
  if (requested < MIN_DURATION_MS) return MIN_DURATION_MS;
  return requested;
}

/** Go's `time.Time.String()` for a UTC time: `2006-01-02 15:04:05 +0000 UTC`. */
export function goTimeString(d: Date): string {
  return d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " +0000 UTC");
}

/**
 * `PermissiveSigningPolicy.apply`'s validity window: NotBefore = now−5m;
 * NotAfter = now+ttl (ttl < 8h) or now+ttl−5m; truncated at the CA's NotAfter.
 * Throws upstream's errors when the CA has expired.
 */
export function policyWindow(
  now: Date,
  ttlMs: number,
  signerNotAfter: Date,
): { notBefore: Date; notAfter: Date } {
  const t = now.getTime();
  const notBefore = new Date(t - BACKDATE_MS);
  let notAfter = new Date(ttlMs < SHORT_MS ? t + ttlMs : t + ttlMs - BACKDATE_MS);
  if (notAfter.getTime() >= signerNotAfter.getTime()) notAfter = signerNotAfter;
  if (notBefore.getTime() >= signerNotAfter.getTime()) {
    throw new CheckError(`the signer has expired: NotAfter=${goTimeString(signerNotAfter)}`);
  }
  if (t >= signerNotAfter.getTime()) {
    throw new CheckError(
      `refusing to sign a certificate that expired in the past: NotAfter=${
        goTimeString(signerNotAfter)
      }`,
    );
  }
  return { notBefore, notAfter };
}

/** A CA ready to sign: its parsed certificate, its key and Go's algorithm for it. */
export interface SigningCa {
  cert: Cert;
  key: CryptoKey;
  algorithm: Algorithm & { hash?: string };
  /** The CA's subject, the issuer of what it signs. */
  issuer: x509.Name;
}

/** Wraps a CA certificate and its WebCrypto private key. */
export function signingCa(cert: Cert, privateKey: CryptoKey): SigningCa {
  let algorithm;
  try {
    algorithm = signingAlgorithm(privateKey);
  } catch (e) {
    throw new InputError((e as Error).message);
  }
  return {
    cert,
    key: privateKey,
    algorithm,
    issuer: new x509.Name(cert.subjectDer as BufferSource),
  };
}

/** Whole seconds: X.509 times carry no fraction (Go truncates). */
const wholeSeconds = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

/** One signing request. */
export interface SignRequest {
  csr: Csr;
  usages: readonly string[];
  expirationSeconds?: number | undefined;
  /** `--cluster-signing-duration`, ms. */
  certTtlMs: number;
  now: Date;
  random?: RandomBytes;
  /** Skip the CSR self-signature check (already done by the caller). */
  signatureChecked?: boolean;
}

/**
 * `CertificateAuthority.Sign` with the permissive policy: checks the CSR
 * signature, then issues a DER certificate. Refusals are `CheckError`s with
 * upstream's text.
 */
export async function signCsr(ca: SigningCa, req: SignRequest): Promise<Uint8Array> {
  const { csr, now } = req;
  const ttl = signerDuration(req.certTtlMs, req.expirationSeconds);
  if (!req.signatureChecked) {
    const bad = await checkCsrSignature(csr);
    if (bad) throw new CheckError(`unable to verify certificate request signature: ${bad}`);
  }
  const { keyUsage, extKeyUsage } = keyUsagesFromStrings(req.usages);
  const { notBefore, notAfter } = policyWindow(now, ttl, ca.cert.notAfter);
  const serial = (req.random ?? cryptoRandom)(16);
  const extensions: x509.Extension[] = [];
  if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extKeyUsage.length) {
    extensions.push(new x509.ExtendedKeyUsageExtension(extKeyUsage.map(ekuOid), false));
  }
  extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
  if (ca.cert.subjectKeyId && ca.cert.subjectKeyId.length) {
    extensions.push(new x509.AuthorityKeyIdentifierExtension(hex(ca.cert.subjectKeyId), false));
  }
  const subject = goName(csr.subject);
  if (!sansEmpty(csr.sans)) {
    const subjectEmpty = subject.toArrayBuffer().byteLength === 2;
    extensions.push(sanExtension(csr.sans, subjectEmpty));
  }
  try {
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serialHex(serial),
      subject,
      issuer: ca.issuer,
      notBefore: wholeSeconds(notBefore),
      notAfter: wholeSeconds(notAfter),
      publicKey: csr.key.spki as BufferSource,
      signingKey: ca.key,
      signingAlgorithm: ca.algorithm,
      extensions,
    });
    return new Uint8Array(cert.rawData);
  } catch (e) {
    throw new InputError(`failed to sign certificate: ${(e as Error).message}`);
  }
}

/** Hex of a random serial as Go's `big.Int` holds it: leading zero bytes dropped, at least "00". */
function serialHex(b: Uint8Array): string {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return hex(b.subarray(i));
}

/**
 * Loads a signing CA: the first certificate of `caPem` and the private key
 * of `keyPem`. Refuses (InputError, naming the file) a certificate that is
 * not a CA, and a key that is not the certificate's.
 */
export async function loadSigningCa(
  caPem: string,
  caName: string,
  keyPem: string,
  keyName: string,
): Promise<SigningCa> {
  const { certificatesFromPem } = await import("./certsource.ts");
  const { parseCertificateFrom } = await import("./cert_info.ts");
  const { importPrivateKeyPem, publicKeyMatches } = await import("./keys.ts");
  const der = certificatesFromPem(caPem, caName)[0]!;
  const cert = parseCertificateFrom(der, caName);
  if (cert.basicConstraints?.isCA !== true) {
    throw new InputError(
      `${caName}: certificate is not a CA (basicConstraints CA:FALSE or absent)`,
    );
  }
  const key = await importPrivateKeyPem(keyPem, keyName);
  if (!publicKeyMatches(key.spki, cert.key.spki)) {
    throw new InputError(`${keyName}: private key does not match ${caName}`);
  }
  return signingCa(cert, key.privateKey);
}

/** Default usages for a signer and key type when a bare PEM CSR names none. */
export function defaultUsages(signerName: string, keyType: string): string[] | undefined {
  const rsa = keyType === "RSA";
  switch (signerName) {
    case KUBELET_CLIENT_SIGNER:
    case APISERVER_CLIENT_SIGNER:
      return rsa
        ? ["digital signature", "key encipherment", "client auth"]
        : ["digital signature", "client auth"];
    case KUBELET_SERVING_SIGNER:
      return rsa
        ? ["digital signature", "key encipherment", "server auth"]
        : ["digital signature", "server auth"];
    default:
      return undefined;
  }
}

/**
 * The built-in signer a bare CSR suits, by content (like v1beta1's
 * signerName defaulting): kubelet client, kubelet serving, else undefined.
 */
export function guessSigner(csr: CsrFacts): string | undefined {
  const client = defaultUsages(KUBELET_CLIENT_SIGNER, csr.key.type)!;
  if (validateKubeletClientCSR(csr, client) === undefined) return KUBELET_CLIENT_SIGNER;
  const serving = defaultUsages(KUBELET_SERVING_SIGNER, csr.key.type)!;
  if (validateKubeletServingCSR(csr, serving) === undefined) return KUBELET_SERVING_SIGNER;
  return undefined;
}
