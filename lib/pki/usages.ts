/**
 * `certificates.k8s.io` key-usage strings: the 23 values the API accepts,
 * their mapping to X.509 key-usage bits and extended-key-usage OIDs (the
 * signer's `keyUsagesFromStrings` in `authority/policies.go`), and the usages
 * the kubelet requests for each key type.
 *
 * @module
 */

import { CheckError } from "../base/errors.ts";
import { goQuoteStrings } from "../go/quote.ts";

/** Go's `x509.KeyUsage` bits. */
export const KU = {
  DigitalSignature: 1 << 0,
  ContentCommitment: 1 << 1,
  KeyEncipherment: 1 << 2,
  DataEncipherment: 1 << 3,
  KeyAgreement: 1 << 4,
  CertSign: 1 << 5,
  CRLSign: 1 << 6,
  EncipherOnly: 1 << 7,
  DecipherOnly: 1 << 8,
} as const;

/** Key-usage bit names, bit 0 first, as Go and openssl name them. */
export const KU_NAMES: readonly string[] = [
  "DigitalSignature",
  "ContentCommitment",
  "KeyEncipherment",
  "DataEncipherment",
  "KeyAgreement",
  "CertSign",
  "CRLSign",
  "EncipherOnly",
  "DecipherOnly",
];

/** Go's `x509.ExtKeyUsage` values, in enum order, with their OIDs. */
export const EKUS: readonly { name: string; oid: string }[] = [
  { name: "Any", oid: "2.5.29.37.0" },
  { name: "ServerAuth", oid: "1.3.6.1.5.5.7.3.1" },
  { name: "ClientAuth", oid: "1.3.6.1.5.5.7.3.2" },
  { name: "CodeSigning", oid: "1.3.6.1.5.5.7.3.3" },
  { name: "EmailProtection", oid: "1.3.6.1.5.5.7.3.4" },
  { name: "IPSECEndSystem", oid: "1.3.6.1.5.5.7.3.5" },
  { name: "IPSECTunnel", oid: "1.3.6.1.5.5.7.3.6" },
  { name: "IPSECUser", oid: "1.3.6.1.5.5.7.3.7" },
  { name: "TimeStamping", oid: "1.3.6.1.5.5.7.3.8" },
  { name: "OCSPSigning", oid: "1.3.6.1.5.5.7.3.9" },
  { name: "MicrosoftServerGatedCrypto", oid: "1.3.6.1.4.1.311.10.3.3" },
  { name: "NetscapeServerGatedCrypto", oid: "2.16.840.1.113730.4.1" },
  { name: "MicrosoftCommercialCodeSigning", oid: "1.3.6.1.4.1.311.2.1.22" },
  { name: "MicrosoftKernelCodeSigning", oid: "1.3.6.1.4.1.311.61.1.1" },
];

/** EKU name of an OID (Go's enum name), or the OID itself. */
export function ekuName(oid: string): string {
  return EKUS.find((e) => e.oid === oid)?.name ?? oid;
}

/** Usage string → key-usage bit (policies.go `keyUsageDict`). */
export const KEY_USAGE_STRINGS: Readonly<Record<string, number>> = {
  "signing": KU.DigitalSignature,
  "digital signature": KU.DigitalSignature,
  "content commitment": KU.ContentCommitment,
  "key encipherment": KU.KeyEncipherment,
  "key agreement": KU.KeyAgreement,
  "data encipherment": KU.DataEncipherment,
  "cert sign": KU.CertSign,
  "crl sign": KU.CRLSign,
  "encipher only": KU.EncipherOnly,
  "decipher only": KU.DecipherOnly,
};

/** Usage string → extended key usage name (policies.go `extKeyUsageDict`). */
export const EXT_KEY_USAGE_STRINGS: Readonly<Record<string, string>> = {
  "any": "Any",
  "server auth": "ServerAuth",
  "client auth": "ClientAuth",
  "code signing": "CodeSigning",
  "email protection": "EmailProtection",
  "s/mime": "EmailProtection",
  "ipsec end system": "IPSECEndSystem",
  "ipsec tunnel": "IPSECTunnel",
  "ipsec user": "IPSECUser",
  "timestamping": "TimeStamping",
  "ocsp signing": "OCSPSigning",
  "microsoft sgc": "MicrosoftServerGatedCrypto",
  "netscape sgc": "NetscapeServerGatedCrypto",
};

/** The 23 usage values `certificates.k8s.io/v1` accepts, in upstream order. */
export const ALLOWED_USAGES: readonly string[] = [
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
];

/** Key usage and extended key usages for a list of usage strings. */
export interface X509Usages {
  /** Go `x509.KeyUsage` bit mask. */
  keyUsage: number;
  /** EKU names, deduplicated and in Go's enum order. */
  extKeyUsage: string[];
}

/**
 * The signer's `keyUsagesFromStrings`: OR of the key-usage bits, EKUs
 * deduplicated and sorted by Go's enum value. Throws with upstream's
 * `unrecognized usage values: %q` for unknown strings.
 *
 * @example
 * ```ts
 * keyUsagesFromStrings(["digital signature", "client auth"]);
 * // { keyUsage: 1, extKeyUsage: ["ClientAuth"] }
 * ```
 */
export function keyUsagesFromStrings(usages: readonly string[]): X509Usages {
  let keyUsage = 0;
  const ekus = new Set<string>();
  const unknown: string[] = [];
  for (const u of usages) {
    if (u in KEY_USAGE_STRINGS) keyUsage |= KEY_USAGE_STRINGS[u]!;
    else if (u in EXT_KEY_USAGE_STRINGS) ekus.add(EXT_KEY_USAGE_STRINGS[u]!);
    else unknown.push(u);
  }
  if (unknown.length > 0) {
    throw new CheckError(`unrecognized usage values: ${goQuoteStrings(unknown)}`);
  }
  const order = EKUS.map((e) => e.name);
  const extKeyUsage = [...ekus].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { keyUsage, extKeyUsage };
}

/** Names of the bits set in a Go key-usage mask. */
export function keyUsageNames(ku: number): string[] {
  return KU_NAMES.filter((_, i) => (ku & (1 << i)) !== 0);
}

/** The OID of an EKU name. */
export function ekuOid(name: string): string {
  const e = EKUS.find((x) => x.name === name);
  if (!e) throw new Error(`unknown extended key usage ${name}`);
  return e.oid;
}

/** Whether a key type is RSA (the kubelet adds `key encipherment` only then). */
function isRsa(keyType: string): boolean {
  return keyType.toUpperCase().startsWith("RSA");
}

/**
 * The usages the kubelet's certificate manager requests
 * (`DefaultKubeletClientGetUsages` / `DefaultKubeletServingGetUsages`):
 * `key encipherment` only for RSA keys.
 *
 * @example
 * ```ts
 * kubeletUsages("client", "ecdsa-p256"); // ["digital signature", "client auth"]
 * ```
 */
export function kubeletUsages(kind: "client" | "serving", keyType: string): string[] {
  const last = kind === "client" ? "client auth" : "server auth";
  return isRsa(keyType)
    ? ["digital signature", "key encipherment", last]
    : ["digital signature", last];
}

/** The usages of the kubelet's initial bootstrap CSR: always the RSA-style set. */
export const BOOTSTRAP_CLIENT_USAGES: readonly string[] = [
  "digital signature",
  "key encipherment",
  "client auth",
];
