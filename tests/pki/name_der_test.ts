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

/**
 * Go 1.23's `asn1.Marshal(pkix.Name{CommonName: v, Organization: []string{v, "system:nodes"},
 * Country: []string{v}}.ToRDNSequence())` for each v (as kube-controller-manager's signer writes
 * a CSR's subject into the certificate): a PrintableString only when every character is in the
 * set without `*` and `&`, else a UTF8String.
 */
const GO_NAMES: [string, string][] = [
  [
    "*.example.com",
    "305d3116301406035504060c0d2a2e6578616d706c652e636f6d312b3013060355040a130c73797374656d3a6e6f6465733014060355040a0c0d2a2e6578616d706c652e636f6d3116301406035504030c0d2a2e6578616d706c652e636f6d",
  ],
  [
    "a&b",
    "303f310c300a06035504060c036126623121300a060355040a0c036126623013060355040a130c73797374656d3a6e6f646573310c300a06035504030c03612662",
  ],
  [
    "a_b",
    "303f310c300a06035504060c03615f623121300a060355040a0c03615f623013060355040a130c73797374656d3a6e6f646573310c300a06035504030c03615f62",
  ],
  [
    "plain",
    "3045310e300c06035504061305706c61696e3123300c060355040a1305706c61696e3013060355040a130c73797374656d3a6e6f646573310e300c06035504031305706c61696e",
  ],
  [
    "Zz 9'()+,-./:=?",
    "3063311830160603550406130f5a7a20392728292b2c2d2e2f3a3d3f312d3013060355040a130c73797374656d3a6e6f6465733016060355040a130f5a7a20392728292b2c2d2e2f3a3d3f311830160603550403130f5a7a20392728292b2c2d2e2f3a3d3f",
  ],
  [
    "é",
    "303c310b300906035504060c02c3a931203009060355040a0c02c3a93013060355040a130c73797374656d3a6e6f646573310b300906035504030c02c3a9",
  ],
  [
    "a\u0000b",
    "303f310c300a06035504060c036100623121300a060355040a0c036100623013060355040a130c73797374656d3a6e6f646573310c300a06035504030c03610062",
  ],
  [
    "x*",
    "303c310b300906035504060c02782a31203009060355040a0c02782a3013060355040a130c73797374656d3a6e6f646573310b300906035504030c02782a",
  ],
  [
    "@",
    "3039310a300806035504060c0140311f3008060355040a0c01403013060355040a130c73797374656d3a6e6f646573310a300806035504030c0140",
  ],
  [
    "system:node:n1",
    "3060311730150603550406130e73797374656d3a6e6f64653a6e31312c3013060355040a130c73797374656d3a6e6f6465733015060355040a130e73797374656d3a6e6f64653a6e31311730150603550403130e73797374656d3a6e6f64653a6e31",
  ],
  [
    "tab\there",
    "304e3111300f06035504060c0874616209686572653126300f060355040a0c0874616209686572653013060355040a130c73797374656d3a6e6f6465733111300f06035504030c087461620968657265",
  ],
  [
    "ü*",
    "303f310c300a06035504060c03c3bc2a3121300a060355040a0c03c3bc2a3013060355040a130c73797374656d3a6e6f646573310c300a06035504030c03c3bc2a",
  ],
];

for (const [v, want] of GO_NAMES) {
  Deno.test(`goNameDer() writes ${JSON.stringify(v)} as Go's asn1.Marshal does`, () => {
    const n = { ...emptyName(), commonName: v, organization: [v, "system:nodes"], country: [v] };
    assert.equal(Buffer.from(goNameDer(n)).toString("hex"), want);
  });
}
