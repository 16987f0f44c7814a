/**
 * `kubeadm certs renew`, offline (`cmd/kubeadm/app/cmd/certs.go`
 * `getRenewSubCommands`/`renewCert`; `phases/certs/renewal/manager.go`
 * `RenewUsingLocalCA`, `certToConfig`; `readwriter.go`): each certificate
 * is made again from the one on disk — its CN, O, DNS and IP SANs and
 * extended key usages are kept, nothing is recomputed from the
 * configuration — with a NEW private key of the configuration's
 * `encryptionAlgorithm` (`pkiutil.NewCertAndKey`: kubeadm does not reuse
 * the old key), a new serial, NotBefore = now − 5 min and NotAfter = now +
 * `certificateValidityPeriod`, signed by the CA on disk. The four
 * kubeconfigs get a new client certificate and key and the current
 * `ca.crt` as their CA; everything else in them is kept. CAs, `sa.*` and
 * `kubelet.conf` are not renewed (the kubelet rotates its own). A CA whose
 * key is absent (external CA) cannot renew: kubeadm prints `Detected
 * external ca, … can't be renewed`; joinkit refuses with that text.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { KeyObject } from "node:crypto";
import { InputError, messageOf } from "../base/errors.ts";
import type { RandomBytes } from "../base/random.ts";
import { kubeconfigYaml } from "../k8s/kubeconfig_yaml.ts";
import { randomSerialHex } from "../pki/ca.ts";
import type { Cert } from "../pki/cert_info.ts";
import { generateKeyObject, keyObjectPem, keyObjectSpki } from "../pki/keys.ts";
import { encodePem } from "../pki/pem.ts";
import { createCertificateDer, type KubeadmExtKeyUsage } from "../pki/signed_cert.ts";
import {
  CERT_BACKDATE_MS,
  certList,
  type ControlPlanePkiSpec,
  type EncryptionAlgorithm,
  keyTypeOf,
} from "./certlist.ts";
import { ENCRYPTION_ALGORITHMS } from "../kubeadm/validation.ts";
import { loadPrivateKey, type PkiFile } from "./certs.ts";
import { caSpec, dataField, EKU_OID, kubeconfigParts, pemCerts, UX_NAMES } from "./pki_check.ts";

/** One certificate `certs renew` handles (`CertificateRenewHandler`). */
export interface RenewHandler {
  /** The sub-command name: `apiserver`, `etcd-server`, `admin.conf`, … */
  name: string;
  /** kubeadm's `LongName`, printed in its lines. */
  longName: string;
  /** `pki/<base>.crt` or the kubeconfig's file name. */
  file: string;
  /** The signing CA's base name (`ca`, `front-proxy-ca`, `etcd/ca`). */
  caBaseName: string;
  /** The CA's cert-list name (`ca`, `front-proxy-ca`, `etcd-ca`). */
  caName: string;
  kubeconfig: boolean;
}

/** The kubeconfigs renewal covers, with kubeadm's long names (`kubelet.conf` is the kubelet's). */
const KUBECONFIG_RENEWALS: readonly [string, string][] = [
  [
    "admin.conf",
    "certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself",
  ],
  ["super-admin.conf", "certificate embedded in the kubeconfig file for the super-admin"],
  [
    "controller-manager.conf",
    "certificate embedded in the kubeconfig file for the controller manager to use",
  ],
  [
    "scheduler.conf",
    "certificate embedded in the kubeconfig file for the scheduler manager to use",
  ],
];

/**
 * kubeadm's renewal handlers for a configuration, sorted by name (the order
 * of `certs renew all`): the leaves of the cert list (no etcd ones with
 * `etcd.external`) and the four kubeconfigs.
 *
 * @example
 * ```ts
 * renewHandlers({ externalEtcd: false }).map((h) => h.name)[0]; // "admin.conf"
 * ```
 */
export function renewHandlers(spec: Pick<ControlPlanePkiSpec, "externalEtcd">): RenewHandler[] {
  const out: RenewHandler[] = certList(spec).filter((c) => c.caName !== undefined).map((c) => ({
    name: c.name,
    longName: c.longName,
    file: `pki/${c.baseName}.crt`,
    caBaseName: caSpec(c.caName!).baseName,
    caName: c.caName!,
    kubeconfig: false,
  }));
  for (const [file, longName] of KUBECONFIG_RENEWALS) {
    out.push({ name: file, longName, file, caBaseName: "ca", caName: "ca", kubeconfig: true });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Inputs of {@link renewCertificates}. */
export interface RenewOptions {
  /** `all`, or handler names (`apiserver`, `admin.conf`, …). */
  names: readonly string[];
  /** The tree's files by path relative to its root (`pki/…`, `admin.conf`). */
  existing: ReadonlyMap<string, Uint8Array>;
  /** What the configuration fixes: key algorithm, validity, external etcd (kubeadm's defaults otherwise). */
  spec: Pick<ControlPlanePkiSpec, "encryptionAlgorithm" | "certificateValidityMs" | "externalEtcd">;
  /** kubeadm's `StartTimeUTC`. */
  now: Date;
  random?: RandomBytes;
}

/** What {@link renewCertificates} writes and prints. */
export interface Renewal {
  /** The files to replace (certificate and key, or the kubeconfig). */
  files: PkiFile[];
  /**
   * kubeadm's lines (`MISSING! …`, `… renewed`, the closing `Done renewing …`
   * for all, when something was renewed).
   */
  lines: string[];
  /** The names renewed (empty when every chosen certificate was missing). */
  renewed: string[];
}

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

const EKU_NAMES: Record<string, KubeadmExtKeyUsage> = {
  [EKU_OID.serverAuth]: "serverAuth",
  [EKU_OID.clientAuth]: "clientAuth",
};

/**
 * Renews `names` as `kubeadm certs renew` does. Throws `InputError` (one
 * line; nothing is written) for an unknown name (`<x> is not a valid
 * certificate for this cluster`), an external CA (kubeadm's `Detected
 * external ca, … can't be renewed`), a missing or non-CA CA certificate
 * (kubeadm's `Error checking external CA condition …`), a CA key that is not
 * its certificate's, a kubeconfig without an embedded CA or client
 * certificate (kubeadm's texts). A missing certificate is a `MISSING!` line,
 * as in kubeadm.
 */
export async function renewCertificates(opts: RenewOptions): Promise<Renewal> {
  const alg = opts.spec.encryptionAlgorithm;
  if (!(ENCRYPTION_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new InputError(
      `cannot obtain key size from unknown RSA algorithm: ${JSON.stringify(alg)}`,
    );
  }
  const handlers = renewHandlers(opts.spec);
  const all = opts.names.length === 1 && opts.names[0] === "all";
  if (opts.names.length === 0) {
    throw new InputError("nothing to renew: give all or certificate names");
  }
  const chosen: RenewHandler[] = [];
  if (all) chosen.push(...handlers);
  else {
    for (const n of opts.names) {
      const h = handlers.find((x) => x.name === n);
      if (!h) {
        throw new InputError(
          n === "all"
            ? "all cannot be combined with certificate names"
            : `${n} is not a valid certificate for this cluster (one of: all, ${
              handlers.map((x) => x.name).join(", ")
            })`,
        );
      }
      if (!chosen.includes(h)) chosen.push(h);
    }
  }
  const existing = opts.existing;
  const lines: string[] = [];
  const files: PkiFile[] = [];
  const renewed: string[] = [];
  const cas = new Map<string, { cert: Cert; key: KeyObject; certPem: string }>();

  // Every check first: nothing is written unless every chosen certificate can be renewed.
  type Job = { h: RenewHandler; cert: Cert; kc?: ReturnType<typeof kubeconfigParts> };
  const jobs: Job[] = [];
  for (const h of chosen) {
    const data = existing.get(h.file);
    if (data === undefined) {
      lines.push(`MISSING! ${h.longName}`);
      continue;
    }
    loadCa(h, existing, cas);
    let cert: Cert;
    let kc: ReturnType<typeof kubeconfigParts> | undefined;
    if (h.kubeconfig) {
      kc = kubeconfigParts(text(data), h.file);
      if (!dataField(kc.cluster, "certificate-authority-data")) {
        throw new InputError(
          `kubeConfig file ${h.file} does not have an embedded server certificate`,
        );
      }
      const clientCert = dataField(kc.user, "client-certificate-data");
      if (!clientCert) {
        throw new InputError(
          `kubeConfig file ${h.file} does not have an embedded client certificate`,
        );
      }
      try {
        cert = pemCerts(text(clientCert), h.file)[0]!;
      } catch (e) {
        throw new InputError(
          `kubeConfig file ${h.file} does not contain a valid client certificate: ${messageOf(e)}`,
        );
      }
    } else {
      cert = pemCerts(text(data), h.file)[0]!;
    }
    for (const oid of cert.extKeyUsage ?? []) {
      if (!EKU_NAMES[oid]) {
        throw new InputError(
          `${h.file}: extended key usage ${oid} is not one kubeadm writes; joinkit renews serverAuth and clientAuth only`,
        );
      }
    }
    jobs.push({ h, cert, ...(kc ? { kc } : {}) });
  }

  const keyType = keyTypeOf(alg as EncryptionAlgorithm);
  const keys = await Promise.all(jobs.map(() => generateKeyObject(keyType)));
  const now = opts.now.getTime();
  const notBefore = new Date(Math.floor((now - CERT_BACKDATE_MS) / 1000) * 1000);
  const notAfter = new Date(Math.floor((now + opts.spec.certificateValidityMs) / 1000) * 1000);
  jobs.forEach(({ h, cert, kc }, i) => {
    const key = keys[i]!;
    const ca = cas.get(h.caName)!;
    // certToConfig: CN, O, DNS and IP SANs, extended key usages; nothing else.
    const der = createCertificateDer({
      serialHex: randomSerialHex(opts.random),
      commonName: cert.subject.commonName,
      organization: cert.subject.organization,
      notBefore,
      notAfter,
      spki: keyObjectSpki(key),
      isCA: false,
      extKeyUsages: (cert.extKeyUsage ?? []).map((o) => EKU_NAMES[o]!),
      dns: cert.sans.dns,
      ips: cert.sans.ips,
    }, {
      subjectDer: ca.cert.subjectDer,
      subjectKeyId: ca.cert.subjectKeyId?.length ? ca.cert.subjectKeyId : undefined,
      privateKey: ca.key,
    });
    const certPem = encodePem("CERTIFICATE", der);
    if (kc) {
      kc.cluster["certificate-authority-data"] = b64(ca.certPem);
      kc.user["client-certificate-data"] = b64(certPem);
      kc.user["client-key-data"] = b64(keyObjectPem(key));
      files.push({ path: h.file, data: kubeconfigYaml(kc.object), mode: 0o600 });
    } else {
      files.push(
        { path: h.file, data: certPem, mode: 0o644 },
        { path: h.file.replace(/\.crt$/, ".key"), data: keyObjectPem(key), mode: 0o600 },
      );
    }
    lines.push(`${h.longName} renewed`);
    renewed.push(h.name);
  });
  // kubeadm prints its lines in handler order, MISSING ones included.
  const order = new Map(chosen.map((h, i) => [h.longName, i]));
  const at = (l: string) =>
    order.get(l.replace(/^MISSING! /, "").replace(/ renewed$/, "")) ?? Number.MAX_SAFE_INTEGER;
  lines.sort((a, b) => at(a) - at(b));
  // Nothing renewed: the caller says so (an error); kubeadm's closing line would claim otherwise.
  if (all && renewed.length) {
    lines.push(
      "",
      "Done renewing certificates. You must restart the kube-apiserver, kube-controller-manager, kube-scheduler and etcd, so that they can use the new certificates.",
    );
  }
  return { files, lines, renewed };
}

/**
 * The CA of a handler, as `IsExternallyManaged` then `LoadCertificateAuthority`
 * judge it: its certificate must load and be a CA, its key must be there
 * (else kubeadm's external-CA line, as a refusal) and be the certificate's.
 */
function loadCa(
  h: RenewHandler,
  existing: ReadonlyMap<string, Uint8Array>,
  cas: Map<string, { cert: Cert; key: KeyObject; certPem: string }>,
): void {
  if (cas.has(h.caName)) return;
  const crt = `pki/${h.caBaseName}.crt`;
  const keyPath = `pki/${h.caBaseName}.key`;
  const ux = UX_NAMES[h.caName]!;
  const prefix = `Error checking external CA condition for ${h.caBaseName} certificate authority`;
  const data = existing.get(crt);
  if (data === undefined) {
    throw new InputError(`${prefix}: failure loading certificate for ${ux}: ${crt}: missing`);
  }
  let cert: Cert;
  try {
    cert = pemCerts(text(data), crt)[0]!;
  } catch (e) {
    throw new InputError(`${prefix}: failure loading certificate for ${ux}: ${messageOf(e)}`);
  }
  if (!cert.isCA) throw new InputError(`${prefix}: certificate ${ux} is not a CA`);
  const keyData = existing.get(keyPath);
  if (keyData === undefined) {
    throw new InputError(
      `Detected external ${h.caBaseName}, ${h.longName} can't be renewed`,
    );
  }
  const key = loadPrivateKey(text(keyData), keyPath);
  if (!Buffer.from(keyObjectSpki(key)).equals(Buffer.from(cert.key.spki))) {
    throw new InputError(`${keyPath}: private key does not match ${crt}`);
  }
  cas.set(h.caName, { cert, key, certPem: encodePem("CERTIFICATE", cert.der) });
}
