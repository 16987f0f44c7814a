/**
 * kube-controller-manager's CSR signers, offline: the per-signer request
 * validators (`signer.go`), the lifetime rule (`duration`), the
 * `PermissiveSigningPolicy` (5-minute backdate, 8-hour short-cert rule, CA
 * expiry truncation, usages → KU/EKU, CA bit false, CSR extensions dropped)
 * and `CertificateAuthority.Sign` (CSR signature check, random 128-bit
 * serial, subject and SANs copied). Certificates are assembled from DER
 * pieces and signed with `node:crypto` (or WebCrypto).
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
import type { Cert } from "../pki/cert_info.ts";
import type { Csr } from "./csr.ts";
import { checkSignature } from "../pki/x509_signature.ts";
import { CheckError, InputError } from "../base/errors.ts";
import { goQuote } from "../go/quote.ts";
import { cryptoRandom, type RandomBytes } from "../base/random.ts";
import { AsnConvert } from "@peculiar/asn1-schema";
import * as asn1X509 from "@peculiar/asn1-x509";
import { EXT, sansEmpty } from "../pki/pkix.ts";
import { extension, sanExtension } from "../pki/pkix_encode.ts";
import { goNameDer } from "../pki/pkix_name.ts";
import { signingAlgorithm } from "../pki/keys.ts";
import { ekuOid, keyUsagesFromStrings } from "../pki/usages.ts";
import { ecdsaSignatureDer, signatureAlgorithmDer } from "../pki/sigalg.ts";
import { derPositiveInteger, derTime, derTlv } from "../pki/der_encode.ts";
import { type KeyObject, sign as nodeSign } from "node:crypto";

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
      throw new CheckError(`unrecognized signerName: ${goQuote(signerName)}`);
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
  /** The WebCrypto signing algorithm (with the curve for ECDSA). */
  algorithm: Algorithm & { hash?: string; namedCurve?: string };
  /** The CA's subject, the issuer of what it signs. */
  issuer: asn1X509.Name;
  /** The authorityKeyIdentifier extension (from the CA's SKI), if it has one. */
  aki: asn1X509.Extension | undefined;
  /**
   * The same key as a `node:crypto` KeyObject, when there is one: signing is
   * then synchronous, without WebCrypto's per-call round trip.
   */
  nodeKey?: KeyObject | undefined;
  /** DER of the signature AlgorithmIdentifier, `issuer` and `aki`, encoded once for every certificate. */
  der: { algorithmId: Uint8Array; issuer: Uint8Array; aki: Uint8Array | undefined };
}

/** Wraps a CA certificate and its WebCrypto private key. */
export function signingCa(cert: Cert, privateKey: CryptoKey, nodeKey?: KeyObject): SigningCa {
  let algorithm: SigningCa["algorithm"];
  try {
    const curve = (privateKey.algorithm as KeyAlgorithm & { namedCurve?: string }).namedCurve;
    algorithm = { ...signingAlgorithm(privateKey), ...curve ? { namedCurve: curve } : {} };
  } catch (e) {
    throw new InputError((e as Error).message);
  }
  const ski = cert.subjectKeyId;
  let algorithmId: Uint8Array;
  try {
    algorithmId = signatureAlgorithmDer(algorithm);
  } catch (e) {
    throw new InputError((e as Error).message);
  }
  const issuer = AsnConvert.parse(cert.subjectDer as BufferSource, asn1X509.Name);
  const aki = ski && ski.length
    ? extension(
      EXT.authorityKeyId,
      false,
      new asn1X509.AuthorityKeyIdentifier({
        keyIdentifier: new asn1X509.KeyIdentifier(ski as BufferSource),
      }),
    )
    : undefined;
  return {
    cert,
    key: privateKey,
    algorithm,
    issuer,
    aki,
    nodeKey,
    der: {
      algorithmId,
      issuer: serialized(issuer),
      aki: aki && serialized(aki),
    },
  };
}

const serialized = (v: object) => new Uint8Array(AsnConvert.serialize(v));

/** Whole seconds: X.509 times carry no fraction (Go truncates). */
const wholeSeconds = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

const BASIC_CONSTRAINTS = extension(
  EXT.basicConstraints,
  true,
  new asn1X509.BasicConstraints({ cA: false }),
);

const BASIC_CONSTRAINTS_DER = serialized(BASIC_CONSTRAINTS);

const usageCache = new Map<string, Uint8Array[]>();

/** The DER key-usage and EKU extensions for usage strings (cached: a batch repeats them). */
function usageExtensions(usages: readonly string[]): Uint8Array[] {
  const k = usages.join("\n");
  let exts = usageCache.get(k);
  if (!exts) {
    const { keyUsage, extKeyUsage } = keyUsagesFromStrings(usages);
    exts = [];
    if (keyUsage !== 0) {
      exts.push(serialized(extension(EXT.keyUsage, true, new asn1X509.KeyUsage(keyUsage))));
    }
    if (extKeyUsage.length) {
      exts.push(serialized(
        extension(
          EXT.extKeyUsage,
          false,
          new asn1X509.ExtendedKeyUsage(extKeyUsage.map(ekuOid)),
        ),
      ));
    }
    if (usageCache.size > 64) usageCache.clear();
    usageCache.set(k, exts);
  }
  return exts;
}

let lastValidity: { now: number; ttl: number; caEnd: number; der: Uint8Array } | undefined;

/**
 * The DER Validity of `policyWindow` (which throws for an expired CA). A run
 * signs every CSR with one clock and, mostly, one lifetime: the last one is kept.
 */
function validityDer(now: Date, ttl: number, caNotAfter: Date): Uint8Array {
  const key = { now: now.getTime(), ttl, caEnd: caNotAfter.getTime() };
  const last = lastValidity;
  if (last && last.now === key.now && last.ttl === ttl && last.caEnd === key.caEnd) return last.der;
  const { notBefore, notAfter } = policyWindow(now, ttl, caNotAfter);
  const der = derTlv(0x30, derTime(wholeSeconds(notBefore)), derTime(wholeSeconds(notAfter)));
  lastValidity = { ...key, der };
  return der;
}

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
    // CertificateAuthority.Sign: CheckSignature (SHA-1 allowed) before anything else.
    const bad = checkSignature(
      csr.signatureAlgorithm,
      csr.tbs,
      csr.signature,
      csr.publicKeyAlgorithm,
      csr.key.spki,
      true,
    );
    if (bad) throw new CheckError(`unable to verify certificate request signature: ${bad}`);
  }
  const usageExts = usageExtensions(req.usages);
  const validity = validityDer(now, ttl, ca.cert.notAfter);
  const serial = (req.random ?? cryptoRandom)(16);
  const extensions = [...usageExts, BASIC_CONSTRAINTS_DER];
  if (ca.der.aki) extensions.push(ca.der.aki);
  const subject = goNameDer(csr.subject);
  if (!sansEmpty(csr.sans)) {
    // An empty subject (`30 00`) makes the SAN extension critical.
    extensions.push(serialized(sanExtension(csr.sans, subject.length === 2)));
  }
  try {
    // The TBSCertificate, assembled from DER pieces (the schema library's
    // encoder was most of the cost of each certificate).
    const tbs = derTlv(
      0x30,
      V3,
      derPositiveInteger(serial),
      ca.der.algorithmId,
      ca.der.issuer,
      validity,
      subject,
      csr.key.spki,
      derTlv(0xa3, derTlv(0x30, ...extensions)),
    );
    let signature: Uint8Array;
    if (ca.nodeKey) {
      const hash = ca.algorithm.hash?.replace("-", "").toLowerCase() ?? null;
      signature = new Uint8Array(
        nodeSign(
          hash,
          tbs,
          ca.algorithm.name === "ECDSA" ? { key: ca.nodeKey, dsaEncoding: "der" } : ca.nodeKey,
        ),
      );
    } else {
      const raw = await globalThis.crypto.subtle.sign(ca.algorithm, ca.key, tbs as BufferSource);
      signature = ca.algorithm.name === "ECDSA"
        ? ecdsaSignatureDer(new Uint8Array(raw))
        : new Uint8Array(raw);
    }
    return derTlv(0x30, tbs, ca.der.algorithmId, derTlv(0x03, ZERO, signature));
  } catch (e) {
    throw new InputError(`failed to sign certificate: ${(e as Error).message}`);
  }
}

/** `[0] EXPLICIT INTEGER 2`: version v3. */
const V3 = new Uint8Array([0xa0, 0x03, 0x02, 0x01, 0x02]);
const ZERO = new Uint8Array([0]);

/**
 * Loads a signing CA: the certificate of `caPem` that the private key of
 * `keyPem` belongs to, wherever it stands in a bundle (`cat old.crt new.crt`
 * is the natural order during a rotation; with one certificate, that one).
 * Refuses (InputError, naming the file) a key that matches no certificate
 * of the bundle, and a matching certificate that is not a CA.
 */
export async function loadSigningCa(
  caPem: string,
  caName: string,
  keyPem: string,
  keyName: string,
): Promise<SigningCa> {
  const { certificatesFromPem } = await import("../pki/certsource.ts");
  const { parseCertificateFrom } = await import("../pki/cert_info.ts");
  const { importPrivateKeyPem, publicKeyMatches } = await import("../pki/keys.ts");
  const ders = certificatesFromPem(caPem, caName);
  const key = await importPrivateKeyPem(keyPem, keyName);
  const certs = ders.map((der) => parseCertificateFrom(der, caName));
  const cert = certs.find((c) => publicKeyMatches(key.spki, c.key.spki));
  if (cert === undefined) {
    throw new InputError(
      certs.length === 1
        ? `${keyName}: private key does not match ${caName}`
        : `${keyName}: private key matches none of the ${certs.length} certificates of ${caName}`,
    );
  }
  if (cert.basicConstraints?.isCA !== true) {
    throw new InputError(
      `${caName}: ${
        certs.length === 1 ? "certificate" : `certificate ${certs.indexOf(cert) + 1}`
      } is not a CA (basicConstraints CA:FALSE or absent)`,
    );
  }
  return signingCa(cert, key.privateKey, key.keyObject);
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
