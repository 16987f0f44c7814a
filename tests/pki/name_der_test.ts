/**
 * goNameDer() against the schema library's encoding of goName(): the same
 * bytes for every name (printable and UTF-8 values, multi-valued RDNs).
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { AsnConvert } from "@peculiar/asn1-schema";
import { emptyName, goNameDer } from "../../lib/pki/pkix_name.ts";
import { goName } from "../../lib/pki/pkix_encode.ts";

const VALUES = ["", "a", "system:nodes", "x&y", "é", "ü*", "Zz 9'()+,-./:=?", "日本", "a\u0000b"];

Deno.test("goNameDer() gives the bytes of serialising goName() for 5,000 names", () => {
  let seed = 1;
  const r = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const some = () =>
    Array.from({ length: Math.floor(r() * 3) }, () => VALUES[Math.floor(r() * VALUES.length)]!);
  for (let i = 0; i < 5000; i++) {
    const n = {
      ...emptyName(),
      country: some(),
      province: some(),
      locality: some(),
      streetAddress: some(),
      postalCode: some(),
      organization: some(),
      organizationalUnit: some(),
      commonName: r() < 0.8 ? VALUES[Math.floor(r() * VALUES.length)]! : "",
      serialNumber: r() < 0.3 ? VALUES[Math.floor(r() * VALUES.length)]! : "",
    };
    const want = Buffer.from(AsnConvert.serialize(goName(n))).toString("hex");
    assert.equal(Buffer.from(goNameDer(n)).toString("hex"), want, JSON.stringify(n));
  }
});
