/**
 * The certificates kubeadm's `pkiutil.NewSignedCert` and
 * `NewSelfSignedCACert` make, as Go 1.23's `x509.CreateCertificate` (the Go
 * kubeadm v1.32 is built with) encodes them: subject O then CN (PrintableString
 * when possible), extensions in Go's order — keyUsage (critical),
 * extKeyUsage, basicConstraints (critical), subjectKeyIdentifier (CAs only,
 * SHA-1 of the public key bits), authorityKeyIdentifier (the issuer's SKI,
 * unless self-signed), subjectAltName (DNS then IP) — assembled from DER
 * pieces (`der_encode.ts`) and signed with `node:crypto` (`ca.ts` `signing`).
 *
 * @module
 */

import { createHash, type KeyObject, sign as nodeSign } from "node:crypto";
import { Buffer } from "node:buffer";
import { children, readTlv, tlvContent } from "./der.ts";
import { derOid, derPositiveInteger, derTime, derTlv } from "./der_encode.ts";
import { signing } from "./ca.ts";
import { emptyName, goNameDer } from "./pkix_name.ts";
import { parseIp } from "./pkix.ts";
import { InputError } from "../base/errors.ts";

/** An extended key usage kubeadm writes. */
export type KubeadmExtKeyUsage = "serverAuth" | "clientAuth";

const EKU_OIDS: Record<KubeadmExtKeyUsage, string> = {
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/** What one certificate says (kubeadm's `CertConfig` plus the draws). */
export interface CertTemplate {
  /** Serial number, hex (`randomSerialHex` in ca.ts). */
  serialHex: string;
  commonName: string;
  organization: readonly string[];
  /** Whole seconds. */
  notBefore: Date;
  /** Whole seconds. */
  notAfter: Date;
  /** The subject's DER SubjectPublicKeyInfo. */
  spki: Uint8Array;
  /** A CA: keyCertSign, CA:TRUE, a subject key identifier. */
  isCA: boolean;
  /** Extended key usages in order (none for CAs). */
  extKeyUsages: readonly KubeadmExtKeyUsage[];
  /** DNS SANs, already in kubeadm's order. */
  dns: readonly string[];
  /** IP SANs (text), already in kubeadm's order. */
  ips: readonly string[];
}

/** Who signs: the issuer's subject (DER), its SKI when it has one, and its key. */
export interface CertIssuer {
  subjectDer: Uint8Array;
  subjectKeyId: Uint8Array | undefined;
  privateKey: KeyObject;
}

/**
 * Go's (≤ 1.24) subject key identifier for a CA template without one: SHA-1
 * of the subjectPublicKey BIT STRING contents (RFC 5280 method 1).
 */
export function goSubjectKeyId(spki: Uint8Array): Uint8Array {
  const parts = children(spki, readTlv(spki, 0));
  const bits = tlvContent(spki, parts[1]!).subarray(1); // skip the unused-bits octet
  return new Uint8Array(createHash("sha1").update(bits).digest());
}

/** The subject (and issuer) name DER kubeadm's templates give: O values, then CN. */
export function kubeadmNameDer(commonName: string, organization: readonly string[]): Uint8Array {
  return goNameDer({ ...emptyName(), commonName, organization: [...organization] });
}

const V3 = new Uint8Array([0xa0, 0x03, 0x02, 0x01, 0x02]);
const BOOL_TRUE = new Uint8Array([0x01, 0x01, 0xff]);
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function extension(oid: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical
    ? derTlv(0x30, derOid(oid), BOOL_TRUE, derTlv(0x04, value))
    : derTlv(0x30, derOid(oid), derTlv(0x04, value));
}

/** The subjectAltName value: DNS names ([2] IA5String), then IPs ([7], IPv4 as 4 bytes). */
export function sanValueDer(dns: readonly string[], ips: readonly string[]): Uint8Array {
  const names: Uint8Array[] = [];
  for (const d of dns) {
    if (/[\u0080-\uffff]/.test(d)) {
      throw new InputError(`x509: ${JSON.stringify(d)} cannot be encoded as an IA5String`);
    }
    names.push(derTlv(0x82, ascii(d)));
  }
  for (const ip of ips) {
    const b = parseIp(ip);
    if (!b) throw new InputError(`invalid IP address ${JSON.stringify(ip)}`);
    names.push(derTlv(0x87, b));
  }
  return derTlv(0x30, ...names);
}

/**
 * A certificate (DER) for `t`, signed by `issuer`, or self-signed with
 * `t`'s own key when `issuer` is `{ self: KeyObject }` (kubeadm's CAs).
 *
 * @example
 * ```ts ignore
 * const der = createCertificateDer(template, { subjectDer, subjectKeyId, privateKey: caKey });
 * ```
 */
export function createCertificateDer(
  t: CertTemplate,
  issuer: CertIssuer | { self: KeyObject },
): Uint8Array {
  const subject = kubeadmNameDer(t.commonName, t.organization);
  const selfSigned = "self" in issuer;
  const issuerDer = selfSigned ? subject : issuer.subjectDer;
  const signer = selfSigned ? issuer.self : issuer.privateKey;
  const { hash, ecdsa, algorithmId } = signing(signer);
  const exts: Uint8Array[] = [
    // digitalSignature | keyEncipherment (| keyCertSign).
    extension(
      "2.5.29.15",
      true,
      t.isCA ? new Uint8Array([0x03, 0x02, 0x02, 0xa4]) : new Uint8Array([0x03, 0x02, 0x05, 0xa0]),
    ),
  ];
  if (t.extKeyUsages.length) {
    exts.push(
      extension(
        "2.5.29.37",
        false,
        derTlv(0x30, ...t.extKeyUsages.map((u) => derOid(EKU_OIDS[u]))),
      ),
    );
  }
  exts.push(extension("2.5.29.19", true, t.isCA ? derTlv(0x30, BOOL_TRUE) : derTlv(0x30)));
  if (t.isCA) exts.push(extension("2.5.29.14", false, derTlv(0x04, goSubjectKeyId(t.spki))));
  // Go: the parent's SKI as AKI, unless the issuer and subject names are the same bytes.
  const aki = selfSigned ? undefined : issuer.subjectKeyId;
  if (aki && aki.length && !Buffer.from(issuerDer).equals(Buffer.from(subject))) {
    exts.push(extension("2.5.29.35", false, derTlv(0x30, derTlv(0x80, aki))));
  }
  if (t.dns.length || t.ips.length) {
    // An empty subject would make it critical; kubeadm's subjects always have a CN.
    exts.push(extension("2.5.29.17", subject.length === 2, sanValueDer(t.dns, t.ips)));
  }
  const serial = Buffer.from(t.serialHex.length % 2 ? "0" + t.serialHex : t.serialHex, "hex");
  const tbs = derTlv(
    0x30,
    V3,
    derPositiveInteger(serial),
    algorithmId,
    issuerDer,
    derTlv(0x30, derTime(t.notBefore), derTime(t.notAfter)),
    subject,
    t.spki,
    derTlv(0xa3, derTlv(0x30, ...exts)),
  );
  const signature = new Uint8Array(
    nodeSign(hash, tbs, ecdsa ? { key: signer, dsaEncoding: "der" } : signer),
  );
  return derTlv(0x30, tbs, algorithmId, derTlv(0x03, new Uint8Array([0]), signature));
}
