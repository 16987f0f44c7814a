/**
 * Test helper: a kubeadm `/etc/kubernetes` tree (pki/, etcd/, kubeconfigs
 * with embedded client certificates) and a kubelet `pki/`, with exact
 * validity dates, made with @peculiar/x509 (not joinkit's signer).
 *
 * @module
 */

import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
let serial = 1;

/** One issued certificate with its key pair. */
export interface Issued {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  pem: string;
  keyPem: string;
}

/** Issues a certificate valid [notBefore, notAfter], self-signed when no issuer. */
export async function issue(
  cn: string,
  notBefore: Date,
  notAfter: Date,
  opts: { issuer?: Issued; ca?: boolean; org?: string } = {},
): Promise<Issued> {
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
  const subject = `CN=${cn}${opts.org ? `, O=${opts.org}` : ""}`;
  const extensions: x509.Extension[] = opts.ca
    ? [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
    ]
    : [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, "0"),
    subject,
    issuer: opts.issuer ? opts.issuer.cert.subject : subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: opts.issuer ? opts.issuer.keys.privateKey : keys.privateKey,
    signingAlgorithm: ALG,
    extensions,
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${
    Buffer.from(pkcs8).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")
  }\n-----END PRIVATE KEY-----\n`;
  return { cert, keys, pem: cert.toString("pem") + "\n", keyPem };
}

/** A kubeconfig embedding `ca` and the client certificate `client`. */
export function certKubeconfig(ca: Issued, client: Issued, user: string): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${b64(ca.pem)}
    server: https://10.0.0.1:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: ${user}
  name: ${user}@kubernetes
current-context: ${user}@kubernetes
kind: Config
preferences: {}
users:
- name: ${user}
  user:
    client-certificate-data: ${b64(client.pem)}
    client-key-data: ${b64(client.keyPem)}
`;
}

const DAY = 86_400_000;

/** The dates the tree uses: CAs 10 y, leaves 1 y from `start`. */
export interface TreeDates {
  start: Date;
  caEnd: Date;
  leafEnd: Date;
}

export function treeDates(start = new Date("2026-01-01T00:00:00Z")): TreeDates {
  return {
    start,
    caEnd: new Date(start.getTime() + 3650 * DAY),
    leafEnd: new Date(start.getTime() + 365 * DAY),
  };
}

/**
 * Writes `<dir>/etc/kubernetes` (full PKI with local etcd and the four
 * kubeconfigs plus kubelet.conf pointing at files) and `<dir>/kubelet/pki`
 * (kubelet-client-current.pem → dated file, kubelet.crt/.key). Returns the roots.
 */
export async function writeKubeadmTree(
  dir: string,
  d: TreeDates = treeDates(),
): Promise<{ etc: string; kubelet: string; ca: Issued }> {
  const etc = path.join(dir, "etc", "kubernetes");
  const pki = path.join(etc, "pki");
  fs.mkdirSync(path.join(pki, "etcd"), { recursive: true });
  const put = (p: string, i: Issued) => {
    fs.writeFileSync(p + ".crt", i.pem);
    fs.writeFileSync(p + ".key", i.keyPem);
  };
  const ca = await issue("kubernetes", d.start, d.caEnd, { ca: true });
  const fp = await issue("front-proxy-ca", d.start, d.caEnd, { ca: true });
  const etcdCa = await issue("etcd-ca", d.start, d.caEnd, { ca: true });
  put(path.join(pki, "ca"), ca);
  put(path.join(pki, "front-proxy-ca"), fp);
  put(path.join(pki, "etcd", "ca"), etcdCa);
  const leaves: [string, Issued][] = [
    ["apiserver", ca],
    ["apiserver-kubelet-client", ca],
    ["front-proxy-client", fp],
    ["apiserver-etcd-client", etcdCa],
    ["etcd/server", etcdCa],
    ["etcd/peer", etcdCa],
    ["etcd/healthcheck-client", etcdCa],
  ];
  for (const [base, issuer] of leaves) {
    put(path.join(pki, base), await issue(base, d.start, d.leafEnd, { issuer }));
  }
  fs.writeFileSync(path.join(pki, "sa.key"), ca.keyPem);
  fs.writeFileSync(
    path.join(pki, "sa.pub"),
    "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",
  );
  for (
    const [file, user] of [
      ["admin.conf", "kubernetes-admin"],
      ["super-admin.conf", "kubernetes-super-admin"],
      ["controller-manager.conf", "system:kube-controller-manager"],
      ["scheduler.conf", "system:kube-scheduler"],
    ]
  ) {
    const client = await issue(user!, d.start, d.leafEnd, { issuer: ca });
    fs.writeFileSync(path.join(etc, file!), certKubeconfig(ca, client, user!));
  }
  fs.writeFileSync(
    path.join(etc, "kubelet.conf"),
    `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${Buffer.from(ca.pem).toString("base64")}
    server: https://10.0.0.1:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: system:node:node-1
  name: system:node:node-1@kubernetes
current-context: system:node:node-1@kubernetes
kind: Config
users:
- name: system:node:node-1
  user:
    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem
    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem
`,
  );
  const kubelet = path.join(dir, "kubelet", "pki");
  fs.mkdirSync(kubelet, { recursive: true });
  const client = await issue("system:node:node-1", d.start, d.leafEnd, {
    issuer: ca,
    org: "system:nodes",
  });
  const dated = path.join(kubelet, "kubelet-client-2026-01-01-00-00-00.pem");
  fs.writeFileSync(dated, client.pem + client.keyPem);
  fs.symlinkSync(path.basename(dated), path.join(kubelet, "kubelet-client-current.pem"));
  const selfCa = await issue("node-1-ca@1767225600", d.start, d.leafEnd, { ca: true });
  const serving = await issue("node-1@1767225600", d.start, d.leafEnd, { issuer: selfCa });
  fs.writeFileSync(path.join(kubelet, "kubelet.crt"), serving.pem + selfCa.pem);
  fs.writeFileSync(path.join(kubelet, "kubelet.key"), serving.keyPem);
  return { etc, kubelet, ca };
}
