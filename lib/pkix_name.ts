/**
 * Distinguished names as Go's `crypto/x509/pkix.Name` reads and writes them.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { children, DerError, type Tlv, tlvBytes, tlvContent } from "./der.ts";
import { goString, oid, readOid, readString, seq, setOf } from "./der_build.ts";

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

const STRING_TAGS = new Set([0x0c, 0x13, 0x16, 0x14, 0x1e, 0x1c, 0x12, 0x1a]);

/** Parses a DER Name (RDNSequence) as Go's `FillFromRDNSequence` does. */
export function parseName(buf: Uint8Array, name: Tlv): Name {
  const out = emptyName();
  for (const rdn of children(buf, name)) {
    if (rdn.tag !== 0x31) throw new DerError("malformed RDN");
    const set: { oid: string; value: string }[] = [];
    for (const atv of children(buf, rdn)) {
      const [t, v] = children(buf, atv);
      if (!t || !v || t.tag !== 0x06) throw new DerError("malformed attribute");
      const type = readOid(tlvContent(buf, t));
      if (!STRING_TAGS.has(v.tag)) {
        set.push({ oid: type, value: "#" + Buffer.from(tlvBytes(buf, v)).toString("hex") });
        continue;
      }
      const value = readString(v.tag, tlvContent(buf, v));
      set.push({ oid: type, value });
      switch (type) {
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

/**
 * Encodes a name as Go's `Name.ToRDNSequence` + `asn1.Marshal` do: C, ST, L,
 * STREET, POSTALCODE, O, OU, CN, SERIALNUMBER, several values of one type in
 * one multi-valued RDN; other attributes are dropped.
 */
export function encodeName(n: Pick<Name, Exclude<keyof Name, "rdns">>): Uint8Array {
  const rdns: Uint8Array[] = [];
  const add = (values: string[], type: string) => {
    if (values.length === 0) return;
    rdns.push(setOf(...values.map((v) => seq(oid(type), goString(v)))));
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
  return seq(...rdns);
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
