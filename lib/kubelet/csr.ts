/**
 * PKCS#10 certificate signing requests: parsing (a port of Go's
 * `x509.ParseCertificateRequest` and the encoding/asn1 rules it decodes with), signature checking, creation
 * (as client-go's `cert.MakeCSR`, assembled from DER pieces), and the kubelet's deterministic
 * bootstrap CSR object name (`digestedName`).
 *
 * @module
 */

import { AsnConvert } from "@peculiar/asn1-schema";
import type * as asn1X509 from "@peculiar/asn1-x509";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import {
  Asn1Error,
  asn1Syntax,
  GO_PARAMS_TAG,
  goAlgorithmIdentifier,
  type GoElement,
  goField,
  goParseBitString,
  goParseBool,
  goParseGeneralizedTime,
  goParseInt64,
  goParseOid,
  goParseUtcTime,
  goRawValue,
  goSequenceOf,
  latin1,
} from "../pki/der.ts";
import { InputError } from "../base/errors.ts";
import { decodePem, encodePem } from "../pki/pem.ts";
import { sanExtension } from "../pki/pkix_encode.ts";
import { emptySans, EXT, type Extension, goParseSan, type Sans, sansEmpty } from "../pki/pkix.ts";
import {
  goParsePublicKey,
  goPublicKeyAlgorithm,
  type KeyInfo,
  rightAlign,
  unparsedKeyInfo,
} from "../pki/pkix_key.ts";
import {
  decodeBmp,
  decodeT61,
  decodeUtf8,
  emptyName,
  fillName,
  goNameDer,
  isIa5,
  isPrintableByte,
  type Name,
  type NameAttribute,
} from "../pki/pkix_name.ts";
import {
  ecdsaSignatureDer,
  type SigAlg,
  sigAlgFromAi,
  signatureAlgorithmDer,
} from "../pki/sigalg.ts";
import { signingAlgorithm } from "../pki/keys.ts";
import { derOid, derTlv } from "../pki/der_encode.ts";

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
  /** The parsed SubjectPublicKeyInfo (no longer filled: the parser does not use the schema library). */
  spkiAsn?: asn1X509.SubjectPublicKeyInfo;
  /** Go's PublicKeyAlgorithm ("" = unknown: Go's PublicKey is nil). */
  publicKeyAlgorithm: string;
  /** Go's SignatureAlgorithm String(); "" = UnknownSignatureAlgorithm. */
  signatureAlgorithm: string;
}

/** Go's `ParseCSR` message for anything that is not a PEM CSR. */
export const NOT_A_CSR = "PEM block type must be CERTIFICATE REQUEST";

const isPrintableAsn1 = (c: Uint8Array) => c.every(isPrintableByte);

/**
 * encoding/asn1's decoding of an `any` value (Go 1.25): the string for the
 * string types, `undefined` for every other value (BOOLEAN, INTEGER, OID,
 * times, … and unknown types, which Go leaves nil); throws encoding/asn1's
 * error for a malformed value of a type it decodes.
 */
function goAnyValue(b: Uint8Array, e: GoElement): string | undefined {
  if (e.compound || e.cls !== 0) return undefined;
  const c = b.subarray(e.contentStart, e.end);
  switch (e.tag) {
    case 1: // Go 1.24+ (golang/go#68241)
      goParseBool(c);
      return undefined;
    case 19:
      if (!isPrintableAsn1(c)) throw asn1Syntax("PrintableString contains invalid character");
      return latin1(c);
    case 18:
      if (!c.every((x) => (x >= 0x30 && x <= 0x39) || x === 0x20)) {
        throw asn1Syntax("NumericString contains invalid character");
      }
      return latin1(c);
    case 22:
      if (!isIa5(c)) throw asn1Syntax("IA5String contains invalid character");
      return latin1(c);
    case 20:
      return decodeT61(c);
    case 12: {
      const t = decodeUtf8(c);
      if (t === undefined) throw new Asn1Error("asn1: invalid UTF-8 string");
      return t;
    }
    case 2:
      goParseInt64(c);
      return undefined;
    case 3:
      goParseBitString(c);
      return undefined;
    case 6:
      goParseOid(c);
      return undefined;
    case 23:
      goParseUtcTime(c);
      return undefined;
    case 24:
      goParseGeneralizedTime(c);
      return undefined;
    case 30: {
      // Go 1.25's text; Go 1.23 said "pkcs12: odd-length BMP string" for odd lengths.
      const t = decodeBmp(c);
      if (t === undefined) throw new Asn1Error("invalid BMPString");
      return t;
    }
  }
  return undefined;
}

/** `asn1.Unmarshal` into `pkix.RDNSequence`, then `FillFromRDNSequence`. */
function goCsrSubject(b: Uint8Array): Name {
  const seq = goField(b, 0, b.length, { tag: 16, compound: true, what: "RDNSequence" })!;
  const rdns: NameAttribute[][] = [];
  for (const set of goSequenceOf(b, seq.contentStart, seq.end, { tag: 17, compound: true })) {
    const rdn: NameAttribute[] = [];
    const atvs = goSequenceOf(b, set.contentStart, set.end, { tag: 16, compound: true });
    for (const atv of atvs) {
      const o = goField(b, atv.contentStart, atv.end, {
        tag: 6,
        compound: false,
        what: "ObjectIdentifier",
        base: atv.contentStart,
      })!;
      const oid = goParseOid(b.subarray(o.contentStart, o.end));
      const v = goRawValue(b, o.end, atv.end);
      rdn.push({ oid, value: goAnyValue(b, v), der: b.subarray(v.start, v.end) });
    }
    rdns.push(rdn);
  }
  return fillName(rdns);
}

/** `asn1.Unmarshal` into `[]pkix.Extension` (trailing bytes after the list ignored, as Go does). */
function goExtensionList(b: Uint8Array): Extension[] {
  // An unnamed slice type: its reflect Name() is "".
  const seq = goField(b, 0, b.length, { tag: 16, compound: true, what: "" })!;
  const out: Extension[] = [];
  for (const e of goSequenceOf(b, seq.contentStart, seq.end, { tag: 16, compound: true })) {
    const base = e.contentStart;
    const o = goField(b, base, e.end, {
      tag: 6,
      compound: false,
      what: "ObjectIdentifier",
      base,
    })!;
    const oid = goParseOid(b.subarray(o.contentStart, o.end));
    let off = o.end;
    let critical = false;
    const c = goField(b, off, e.end, {
      tag: 1,
      compound: false,
      optional: true,
      what: "bool",
      base,
    });
    if (c) {
      critical = goParseBool(b.subarray(c.contentStart, c.end));
      off = c.end;
    }
    const v = goField(b, off, e.end, { tag: 4, compound: false, what: "", base })!;
    out.push({ oid, critical, value: b.subarray(v.contentStart, v.end) });
  }
  return out;
}

/** Go's `parseCSRExtensions`: only the extensionRequest attribute's first value counts. */
function goCsrExtensions(b: Uint8Array, attrs: GoElement[]): Extension[] {
  const out: Extension[] = [];
  const seen = new Set<string>();
  for (const raw of attrs) {
    let values: GoElement[];
    let id: string;
    try {
      const seq = goField(b, raw.start, raw.end, {
        tag: 16,
        compound: true,
        what: "pkcs10Attribute",
      })!;
      const o = goField(b, seq.contentStart, seq.end, {
        tag: 6,
        compound: false,
        what: "ObjectIdentifier",
      })!;
      id = goParseOid(b.subarray(o.contentStart, o.end));
      const set = goField(b, o.end, seq.end, { tag: 17, compound: true, what: "" })!;
      values = goSequenceOf(b, set.contentStart, set.end, undefined);
    } catch {
      continue; // Go ignores attributes that do not parse
    }
    if (values.length === 0 || id !== OID_EXTENSION_REQUEST) continue;
    const v0 = values[0]!;
    const list = goExtensionList(b.subarray(v0.start, v0.end));
    for (const e of list) {
      if (seen.has(e.oid)) {
        throw new InputError("x509: certificate request contains duplicate requested extensions");
      }
      seen.add(e.oid);
    }
    out.push(...list);
  }
  return out;
}

/**
 * Parses a DER PKCS#10 request exactly as Go 1.25's
 * `x509.ParseCertificateRequest` does (`asn1.Unmarshal` into
 * `certificateRequest`, then the public key, subject and requested
 * extensions). Throws `InputError`s with Go's text, without the input's
 * name; callers prefix it. Error offsets (`@N`) are relative to the slice
 * encoding/asn1 was parsing, as Go's are.
 */
export function parseCsrDer(der: Uint8Array): Csr {
  const b = der;
  const req = goField(b, 0, b.length, { tag: 16, compound: true, what: "certificateRequest" })!;
  const tbsEl = goField(b, req.contentStart, req.end, {
    tag: 16,
    compound: true,
    what: "tbsCertificateRequest",
    base: req.contentStart,
  })!;
  const tb = tbsEl.contentStart;
  const version = goField(b, tb, tbsEl.end, { tag: 2, compound: false, what: "int", base: tb })!;
  goParseInt64(b.subarray(version.contentStart, version.end));
  const subjectEl = goRawValue(b, version.end, tbsEl.end);
  const pki = goField(b, subjectEl.end, tbsEl.end, {
    tag: 16,
    compound: true,
    what: "publicKeyInfo",
    base: tb,
  })!;
  const alg = goAlgorithmIdentifier(
    b,
    pki.contentStart,
    pki.end,
    "AlgorithmIdentifier",
    pki.contentStart,
  );
  const keyBitsEl = goField(b, alg.end, pki.end, {
    tag: 3,
    compound: false,
    what: "BitString",
    base: pki.contentStart,
  })!;
  const keyBits = goParseBitString(b.subarray(keyBitsEl.contentStart, keyBitsEl.end));
  const attrsEl = goField(b, pki.end, tbsEl.end, {
    cls: 2,
    tag: 0,
    compound: true,
    what: "",
    base: tb,
    params: GO_PARAMS_TAG,
  })!;
  const attrs = goSequenceOf(b, attrsEl.contentStart, attrsEl.end, undefined);
  const sigAi = goAlgorithmIdentifier(
    b,
    tbsEl.end,
    req.end,
    "AlgorithmIdentifier",
    req.contentStart,
  );
  const sigEl = goField(b, sigAi.end, req.end, {
    tag: 3,
    compound: false,
    what: "BitString",
    base: req.contentStart,
  })!;
  const sig = goParseBitString(b.subarray(sigEl.contentStart, sigEl.end));
  if (req.end !== b.length) throw asn1Syntax("trailing data");

  const spki = b.subarray(pki.start, pki.end);
  const publicKeyAlgorithm = goPublicKeyAlgorithm(alg.oid);
  const key: KeyInfo = publicKeyAlgorithm === ""
    ? unparsedKeyInfo(alg.oid, spki)
    : goParsePublicKey(alg.oid, alg.params, rightAlign(keyBits.bytes, keyBits.bitLength), spki);
  const subject = goCsrSubject(b.subarray(subjectEl.start, subjectEl.end));
  const extensions = goCsrExtensions(b, attrs);
  let sans = emptySans();
  for (const e of extensions) {
    if (e.oid === EXT.subjectAltName) sans = goParseSan(e.value).sans;
  }
  const sigAlg = sigAlgFromAi(sigAi.oid, sigAi.params);
  return {
    der,
    tbs: b.subarray(tbsEl.start, tbsEl.end),
    sigOid: sigAlg.oid,
    sigAlg,
    signature: rightAlign(sig.bytes, sig.bitLength),
    subject,
    key,
    sans,
    extensions,
    publicKeyAlgorithm,
    signatureAlgorithm: sigAlg.goName ?? "",
  };
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

/** What a new CSR carries. */
export interface CsrTemplate {
  commonName: string;
  organization: string[];
  dns?: string[];
  ips?: string[];
}

/** `INTEGER 0`: the CertificationRequestInfo version (v1). */
const CSR_VERSION = new Uint8Array([0x02, 0x01, 0x00]);

/**
 * Makes a DER PKCS#10 request signed by `privateKey` for the public key
 * `spki`, as client-go's `MakeCSR` does: subject O/CN, SANs (DNS and IP)
 * in an extensionRequest when given (else no attributes), signature
 * algorithm Go's default for the key.
 */
export async function createCsr(
  privateKey: CryptoKey,
  spki: Uint8Array,
  t: CsrTemplate,
): Promise<Uint8Array> {
  const subject = goNameDer({
    ...emptyName(),
    organization: t.organization,
    commonName: t.commonName,
  });
  const sans: Sans = { ...emptySans(), dns: t.dns ?? [], ips: t.ips ?? [] };
  const attributes = sansEmpty(sans) ? [] : [
    derTlv(
      0x30,
      derOid(OID_EXTENSION_REQUEST),
      derTlv(
        0x31,
        derTlv(0x30, new Uint8Array(AsnConvert.serialize(sanExtension(sans, false)))),
      ),
    ),
  ];
  const info = derTlv(0x30, CSR_VERSION, subject, spki, derTlv(0xa0, ...attributes));
  const algorithm = signingAlgorithm(privateKey);
  const raw = new Uint8Array(
    await globalThis.crypto.subtle.sign(algorithm, privateKey, info as BufferSource),
  );
  const signature = algorithm.name === "ECDSA" ? ecdsaSignatureDer(raw) : raw;
  return derTlv(
    0x30,
    info,
    signatureAlgorithmDer(algorithm),
    derTlv(0x03, new Uint8Array([0]), signature),
  );
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
 * ```ts ignore
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
