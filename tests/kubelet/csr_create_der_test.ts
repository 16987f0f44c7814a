/**
 * createCsr() builds the PKCS#10 request from DER pieces (issue 13: no
 * `@peculiar/x509` outside tests). Held byte for byte to the library's
 * `Pkcs10CertificateRequestGenerator`, the path it replaced (kept here only):
 * the whole request for the deterministic signatures (RSA PKCS #1 v1.5,
 * Ed25519), the signed part and the algorithm for ECDSA, whose signature
 * must verify.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { AsnConvert } from "@peculiar/asn1-schema";
import { createCsr, type CsrTemplate, parseCsrDer } from "../../lib/kubelet/csr.ts";
import { csrSignatureProblem } from "../../lib/kubelet/csr_judge.ts";
import { exportSpki, generateKeyPair, type KeyType, signingAlgorithm } from "../../lib/pki/keys.ts";
import { emptySans, type Sans, sansEmpty } from "../../lib/pki/pkix.ts";
import { goName, sanExtension } from "../../lib/pki/pkix_encode.ts";
import { emptyName } from "../../lib/pki/pkix_name.ts";
import { children, readTlv, type Tlv } from "../../lib/pki/der.ts";
import { x509 } from "../_x509.ts";

/** The replaced createCsr, verbatim but for names. */
async function libraryCsr(
  privateKey: CryptoKey,
  spki: Uint8Array,
  t: CsrTemplate,
): Promise<Uint8Array> {
  const a = privateKey.algorithm as Algorithm & { namedCurve?: string; hash?: Algorithm };
  const params = a.name === "ECDSA"
    ? { name: a.name, namedCurve: a.namedCurve! }
    : a.name === "RSASSA-PKCS1-v1_5"
    ? { name: a.name, hash: a.hash! }
    : { name: a.name };
  const publicKey = await crypto.subtle.importKey("spki", spki as BufferSource, params, true, [
    "verify",
  ]);
  const name = new x509.Name(goName({
    ...emptyName(),
    organization: t.organization,
    commonName: t.commonName,
  }));
  const sans: Sans = { ...emptySans(), dns: t.dns ?? [], ips: t.ips ?? [] };
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys: { privateKey, publicKey },
    signingAlgorithm: signingAlgorithm(privateKey),
    extensions: sansEmpty(sans)
      ? []
      : [new x509.Extension(AsnConvert.serialize(sanExtension(sans, false)))],
  });
  return new Uint8Array(req.rawData);
}

/** A request's three parts, as hex: CertificationRequestInfo, algorithm, signature BIT STRING. */
function parts(der: Uint8Array): string[] {
  const outer = readTlv(der, 0);
  assert.equal(outer.end, der.length);
  const hex = (t: Tlv) => Buffer.from(der.subarray(t.start, t.end)).toString("hex");
  return children(der, outer).map(hex);
}

const TEMPLATES: [string, CsrTemplate][] = [
  ["client (no SANs)", { commonName: "system:node:w1", organization: ["system:nodes"] }],
  ["serving (DNS and IPs)", {
    commonName: "system:node:w1",
    organization: ["system:nodes"],
    dns: ["w1.example", "w1"],
    ips: ["10.0.0.1", "fd00::1"],
  }],
  ["UTF-8 CN, two O, one IP", {
    commonName: "nœud*1",
    organization: ["system:nodes", "b&c"],
    ips: ["192.168.0.9"],
  }],
  ["empty subject", { commonName: "", organization: [] }],
];

const TYPES: KeyType[] = ["rsa-2048", "ed25519", "ecdsa-p256", "ecdsa-p384"];

for (const type of TYPES) {
  Deno.test(`createCsr() ${type}: the same request the replaced library generator made`, async () => {
    const kp = await generateKeyPair(type);
    const spki = await exportSpki(kp.publicKey);
    for (const [what, t] of TEMPLATES) {
      const got = await createCsr(kp.privateKey, spki, t);
      const want = await libraryCsr(kp.privateKey, spki, t);
      if (type.startsWith("ecdsa")) {
        const g = parts(got), w = parts(want);
        assert.equal(g.length, 3);
        assert.equal(g[0], w[0], `${what}: CertificationRequestInfo`);
        assert.equal(g[1], w[1], `${what}: signature algorithm`);
      } else {
        assert.equal(
          Buffer.from(got).toString("hex"),
          Buffer.from(want).toString("hex"),
          what,
        );
      }
      const csr = parseCsrDer(got);
      assert.equal(csrSignatureProblem(csr), undefined, what);
      assert.deepEqual(csr.key.spki, spki);
    }
  });
}
