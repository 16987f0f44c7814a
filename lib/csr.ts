/**
 * PKCS#10 certificate signing requests: parsing (as Go's
 * `x509.ParseCertificateRequest` reads them), signature checking, creation
 * (as client-go's `cert.MakeCSR`), and the kubelet's deterministic bootstrap
 * CSR object name (`digestedName`).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { children, DerError, readTlv, tlvBytes, tlvContent } from "./der.ts";
import { oid, readOid, seq, setOf, smallInt, tlv } from "./der_build.ts";
import { InputError } from "./errors.ts";
import { decodePem, encodePem } from "./pem.ts";
import {
  describeSpki,
  emptySans,
  encodeExtension,
  encodeName,
  encodeSans,
  EXT,
  type Extension,
  type KeyInfo,
  type Name,
  parseExtensions,
  parseName,
  parseSans,
  type Sans,
  sansEmpty,
} from "./pkix.ts";
import { algorithmOid, checkSignature, makeSigner, signStructure } from "./sigalg.ts";

const OID_EXTENSION_REQUEST = "1.2.840.113549.1.9.14";

/** A parsed CSR. */
export interface Csr {
  /** The whole DER. */
  der: Uint8Array;
  /** The DER CertificationRequestInfo (what the signature covers). */
  tbs: Uint8Array;
  /** Signature algorithm OID. */
  sigOid: string;
  /** The DER AlgorithmIdentifier of the signature (parameters included). */
  sigAlgId: Uint8Array;
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
}

/** Go's `ParseCSR` message for anything that is not a PEM CSR. */
export const NOT_A_CSR = "PEM block type must be CERTIFICATE REQUEST";

/**
 * Parses a DER PKCS#10 request. Throws `InputError`s (`x509: malformed …`)
 * without the input's name; callers prefix it.
 */
export function parseCsrDer(der: Uint8Array): Csr {
  try {
    const top = readTlv(der, 0);
    if (top.tag !== 0x30 || top.end !== der.length) {
      throw new DerError("malformed certificate request");
    }
    const [info, sigAlg, sig] = children(der, top);
    if (!info || !sigAlg || !sig || info.tag !== 0x30 || sigAlg.tag !== 0x30 || sig.tag !== 0x03) {
      throw new DerError("malformed certificate request");
    }
    const f = children(der, info);
    const [version, subject, spki, attrs] = f;
    if (
      !version || version.tag !== 0x02 || !subject || subject.tag !== 0x30 || !spki ||
      spki.tag !== 0x30
    ) {
      throw new DerError("malformed certificate request info");
    }
    const v = tlvContent(der, version);
    if (v.length !== 1 || v[0] !== 0) throw new DerError("unsupported certificate request version");
    const extensions: Extension[] = [];
    if (attrs) {
      if (attrs.tag !== 0xa0) throw new DerError("malformed certificate request attributes");
      for (const attr of children(der, attrs)) {
        const [type, values] = children(der, attr);
        if (!type || type.tag !== 0x06 || !values || values.tag !== 0x31) {
          throw new DerError("malformed certificate request attribute");
        }
        if (readOid(tlvContent(der, type)) !== OID_EXTENSION_REQUEST) continue;
        for (const list of children(der, values)) {
          if (list.tag !== 0x30) throw new DerError("malformed extension request");
          extensions.push(...parseExtensions(der, list));
        }
      }
    }
    const sanExt = extensions.find((e) => e.oid === EXT.subjectAltName);
    const sigBits = tlvContent(der, sig);
    return {
      der,
      tbs: tlvBytes(der, info),
      sigOid: algorithmOid(tlvBytes(der, sigAlg)),
      sigAlgId: tlvBytes(der, sigAlg),
      signature: sigBits.subarray(1),
      subject: parseName(der, subject),
      key: describeSpki(tlvBytes(der, spki)),
      sans: sanExt ? parseSans(sanExt.value) : emptySans(),
      extensions,
    };
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`x509: ${e.message}`);
    throw e;
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
  return checkSignature(csr.sigOid, csr.tbs, csr.signature, csr.key.spki, csr.sigAlgId);
}

/** What a new CSR carries. */
export interface CsrTemplate {
  commonName: string;
  organization: string[];
  dns?: string[];
  ips?: string[];
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
  const name = encodeName({
    country: [],
    province: [],
    locality: [],
    streetAddress: [],
    postalCode: [],
    organization: t.organization,
    organizationalUnit: [],
    commonName: t.commonName,
    serialNumber: "",
  });
  const sans: Sans = { ...emptySans(), dns: t.dns ?? [], ips: t.ips ?? [] };
  let attrs = tlv(0xa0);
  if (!sansEmpty(sans)) {
    const ext = encodeExtension(EXT.subjectAltName, false, encodeSans(sans));
    attrs = tlv(0xa0, seq(oid(OID_EXTENSION_REQUEST), setOf(seq(ext))));
  }
  const info = seq(smallInt(0), name, spki, attrs);
  return await signStructure(makeSigner(privateKey), info);
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
