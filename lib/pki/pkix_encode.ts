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

import { Buffer } from "node:buffer";
import { AsnConvert, OctetString } from "@peculiar/asn1-schema";
import * as asn1X509 from "@peculiar/asn1-x509";
import { InputError } from "../base/errors.ts";
import { EXT, formatIp, parseIp, type Sans } from "./pkix.ts";
import { isPrintable, type Name, NAME_OIDS } from "./pkix_name.ts";

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
 * Builds a name as Go's `Name.ToRDNSequence` + `asn1.Marshal` do: C, ST, L,
 * STREET, POSTALCODE, O, OU, CN, SERIALNUMBER, several values of one type in
 * one multi-valued RDN (a DER SET, so sorted by encoding), each value a
 * PrintableString when it can be, else a UTF8String; other attributes are
 * dropped.
 */
export function goName(n: Pick<Name, Exclude<keyof Name, "rdns">>): asn1X509.Name {
  const asn = new asn1X509.Name();
  const add = (values: string[], type: string) => {
    if (values.length === 0) return;
    const atvs = values.map((v) =>
      new asn1X509.AttributeTypeAndValue({
        type,
        value: new asn1X509.AttributeValue(
          isPrintable(v) ? { printableString: v } : { utf8String: v },
        ),
      })
    );
    if (atvs.length > 1) {
      const keyed = atvs.map((a) => ({ a, der: Buffer.from(AsnConvert.serialize(a)) }));
      keyed.sort((x, y) => Buffer.compare(x.der, y.der));
      atvs.splice(0, atvs.length, ...keyed.map((k) => k.a));
    }
    asn.push(new asn1X509.RelativeDistinguishedName(atvs));
  };
  add(n.country, NAME_OIDS.country);
  add(n.province, NAME_OIDS.province);
  add(n.locality, NAME_OIDS.locality);
  add(n.streetAddress, NAME_OIDS.streetAddress);
  add(n.postalCode, NAME_OIDS.postalCode);
  add(n.organization, NAME_OIDS.organization);
  add(n.organizationalUnit, NAME_OIDS.organizationalUnit);
  if (n.commonName) add([n.commonName], NAME_OIDS.commonName);
  if (n.serialNumber) add([n.serialNumber], NAME_OIDS.serialNumber);
  return asn;
}
