/**
 * The X.509 pieces joinkit builds with `@peculiar/asn1-x509` objects (a
 * subject name, the subjectAltName and other extensions of the CSRs it makes
 * and the certificates it signs), kept apart from the readers in `pkix.ts`
 * and `pkix_name.ts` so that reading needs no ASN.1 schema objects. (The
 * parse path still loads the library through `pkix_key.ts` and `sigalg.ts`;
 * that start-up cost is noted in docs/performance.md.)
 *
 * @module
 */

import { AsnConvert, OctetString } from "@peculiar/asn1-schema";
import * as asn1X509 from "@peculiar/asn1-x509";
import { InputError } from "../base/errors.ts";
import { EXT, formatIp, parseIp, type Sans } from "./pkix.ts";
import { goNameDer, type Name } from "./pkix_name.ts";

/**
 * The subjectAltName extension for `s` as Go's `marshalSANs` writes it: DNS,
 * email, IP (IPv4 as 4 bytes), URI.
 */
export function sanExtension(s: Sans, critical: boolean): asn1X509.Extension {
  const names: asn1X509.GeneralName[] = [];
  for (const d of s.dns) names.push(new asn1X509.GeneralName({ dNSName: d }));
  for (const e of s.emails) names.push(new asn1X509.GeneralName({ rfc822Name: e }));
  for (const ip of s.ips) {
    const b = parseIp(ip);
    if (!b) throw new InputError(`invalid IP address ${JSON.stringify(ip)}`);
    names.push(new asn1X509.GeneralName({ iPAddress: formatIp(b) }));
  }
  for (const u of s.uris) {
    names.push(new asn1X509.GeneralName({ uniformResourceIdentifier: u }));
  }
  return extension(EXT.subjectAltName, critical, new asn1X509.SubjectAlternativeName(names));
}

/** One extension whose value is the DER of the ASN.1 object `value`. */
export function extension(oid: string, critical: boolean, value: object): asn1X509.Extension {
  return new asn1X509.Extension({
    extnID: oid,
    critical,
    extnValue: new OctetString(AsnConvert.serialize(value)),
  });
}

/**
 * The subject name as an `@peculiar/asn1-x509` object, for the builders
 * that take one: {@link goNameDer}'s bytes (Go's `ToRDNSequence` +
 * `asn1.Marshal` order and string types) read back, so the order and the
 * string choice are written once.
 */
export function goName(n: Pick<Name, Exclude<keyof Name, "rdns">>): asn1X509.Name {
  return AsnConvert.parse(goNameDer(n) as BufferSource, asn1X509.Name);
}
