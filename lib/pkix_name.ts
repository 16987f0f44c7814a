/**
 * Distinguished names as Go's `crypto/x509/pkix.Name` reads and writes them,
 * on top of `@peculiar/x509`'s `Name` (its ASN.1 `Name` does the DER work).
 *
 * @module
 */

import { AsnConvert } from "@peculiar/asn1-schema";
import * as asn1X509 from "@peculiar/asn1-x509";
import { Buffer } from "node:buffer";
import { x509 } from "./x509.ts";

/** Attribute-type OIDs Go's `pkix.Name` knows, with their short names. */
export const NAME_OIDS = {
  country: "2.5.4.6",
  organization: "2.5.4.10",
  organizationalUnit: "2.5.4.11",
  commonName: "2.5.4.3",
  serialNumber: "2.5.4.5",
  locality: "2.5.4.7",
  province: "2.5.4.8",
  streetAddress: "2.5.4.9",
  postalCode: "2.5.4.17",
} as const;

const SHORT: Record<string, string> = {
  "2.5.4.6": "C",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.3": "CN",
  "2.5.4.5": "SERIALNUMBER",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.17": "POSTALCODE",
  "1.2.840.113549.1.9.1": "emailAddress",
};

/** A distinguished name as Go's `pkix.Name` holds it. */
export interface Name {
  country: string[];
  organization: string[];
  organizationalUnit: string[];
  locality: string[];
  province: string[];
  streetAddress: string[];
  postalCode: string[];
  serialNumber: string;
  commonName: string;
  /** Every attribute, RDN by RDN, as read (for display). */
  rdns: { oid: string; value: string }[][];
}

/** An empty {@link Name}. */
export function emptyName(): Name {
  return {
    country: [],
    organization: [],
    organizationalUnit: [],
    locality: [],
    province: [],
    streetAddress: [],
    postalCode: [],
    serialNumber: "",
    commonName: "",
    rdns: [],
  };
}

/** The text of a string attribute value; `undefined` for a non-string one. */
function attributeText(v: asn1X509.AttributeValue): string | undefined {
  if (v.anyValue) return undefined;
  const s = v.ia5String ?? v.utf8String ?? v.printableString ?? v.teletexString ??
    v.bmpString ?? v.universalString;
  return s ?? "";
}

/**
 * Reads a name (an `x509.Name` or a parsed ASN.1 `Name`) as Go's
 * `FillFromRDNSequence` does; a non-string value shows as `#` + DER hex.
 */
export function nameFromX509(name: x509.Name | asn1X509.Name): Name {
  const asn = name instanceof x509.Name
    ? AsnConvert.parse(name.toArrayBuffer(), asn1X509.Name)
    : name;
  const out = emptyName();
  for (const rdn of asn) {
    const set: { oid: string; value: string }[] = [];
    for (const atv of rdn) {
      const value = attributeText(atv.value);
      if (value === undefined) {
        set.push({
          oid: atv.type,
          value: "#" + Buffer.from(atv.value.anyValue!).toString("hex"),
        });
        continue;
      }
      set.push({ oid: atv.type, value });
      switch (atv.type) {
        case NAME_OIDS.commonName:
          out.commonName = value;
          break;
        case NAME_OIDS.serialNumber:
          out.serialNumber = value;
          break;
        case NAME_OIDS.country:
          out.country.push(value);
          break;
        case NAME_OIDS.locality:
          out.locality.push(value);
          break;
        case NAME_OIDS.province:
          out.province.push(value);
          break;
        case NAME_OIDS.streetAddress:
          out.streetAddress.push(value);
          break;
        case NAME_OIDS.postalCode:
          out.postalCode.push(value);
          break;
        case NAME_OIDS.organization:
          out.organization.push(value);
          break;
        case NAME_OIDS.organizationalUnit:
          out.organizationalUnit.push(value);
          break;
      }
    }
    out.rdns.push(set);
  }
  return out;
}

/** Go's asn1 `isPrintable` for marshalling (`*` allowed, `&` not). */
function isPrintable(s: string): boolean {
  return /^[A-Za-z0-9 '()+,\-./:=?*]*$/.test(s);
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

/** A name as text, most specific first, like Go's `Name.String`: `CN=x,O=y`. */
export function formatName(n: Name): string {
  const esc = (s: string) =>
    s.replace(/([,+"\\<>;])/g, "\\$1").replace(/^([ #])/, "\\$1").replace(/ $/, "\\ ");
  return [...n.rdns].reverse().map((rdn) =>
    rdn.map((a) => `${SHORT[a.oid] ?? a.oid}=${a.value.startsWith("#") ? a.value : esc(a.value)}`)
      .join("+")
  ).join(",");
}
