/**
 * Test helper: the public facts of a kubeadm `/etc/kubernetes` tree (pki/
 * and the five kubeconfigs), read with `@peculiar/x509` (not joinkit's
 * parser), in a form two trees can be compared by: everything but keys,
 * serial values, signatures and exact times. `tests/fixtures/kubeadm_pki/`
 * holds these facts for trees real kubeadm v1.32.5 wrote.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { Buffer } from "node:buffer";
import { parse as parseYaml } from "yaml";
import { x509 } from "../_x509.ts";

/** The certificate files of the tree, in kubeadm's order. */
export const CERT_FILES = [
  "pki/ca.crt",
  "pki/apiserver.crt",
  "pki/apiserver-kubelet-client.crt",
  "pki/front-proxy-ca.crt",
  "pki/front-proxy-client.crt",
  "pki/etcd/ca.crt",
  "pki/etcd/server.crt",
  "pki/etcd/peer.crt",
  "pki/etcd/healthcheck-client.crt",
  "pki/apiserver-etcd-client.crt",
];

/** The kubeconfig files, in kubeadm's order. */
export const KUBECONFIG_FILES = [
  "admin.conf",
  "super-admin.conf",
  "kubelet.conf",
  "controller-manager.conf",
  "scheduler.conf",
];

const ISSUER_OF: Record<string, string> = {
  "pki/apiserver.crt": "pki/ca.crt",
  "pki/apiserver-kubelet-client.crt": "pki/ca.crt",
  "pki/front-proxy-client.crt": "pki/front-proxy-ca.crt",
  "pki/etcd/server.crt": "pki/etcd/ca.crt",
  "pki/etcd/peer.crt": "pki/etcd/ca.crt",
  "pki/etcd/healthcheck-client.crt": "pki/etcd/ca.crt",
  "pki/apiserver-etcd-client.crt": "pki/etcd/ca.crt",
};

function spkiBits(spki: ArrayBuffer): Buffer {
  // SubjectPublicKeyInfo: SEQUENCE { AlgorithmIdentifier, BIT STRING }.
  const b = Buffer.from(spki);
  const skip = (i: number) => {
    const l = b[i + 1]!;
    return l & 0x80
      ? { start: i + 2 + (l & 0x7f), len: b.readUIntBE(i + 2, l & 0x7f) }
      : { start: i + 2, len: l };
  };
  const outer = skip(0);
  const alg = skip(outer.start);
  const bits = skip(alg.start + alg.len);
  return b.subarray(bits.start + 1, bits.start + bits.len);
}

/** One certificate's comparable facts. */
export function certFacts(pem: string, issuerPem?: string): Record<string, unknown> {
  const c = new x509.X509Certificate(pem);
  const exts = c.extensions.map((e) => ({ oid: e.type, critical: e.critical }));
  const ku = c.getExtension(x509.KeyUsagesExtension);
  const eku = c.getExtension(x509.ExtendedKeyUsageExtension);
  const bc = c.getExtension(x509.BasicConstraintsExtension);
  const san = c.getExtension(x509.SubjectAlternativeNameExtension);
  const ski = c.getExtension(x509.SubjectKeyIdentifierExtension);
  const aki = c.getExtension(x509.AuthorityKeyIdentifierExtension);
  const bits = spkiBits(c.publicKey.rawData);
  const alg = c.publicKey.algorithm as Algorithm & { modulusLength?: number; namedCurve?: string };
  let issuerSki: string | undefined;
  if (issuerPem) {
    issuerSki = new x509.X509Certificate(issuerPem).getExtension(x509.SubjectKeyIdentifierExtension)
      ?.keyId;
  }
  return {
    subject: c.subject,
    // Deterministic bytes: the string types (PrintableString/UTF8String) and SAN encoding.
    subjectDer: Buffer.from(c.subjectName.toArrayBuffer()).toString("hex"),
    sanDer: san ? Buffer.from(san.value).toString("hex") : null,
    issuer: c.issuer,
    selfSigned: c.subject === c.issuer,
    signatureAlgorithm: c.signatureAlgorithm.name +
      ("hash" in c.signatureAlgorithm ? `/${(c.signatureAlgorithm.hash as Algorithm).name}` : ""),
    publicKey: `${alg.name}${alg.modulusLength ? ` ${alg.modulusLength}` : ""}${
      alg.namedCurve ? ` ${alg.namedCurve}` : ""
    }`,
    extensions: exts,
    keyUsage: ku?.usages,
    extKeyUsage: eku?.usages,
    basicConstraints: bc ? { ca: bc.ca, pathLength: bc.pathLength ?? null } : null,
    sans: san ? san.names.items.map((n) => `${n.type}:${n.value}`) : [],
    subjectKeyId: ski
      ? (ski.keyId === createHash("sha1").update(bits).digest("hex") ? "sha1-of-key" : "other")
      : null,
    authorityKeyId: aki ? (aki.keyId === issuerSki ? "issuer-ski" : "other") : null,
    // kubeadm's serials are uniform in [1, 2^63 - 1]: at most 8 bytes of DER content. Judged on the
    // value, not on the hex text the library gives (it may drop the DER's leading zero byte).
    serialBytesAtMost8: BigInt("0x" + (c.serialNumber || "0")) > 0n &&
      BigInt("0x" + (c.serialNumber || "0")) < 1n << 63n,
    validityMinutes: Math.round((c.notAfter.getTime() - c.notBefore.getTime()) / 60_000),
  };
}

function keyMatches(keyPem: string, certPem: string): boolean {
  const c = new x509.X509Certificate(certPem);
  const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: "spki", format: "der" });
  return Buffer.from(c.publicKey.rawData).equals(Buffer.from(fromKey));
}

const pemType = (text: string) => /-----BEGIN ([A-Z ]+)-----/.exec(text)?.[1];

/** Every comparable fact of the tree under `dir`. */
export function treeFacts(dir: string): Record<string, unknown> {
  const read = (f: string) => fs.readFileSync(path.join(dir, f), "utf8");
  const mode = (f: string) => (fs.statSync(path.join(dir, f)).mode & 0o777).toString(8);
  const out: Record<string, unknown> = {};
  for (const f of CERT_FILES) {
    const pem = read(f);
    const key = f.replace(/\.crt$/, ".key");
    const issuer = ISSUER_OF[f];
    out[f] = {
      ...certFacts(pem, issuer ? read(issuer) : undefined),
      mode: mode(f),
      key: {
        file: key,
        mode: mode(key),
        pem: pemType(read(key)),
        matches: keyMatches(read(key), pem),
      },
    };
  }
  const saPub = createPublicKey(read("pki/sa.pub")).export({ type: "spki", format: "der" });
  const saFromKey = createPublicKey(createPrivateKey(read("pki/sa.key"))).export({
    type: "spki",
    format: "der",
  });
  out["pki/sa.key"] = {
    mode: mode("pki/sa.key"),
    pem: pemType(read("pki/sa.key")),
    pubMode: mode("pki/sa.pub"),
    pubPem: pemType(read("pki/sa.pub")),
    matches: Buffer.from(saPub).equals(Buffer.from(saFromKey)),
  };
  const caPem = read("pki/ca.crt");
  const caNotBefore = new x509.X509Certificate(caPem).notBefore.getTime();
  for (const f of KUBECONFIG_FILES) {
    const text = read(f);
    const doc = parseYaml(text) as Record<string, unknown>;
    const users = doc.users as { user: Record<string, string> }[];
    const clusters = doc.clusters as { cluster: Record<string, string> }[];
    const certPem = Buffer.from(users[0]!.user["client-certificate-data"]!, "base64").toString();
    const keyPem = Buffer.from(users[0]!.user["client-key-data"]!, "base64").toString();
    const embeddedCa = Buffer.from(clusters[0]!.cluster["certificate-authority-data"]!, "base64")
      .toString();
    const masked = text.replace(/(-data: )\S+/g, "$1<data>");
    out[f] = {
      mode: mode(f),
      yaml: masked,
      caIsCaCrt: new x509.X509Certificate(embeddedCa).rawData.byteLength > 0 &&
        Buffer.from(new x509.X509Certificate(embeddedCa).rawData).equals(
          Buffer.from(new x509.X509Certificate(caPem).rawData),
        ),
      client: {
        ...certFacts(certPem, caPem),
        notBeforeIsCaNotBefore:
          new x509.X509Certificate(certPem).notBefore.getTime() === caNotBefore,
      },
      clientKey: { pem: pemType(keyPem), matches: keyMatches(keyPem, certPem) },
    };
  }
  return out;
}
