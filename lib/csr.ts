/**
 * PKCS#10 certificate signing requests: parsing (as Go's
 * `x509.ParseCertificateRequest` reads them), signature checking, creation
 * (as client-go's `cert.MakeCSR`, with `@peculiar/x509`'s
 * `Pkcs10CertificateRequestGenerator`), and the kubelet's deterministic
 * bootstrap CSR object name (`digestedName`).
 *
 * @module
 */

import { CertificationRequest } from "@peculiar/asn1-csr";
import { AsnConvert } from "@peculiar/asn1-schema";
import * as asn1X509 from "@peculiar/asn1-x509";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { readTlv } from "./der.ts";
import { InputError } from "./errors.ts";
import { decodePem, encodePem } from "./pem.ts";
import {
  describeAsnSpki,
  emptyName,
  emptySans,
  EXT,
  type Extension,
  extensionList,
  goName,
  type KeyInfo,
  type Name,
  nameFromX509,
  parseAsn,
  parseSans,
  sanExtension,
  type Sans,
  sansEmpty,
} from "./pkix.ts";
import { checkSignature, readSigAlg, type SigAlg } from "./sigalg.ts";
import { signingAlgorithm } from "./keys.ts";
import { x509 } from "./x509.ts";

const OID_EXTENSION_REQUEST = "1.2.840.113549.1.9.14";

/** A parsed CSR. */
export interface Csr {
  /** The whole DER. */
  der: Uint8Array;
  /** The DER CertificationRequestInfo (what the signature covers). */
  tbs: Uint8Array;
  /** Signature algorithm OID. */
  sigOid: string;
  /** The signature algorithm (OID and WebCrypto parameters). */
  sigAlg: SigAlg;
  /** Signature value. */
  signature: Uint8Array;
  /** Subject, as Go's pkix.Name. */
  subject: Name;
  /** The public key. */
  key: KeyInfo;
  /** subjectAltNames from the extensionRequest. */
  sans: Sans;
  /** Every requested extension. */
  extensions: Extension[];
  /** The parsed SubjectPublicKeyInfo (spares the signer a parse). */
  spkiAsn?: asn1X509.SubjectPublicKeyInfo;
}

/** Go's `ParseCSR` message for anything that is not a PEM CSR. */
export const NOT_A_CSR = "PEM block type must be CERTIFICATE REQUEST";

/**
 * Parses a DER PKCS#10 request. Throws `InputError`s (`x509: malformed …`)
 * without the input's name; callers prefix it.
 */
export function parseCsrDer(der: Uint8Array): Csr {
  try {
    if (readTlv(der, 0).end !== der.length) throw new InputError("trailing data");
    const req = parseAsn(der, CertificationRequest, "certificate request");
    const info = req.certificationRequestInfo;
    if (info.version !== 0) throw new InputError("unsupported certificate request version");
    const extensions: Extension[] = [];
    for (const attr of info.attributes ?? []) {
      if (attr.type !== OID_EXTENSION_REQUEST) continue;
      for (const v of attr.values) {
        const list = parseAsn(new Uint8Array(v), asn1X509.Extensions, "extension request");
        extensions.push(...extensionList(list));
      }
    }
    const sanExt = extensions.find((e) => e.oid === EXT.subjectAltName);
    const sigAlg = readSigAlg(req.signatureAlgorithm);
    return {
      der,
      tbs: new Uint8Array(req.certificationRequestInfoRaw ?? AsnConvert.serialize(info)),
      sigOid: sigAlg.oid,
      sigAlg,
      signature: new Uint8Array(req.signature),
      subject: nameFromX509(info.subject),
      key: describeAsnSpki(
        info.subjectPKInfo,
        new Uint8Array(AsnConvert.serialize(info.subjectPKInfo)),
      ),
      sans: sanExt ? parseSans(sanExt.value) : emptySans(),
      extensions,
      spkiAsn: info.subjectPKInfo,
    };
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`x509: ${e.message}`);
    throw new InputError(`x509: malformed certificate request`);
  }
}

/**
 * Parses the first PEM block of `text`, which must be a `CERTIFICATE REQUEST`
 * (Go's `ParseCSR`), prefixing errors with `source`.
 */
export function parseCsrPem(text: string | Uint8Array, source: string): Csr {
  const s = typeof text === "string" ? text : Buffer.from(text).toString("utf8");
  let blocks;
  try {
    blocks = decodePem(s, source);
  } catch {
    throw new InputError(`${source}: ${NOT_A_CSR}`);
  }
  const b = blocks[0];
  if (!b || b.type !== "CERTIFICATE REQUEST") throw new InputError(`${source}: ${NOT_A_CSR}`);
  try {
    return parseCsrDer(b.der);
  } catch (e) {
    throw new InputError(`${source}: ${(e as Error).message}`);
  }
}

/**
 * Checks the CSR's self-signature. Resolves to `undefined` when valid, else
 * the reason (Go `CheckSignature` style).
 */
export function checkCsrSignature(csr: Csr): Promise<string | undefined> {
  return checkSignature(csr, csr.key);
}

/** What a new CSR carries. */
export interface CsrTemplate {
  commonName: string;
  organization: string[];
  dns?: string[];
  ips?: string[];
}

/** Imports the public half of a key pair for the request generator. */
function publicCryptoKey(privateKey: CryptoKey, spki: Uint8Array): Promise<CryptoKey> {
  const a = privateKey.algorithm as Algorithm & { namedCurve?: string; hash?: Algorithm };
  const params = a.name === "ECDSA"
    ? { name: a.name, namedCurve: a.namedCurve! }
    : a.name === "RSASSA-PKCS1-v1_5"
    ? { name: a.name, hash: a.hash! }
    : { name: a.name };
  return globalThis.crypto.subtle.importKey("spki", spki as BufferSource, params, true, [
    "verify",
  ]);
}

/**
 * Makes a DER PKCS#10 request signed by `privateKey` for the public key
 * `spki`, as client-go's `MakeCSR` does: subject O/CN, SANs (DNS and IP)
 * in an extensionRequest when given, signature algorithm Go's default for
 * the key.
 */
export async function createCsr(
  privateKey: CryptoKey,
  spki: Uint8Array,
  t: CsrTemplate,
): Promise<Uint8Array> {
  const name = new x509.Name(goName({
    ...emptyName(),
    organization: t.organization,
    commonName: t.commonName,
  }));
  const sans: Sans = { ...emptySans(), dns: t.dns ?? [], ips: t.ips ?? [] };
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys: { privateKey, publicKey: await publicCryptoKey(privateKey, spki) },
    signingAlgorithm: signingAlgorithm(privateKey),
    extensions: sansEmpty(sans)
      ? []
      : [new x509.Extension(AsnConvert.serialize(sanExtension(sans, false)))],
  });
  return new Uint8Array(req.rawData);
}

/** PEM of a DER CSR. */
export function csrPem(der: Uint8Array): string {
  return encodePem("CERTIFICATE REQUEST", der);
}

const b64url = (b: Uint8Array | string) =>
  Buffer.from(b).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/**
 * The kubelet's bootstrap CSR name (`digestedName` in
 * `pkg/kubelet/certificate/bootstrap`): `node-csr-` + base64url(SHA-512/256
 * of base64url(SPKI)|base64url(CN)|base64url(each O)|base64url(each usage)|).
 *
 * @example
 * ```ts
 * digestedName(spki, "system:node:node1", ["system:nodes"],
 *   ["digital signature", "key encipherment", "client auth"]);
 * ```
 */
export function digestedName(
  spki: Uint8Array,
  commonName: string,
  organization: readonly string[],
  usages: readonly string[],
): string {
  const h = createHash("sha512-256");
  const enc = (b: Uint8Array | string) => {
    h.update(b64url(b));
    h.update("|");
  };
  enc(spki);
  enc(Buffer.from(commonName, "utf8"));
  for (const o of organization) enc(Buffer.from(o, "utf8"));
  for (const u of usages) enc(Buffer.from(u, "utf8"));
  return "node-csr-" + b64url(new Uint8Array(h.digest()));
}
