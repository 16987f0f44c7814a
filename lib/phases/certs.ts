/**
 * A control plane's whole PKI and kubeconfigs, as `kubeadm init phase certs
 * all` and `kubeadm init phase kubeconfig all` write them, for one node or
 * several in one run: the CAs (made, or taken from the tree or the caller),
 * every leaf of the cert list (`certlist.ts`), the service-account key pair
 * and the five kubeconfigs (`kubeconfigs.ts`). What is already on disk is
 * judged as kubeadm judges it (a CA pair is used; a leaf is kept when it
 * chains to its CA; a kubeconfig when it embeds the CA) — and more strictly
 * where kubeadm would go on with a broken tree (a CA key that is not the
 * certificate's, a leaf key that is missing or not the certificate's).
 *
 * Times follow kubeadm: one start time for the run; NotBefore = start − 5 min
 * (CAs and leaves), NotAfter = start + validity; a kubeconfig's client
 * certificate has its CA's NotBefore. Keys are made in parallel
 * (node:crypto's thread pool), then everything is signed in kubeadm's order.
 *
 * Several nodes share the CAs, the service-account key and every credential
 * that names no node (the client certificates of the API server, the front
 * proxy, etcd's health check, admin.conf, super-admin.conf and the
 * controller-manager and scheduler identities); each node has its own API
 * server, etcd server and peer certificates and kubelet.conf, and its
 * controller-manager.conf and scheduler.conf point at its own API server.
 *
 * @module
 */

import { createPrivateKey, type KeyObject } from "node:crypto";
import { Buffer } from "node:buffer";
import { InputError } from "../base/errors.ts";
import { type Cert, parseCertificateFrom } from "../pki/cert_info.ts";
import { certificatesFromPem } from "../pki/certsource.ts";
import { randomSerialHex } from "../pki/ca.ts";
import { generateKeyObject, keyObjectPem, keyObjectSpki, type KeyType } from "../pki/keys.ts";
import { decodePem, encodePem, type PemBlock } from "../pki/pem.ts";
import { createCertificateDer } from "../pki/signed_cert.ts";
import { verify, verifyHostname } from "../pki/x509_verify.ts";
import type { RandomBytes } from "../base/random.ts";
import {
  CERT_BACKDATE_MS,
  CERT_LIST,
  certAltNames,
  certList,
  type CertSpec,
  certSubject,
  checkControlPlaneNodes,
  type ControlPlanePkiSpec,
  type EncryptionAlgorithm,
  keyTypeOf,
  type NodeAltNames,
  nodeAltNames,
  SA_KEY,
  SA_PUB,
  specForNode,
} from "./certlist.ts";
import {
  checkExistingKubeconfig,
  KUBECONFIG_LIST,
  kubeconfigServer,
  type KubeconfigSpec,
  kubeconfigText,
  kubeconfigUser,
} from "./kubeconfigs.ts";

/** One control-plane node of a several-node run. */
export interface ControlPlaneNode {
  /** Its Node name (lower-cased as kubeadm does). */
  name: string;
  /** Its `localAPIEndpoint.advertiseAddress`. */
  advertiseAddress: string;
}

/** A CA pair given by the caller (`--ca`/`--ca-key` and the like). */
export interface SuppliedCa {
  certPem: string;
  /** Absent: a keyless CA (only existing leaves can be kept). */
  keyPem?: string;
  /** Names for messages. */
  certSource: string;
  keySource: string;
}

/** The CA names of the cert list. */
export type CaName = "ca" | "front-proxy-ca" | "etcd-ca";

/** Inputs of {@link buildControlPlanePki}. */
export interface ControlPlanePkiOptions {
  /** The configuration; for several nodes, everything but the node name and address. */
  spec: ControlPlanePkiSpec;
  /** Several control-plane nodes, each in `<name>/`; absent: `spec`'s node, at the top. */
  nodes?: readonly ControlPlaneNode[];
  /** The run's start time (kubeadm's `StartTimeUTC`). */
  now: Date;
  /** What is on disk, by path relative to the output directory (see {@link controlPlanePkiPaths}). */
  existing: ReadonlyMap<string, Uint8Array>;
  /** CA pairs given by the caller. */
  supplied?: Partial<Record<CaName, SuppliedCa>>;
  /** Replace leaf files kubeadm would refuse instead of failing (never a CA or sa.key). */
  force?: boolean;
  /** Serial numbers' source (default: the CSPRNG). */
  random?: RandomBytes;
  /**
   * Reads a file an existing kubeconfig names as its CA
   * (`certificate-authority`, as kubeadm reads it; throws on failure).
   * Absent: such a kubeconfig is refused.
   */
  readFile?: (file: string) => Uint8Array;
  /**
   * Put before every path (of `existing`, of the files, in messages): the
   * output directory with a trailing `/`, so that messages name the files
   * as the user knows them. Default "" (paths relative to it).
   */
  root?: string;
}

/** One file to write, under {@link ControlPlanePkiOptions.root}. */
export interface PkiFile {
  path: string;
  data: string;
  /** 0o600 for keys, sa.pub and kubeconfigs; 0o644 for certificates (kubeadm's modes). */
  mode: number;
}

/** What one file of the tree is after the run. */
export interface PkiFileStatus {
  path: string;
  /** `generated`, `existing` (kept as it was) or `copied` (a shared CA/sa file written to a node). */
  status: "generated" | "existing" | "copied";
}

/** What {@link buildControlPlanePki} decided and made. */
export interface ControlPlanePki {
  /** The files to write (none exists yet, unless `force` replaced it). */
  files: PkiFile[];
  /** Every file of the tree, in kubeadm's order, with its status. */
  tree: PkiFileStatus[];
  /** kubeadm-style progress lines (`[certs] Generating "ca" certificate and key`). */
  lines: string[];
  /** Warnings kubeadm would print (left-out SANs, long validity, unexpected server URL). */
  warnings: string[];
}

/** The path prefix of a node's files: `root`, then `<node>/` (nothing more for a one-node run). */
function nodePrefix(node: ControlPlaneNode | undefined, root: string): string {
  return root + (node ? `${node.name}/` : "");
}

/**
 * Every path the tree may hold, under `root` (default: relative to the
 * output directory): what the caller reads (when present) into
 * {@link ControlPlanePkiOptions.existing}.
 */
export function controlPlanePkiPaths(
  spec: Pick<ControlPlanePkiSpec, "externalEtcd">,
  nodes?: readonly ControlPlaneNode[],
  root = "",
): string[] {
  const out: string[] = [];
  for (const n of nodes ?? [undefined]) {
    const p = nodePrefix(n, root);
    for (const c of certList(spec)) {
      out.push(`${p}pki/${c.baseName}.crt`, `${p}pki/${c.baseName}.key`);
    }
    out.push(`${p}pki/${SA_KEY}`, `${p}pki/${SA_PUB}`);
    for (const k of KUBECONFIG_LIST) out.push(`${p}${k.file}`);
  }
  return out;
}

/** A CA ready to sign (or keyless). */
interface Authority {
  spec: CertSpec;
  cert: Cert;
  certDer: Uint8Array;
  /** The text written where the CA is missing. */
  certPem: string;
  key?: KeyObject | undefined;
  keyPem?: string | undefined;
  /** Where it came from, for messages. */
  source: string;
  keySource: string;
  generated: boolean;
}

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");

/**
 * Reads a private key PEM as kubeadm's `TryLoadKeyFromDisk`: the first
 * RSA/EC/PKCS#8 block; only RSA and ECDSA keys. Errors name `source` and
 * never show key material.
 */
export function loadPrivateKey(pem: string, source: string): KeyObject {
  let blocks: PemBlock[];
  try {
    blocks = decodePem(pem, source);
  } catch {
    blocks = [];
  }
  const block = blocks.find((b) =>
    b.type === "RSA PRIVATE KEY" || b.type === "EC PRIVATE KEY" || b.type === "PRIVATE KEY"
  );
  if (!block) throw new InputError(`${source}: no private key found`);
  let key: KeyObject;
  try {
    key = createPrivateKey({
      key: Buffer.from(block.der),
      format: "der",
      type: block.type === "RSA PRIVATE KEY"
        ? "pkcs1"
        : block.type === "EC PRIVATE KEY"
        ? "sec1"
        : "pkcs8",
    });
  } catch {
    throw new InputError(`${source}: malformed ${block.type} block`);
  }
  if (key.asymmetricKeyType !== "rsa" && key.asymmetricKeyType !== "ec") {
    throw new InputError(`the private key file ${source} is neither in RSA nor ECDSA format`);
  }
  return key;
}

/** A signed certificate (DER) and its key, as the PEM files kubeadm writes. */
function pemPair(key: KeyObject, der: Uint8Array): { certPem: string; keyPem: string } {
  return { certPem: encodePem("CERTIFICATE", der), keyPem: keyObjectPem(key) };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

/** The first certificate of a PEM text and the rest (intermediates), parsed. */
function loadCerts(pem: string, source: string): Cert[] {
  return certificatesFromPem(pem, source).map((der) => parseCertificateFrom(der, source));
}

/** Go's `time.Time.String()` of a UTC instant: `2006-01-02 15:04:05 +0000 UTC`. */
function goTimeString(d: Date): string {
  return d.toISOString().replace("T", " ").replace(/\.000Z$/, " +0000 UTC");
}

function wholeSeconds(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** A key to make, resolved when the batch is done. */
interface KeyJob {
  type: KeyType;
  key?: KeyObject;
}

/** A CA that signs: its parsed certificate and its key. */
export interface SigningPair {
  cert: Cert;
  key: KeyObject;
}

/**
 * kubeadm's validity for a run started at `now`: NotBefore = now − 5 min
 * (CAs and leaves), NotAfter = now + the CA or leaf validity; whole seconds.
 */
export function pkiValidity(
  spec: Pick<ControlPlanePkiSpec, "certificateValidityMs" | "caCertificateValidityMs">,
  now: Date,
): { notBefore: Date; caNotAfter: Date; leafNotAfter: Date } {
  const t = now.getTime();
  return {
    notBefore: wholeSeconds(t - CERT_BACKDATE_MS),
    caNotAfter: wholeSeconds(t + spec.caCertificateValidityMs),
    leafNotAfter: wholeSeconds(t + spec.certificateValidityMs),
  };
}

function signedBy(ca: SigningPair) {
  const ski = ca.cert.subjectKeyId;
  return {
    subjectDer: ca.cert.subjectDer,
    subjectKeyId: ski && ski.length ? ski : undefined,
    privateKey: ca.key,
  };
}

/**
 * One certificate of the cert list for `spec`'s node, as kubeadm makes it
 * (`NewSelfSignedCACert` for a CA, self-signed with `key`;
 * `NewSignedCert` for a leaf, signed by `ca`): subject, SANs, usages and
 * kubeadm's validity from `now`. Returns the DER.
 *
 * @example
 * ```ts ignore
 * const der = certListCertificate(certSpec("apiserver"), spec, key, { cert: caCert, key: caKey }, now);
 * ```
 */
export function certListCertificate(
  c: CertSpec,
  spec: ControlPlanePkiSpec,
  key: KeyObject,
  ca: SigningPair | undefined,
  now: Date,
  random?: RandomBytes,
): Uint8Array {
  const v = pkiValidity(spec, now);
  const isCA = c.caName === undefined;
  if (!isCA && !ca) throw new InputError(`${c.name}: a leaf certificate needs its CA`);
  const alt = certAltNames(
    c,
    c.altNames === "ca" || c.altNames === "none" ? emptyAlt : nodeAltNames(spec),
  );
  return createCertificateDer({
    serialHex: randomSerialHex(random),
    ...certSubject(c, spec),
    notBefore: v.notBefore,
    notAfter: isCA ? v.caNotAfter : v.leafNotAfter,
    spki: keyObjectSpki(key),
    isCA,
    extKeyUsages: c.usages,
    dns: alt.dns,
    ips: alt.ips,
  }, isCA ? { self: key } : signedBy(ca!));
}

const emptyAlt: NodeAltNames = {
  apiserver: { dns: [], ips: [] },
  etcdServer: { dns: [], ips: [] },
  etcdPeer: { dns: [], ips: [] },
  warnings: [],
};

/**
 * A kubeconfig's client certificate as kubeadm's kubeconfig phase makes it:
 * CN = the user, O = the spec's groups, clientAuth, no SANs, signed by the
 * cluster CA, NotBefore = the CA's NotBefore (kubeadm leaves it unset),
 * NotAfter = `now` + the leaf validity. Returns the DER.
 */
export function kubeconfigClientCertificate(
  k: KubeconfigSpec,
  spec: ControlPlanePkiSpec,
  key: KeyObject,
  ca: SigningPair,
  now: Date,
  random?: RandomBytes,
): Uint8Array {
  return createCertificateDer({
    serialHex: randomSerialHex(random),
    commonName: kubeconfigUser(k, spec),
    organization: [...k.organization],
    notBefore: ca.cert.notBefore,
    notAfter: pkiValidity(spec, now).leafNotAfter,
    spki: keyObjectSpki(key),
    isCA: false,
    extKeyUsages: ["clientAuth"],
    dns: [],
    ips: [],
  }, signedBy(ca));
}

/**
 * Builds (or completes) the tree for `opts` and returns the files to write.
 * Refusals are `InputError`s (exit 1), one line, naming the file: an
 * invalid configuration (kubeadm's texts), duplicate nodes, a CA key that is
 * not its certificate's, nodes whose CAs differ, a leaf that does not chain
 * to the CA beside it (kubeadm's text), a key without its certificate, a
 * kubeconfig without the CA. Nothing is written by this function.
 *
 * @example
 * ```ts ignore
 * const pki = await buildControlPlanePki({ spec, now: new Date(), existing: new Map() });
 * pki.files.map((f) => f.path); // ["pki/ca.crt", "pki/ca.key", …, "scheduler.conf"]
 * ```
 */
export async function buildControlPlanePki(opts: ControlPlanePkiOptions): Promise<ControlPlanePki> {
  const base = opts.spec;
  const nodes = opts.nodes;
  const force = opts.force ?? false;
  const now = opts.now.getTime();
  const lines: string[] = [];
  const warnings: string[] = [];
  const files: PkiFile[] = [];
  const tree: PkiFileStatus[] = [];
  const existing = opts.existing;
  const prefixOf = (node: ControlPlaneNode | undefined) => nodePrefix(node, opts.root ?? "");

  // The nodes and their specs, validated as kubeadm validates one InitConfiguration each.
  const targets: { node: ControlPlaneNode | undefined; spec: ControlPlanePkiSpec }[] = nodes
    ? nodes.map((n) => ({ node: n, spec: specForNode(base, n.name, n.advertiseAddress) }))
    : [{ node: undefined, spec: base }];
  checkControlPlaneNodes(targets.map((t) => t.spec), nodes !== undefined);
  if (targets.length > 1 && !base.controlPlaneEndpoint) {
    // kubeadm join --control-plane refuses such a cluster; every node's admin.conf points at itself.
    warnings.push(
      "WARNING: several control-plane nodes without controlPlaneEndpoint: kubeadm join --control-plane refuses them (unable to add a new control plane instance to a cluster that doesn't have a stable controlPlaneEndpoint address); each node's admin.conf, super-admin.conf and kubelet.conf point at the node itself",
    );
  }
  const alg = base.encryptionAlgorithm as EncryptionAlgorithm;
  const keyType = keyTypeOf(alg);
  const altByNode = new Map<string, NodeAltNames>();
  for (const t of targets) {
    const alt = nodeAltNames(t.spec);
    altByNode.set(prefixOf(t.node), alt);
    for (const w of alt.warnings) if (!warnings.includes(w)) warnings.push(w);
  }

  const currentTime = new Date(now);
  const list = certList(base);
  const keyJobs: KeyJob[] = [];
  const newKey = (): KeyJob => {
    const j: KeyJob = { type: keyType };
    keyJobs.push(j);
    return j;
  };

  // 1. The CAs: supplied, else on disk (the same in every node), else new.
  const authorities = new Map<string, Authority>();
  const caJobs = new Map<string, KeyJob>();
  for (const c of list.filter((x) => x.caName === undefined)) {
    const crtName = `pki/${c.baseName}.crt`;
    const keyName = `pki/${c.baseName}.key`;
    const supplied = opts.supplied?.[c.name as CaName];
    let found:
      | { certPem: string; certSource: string; keyPem?: string; keySource: string }
      | undefined;
    if (supplied) {
      found = {
        certPem: supplied.certPem,
        certSource: supplied.certSource,
        keySource: supplied.keySource,
        ...(supplied.keyPem !== undefined ? { keyPem: supplied.keyPem } : {}),
      };
    }
    for (const t of targets) {
      const p = prefixOf(t.node);
      const crt = existing.get(p + crtName);
      const key = existing.get(p + keyName);
      if (crt === undefined && key !== undefined) {
        throw new InputError(
          `${p + keyName}: exists without ${
            p + crtName
          }; refusing to replace a CA key (move it away)`,
        );
      }
      if (crt === undefined) continue;
      if (!found) {
        found = { certPem: text(crt), certSource: p + crtName, keySource: p + keyName };
        if (key !== undefined) found.keyPem = text(key);
        continue;
      }
      const mine = certificatesFromPem(text(crt), p + crtName);
      const theirs = certificatesFromPem(found.certPem, found.certSource);
      if (!sameBytes(mine[0]!, theirs[0]!)) {
        throw new InputError(
          `${p + crtName}: is not the CA certificate of ${found.certSource}${
            supplied ? "" : " (control-plane nodes share their CAs)"
          }`,
        );
      }
      if (key !== undefined) {
        if (found.keyPem === undefined) {
          found.keyPem = text(key);
          found.keySource = p + keyName;
        } else {
          const a = keyObjectSpki(loadPrivateKey(found.keyPem, found.keySource));
          const b = keyObjectSpki(loadPrivateKey(text(key), p + keyName));
          if (!sameBytes(a, b)) {
            throw new InputError(`${p + keyName}: is not the CA key of ${found.keySource}`);
          }
        }
      }
    }
    if (found) {
      const certs = loadCerts(found.certPem, found.certSource);
      const cert = certs[0]!;
      if (!cert.isCA) {
        throw new InputError(
          `${found.certSource}: ${c.baseName} certificate is not a certificate authority`,
        );
      }
      let key: KeyObject | undefined;
      if (found.keyPem !== undefined) {
        key = loadPrivateKey(found.keyPem, found.keySource);
        if (!sameBytes(keyObjectSpki(key), cert.key.spki)) {
          throw new InputError(
            `${found.keySource}: private key does not match ${found.certSource}`,
          );
        }
      }
      authorities.set(c.name, {
        spec: c,
        cert,
        certDer: cert.der,
        certPem: certs.map((x) => encodePem("CERTIFICATE", x.der)).join(""),
        key,
        keyPem: key ? keyObjectPem(key) : undefined,
        source: found.certSource,
        keySource: found.keySource,
        generated: false,
      });
    } else {
      caJobs.set(c.name, newKey());
    }
  }

  // 2. The service-account key: on disk (the same in every node), else new.
  let saKey: KeyObject | undefined;
  let saSource = "";
  for (const t of targets) {
    const p = prefixOf(t.node);
    const k = existing.get(`${p}pki/${SA_KEY}`);
    if (k === undefined) continue;
    const key = loadPrivateKey(text(k), `${p}pki/${SA_KEY}`);
    if (saKey && !sameBytes(keyObjectSpki(saKey), keyObjectSpki(key))) {
      throw new InputError(
        `${p}pki/${SA_KEY}: is not the key of ${saSource} (control-plane nodes share it)`,
      );
    }
    saKey ??= key;
    saSource ||= `${p}pki/${SA_KEY}`;
  }
  for (const t of targets) {
    const p = prefixOf(t.node);
    const pub = existing.get(`${p}pki/${SA_PUB}`);
    if (pub === undefined) continue;
    if (!saKey) {
      throw new InputError(
        `${p}pki/${SA_PUB}: exists without ${p}pki/${SA_KEY}; refusing to replace it`,
      );
    }
    const block = decodePem(text(pub), `${p}pki/${SA_PUB}`).find((b) => b.type === "PUBLIC KEY");
    if (!block || !sameBytes(block.der, keyObjectSpki(saKey))) {
      throw new InputError(`${p}pki/${SA_PUB}: is not the public key of ${saSource}`);
    }
  }
  const saJob = saKey ? undefined : newKey();

  // 3. Leaves: keep what chains and has its key; make the rest (shared ones once).
  type LeafPlan = { keep: true } | { job: KeyJob; shareKey?: string };
  const leafPlans = new Map<string, LeafPlan>(); // prefix + name
  const sharedLeafJobs = new Map<string, KeyJob>();
  const judgeLeaf = (path: string, keyPath: string, caName: string, name: string): boolean => {
    const crt = existing.get(path);
    const key = existing.get(keyPath);
    if (crt === undefined) {
      if (key !== undefined && !force) {
        throw new InputError(
          `${keyPath}: exists without ${path}; refusing to replace it (use --force)`,
        );
      }
      return false;
    }
    const ca = authorities.get(caName);
    const certs = loadCerts(text(crt), path);
    if (!ca) {
      if (force) return false;
      throw new InputError(
        `${path}: certificate ${name} not signed by CA certificate ${caName}: x509: certificate signed by unknown authority (the CA is new)`,
      );
    }
    const v = verify(certs[0]!, {
      roots: [ca.cert],
      intermediates: certs.slice(1),
      currentTime,
      keyUsages: ["Any"],
    });
    if (!v.ok) {
      if (force) return false;
      throw new InputError(
        `${path}: certificate ${name} not signed by CA certificate ${ca.spec.baseName}: ${v.error}`,
      );
    }
    if (key === undefined) {
      if (force) return false;
      throw new InputError(`${keyPath}: missing beside ${path} (use --force to make a new pair)`);
    }
    const k = loadPrivateKey(text(key), keyPath);
    if (!sameBytes(keyObjectSpki(k), certs[0]!.key.spki)) {
      if (force) return false;
      throw new InputError(
        `${keyPath}: private key does not match ${path} (use --force to make a new pair)`,
      );
    }
    return true;
  };
  for (const c of list.filter((x) => x.caName !== undefined)) {
    for (const t of targets) {
      const p = prefixOf(t.node);
      const path = `${p}pki/${c.baseName}.crt`;
      if (judgeLeaf(path, `${p}pki/${c.baseName}.key`, c.caName!, c.baseName)) {
        const alt = certAltNames(c, altByNode.get(p)!);
        const cert = loadCerts(text(existing.get(path)!), path)[0]!;
        // kubeadm join --control-plane's check (validateCertificateWithConfig): every name
        // and address must pass VerifyHostname (so a wildcard SAN covers its subdomains).
        const missing = [...alt.dns, ...alt.ips].filter((h) =>
          verifyHostname(cert, h) !== undefined
        );
        if (missing.length === 0 || !force) {
          if (missing.length) {
            warnings.push(
              `${path}: kept, but it lacks the SANs the configuration gives: ${
                missing.join(", ")
              } (kubeadm join --control-plane refuses it; --force makes a new one)`,
            );
          }
          leafPlans.set(p + c.name, { keep: true });
          continue;
        }
        // --force: a certificate kubeadm join would refuse is replaced, like one that does not chain.
      }
      if (c.perNode) leafPlans.set(p + c.name, { job: newKey() });
      else {
        let j = sharedLeafJobs.get(c.name);
        if (!j) sharedLeafJobs.set(c.name, j = newKey());
        leafPlans.set(p + c.name, { job: j, shareKey: c.name });
      }
    }
  }

  // 4. Kubeconfigs: keep those that embed the CA; the rest get client certificates
  // (one per user: admin, super-admin, controller-manager and scheduler are shared).
  const kcPlans = new Map<string, { keep: true } | { job: KeyJob; user: string }>();
  const userJobs = new Map<string, KeyJob>();
  const ca = () => authorities.get("ca");
  for (const k of KUBECONFIG_LIST) {
    for (const t of targets) {
      const p = prefixOf(t.node);
      const path = p + k.file;
      const have = existing.get(path);
      if (have !== undefined && caJobs.has("ca") && !force) {
        throw new InputError(
          `a kubeconfig file ${
            JSON.stringify(path)
          } exists but does not contain a trusted CA in its current context's cluster (the CA is new)`,
        );
      }
      if (have !== undefined && ca()) {
        try {
          const r = checkExistingKubeconfig(
            text(have),
            path,
            ca()!.certDer,
            kubeconfigServer(k, t.spec),
            opts.readFile,
            {
              ca: ca()!.cert,
              now: currentTime,
              commonName: kubeconfigUser(k, t.spec),
              organization: k.organization,
            },
          );
          if (r.warning) warnings.push(r.warning);
          if (r.clientWarning) warnings.push(r.clientWarning);
          kcPlans.set(path, { keep: true });
          continue;
        } catch (e) {
          if (!force) throw e;
        }
      }
      const user = kubeconfigUser(k, t.spec);
      let j = userJobs.get(user);
      if (!j) userJobs.set(user, j = newKey());
      kcPlans.set(path, { job: j, user });
    }
  }

  // Signing needs the CA keys.
  const needsCa = new Set<string>();
  for (const c of list.filter((x) => x.caName !== undefined)) {
    for (const t of targets) {
      const plan = leafPlans.get(prefixOf(t.node) + c.name);
      if (plan && !("keep" in plan)) needsCa.add(`${c.caName}\n${c.name}`);
    }
  }
  for (const [, plan] of kcPlans) if (!("keep" in plan)) needsCa.add(`ca\n${plan.user}`);
  for (const n of needsCa) {
    const [caName, what] = n.split("\n") as [string, string];
    const a = authorities.get(caName);
    if (a && !a.key) {
      throw new InputError(
        `couldn't load CA certificate ${caName}: ${a.keySource}: no such file (the CA key is needed to sign ${what})`,
      );
    }
  }

  // 5. Every key at once, in parallel.
  const made = await Promise.all(keyJobs.map((j) => generateKeyObject(j.type)));
  keyJobs.forEach((j, i) => (j.key = made[i]!));

  // 6. Sign and lay out, in kubeadm's order.
  for (const [name, job] of caJobs) {
    const c = list.find((x) => x.name === name)!;
    const key = job.key!;
    const der = certListCertificate(c, base, key, undefined, opts.now, opts.random);
    const cert = parseCertificateFrom(der, c.baseName);
    authorities.set(name, {
      spec: c,
      cert,
      certDer: der,
      certPem: encodePem("CERTIFICATE", der),
      key,
      keyPem: keyObjectPem(key),
      source: `${prefixOf(targets[0]!.node)}pki/${c.baseName}.crt`,
      keySource: `${prefixOf(targets[0]!.node)}pki/${c.baseName}.key`,
      generated: true,
    });
  }
  // kubeadm's CheckCertificatePeriodValidity: a CA outside its validity at the start time is
  // still used (leaves signed by an expired CA fail later), with kubeadm's warning.
  for (const c of list.filter((x) => x.caName === undefined)) {
    const a = authorities.get(c.name)!;
    const why = currentTime < a.cert.notBefore
      ? "is not valid yet"
      : currentTime > a.cert.notAfter
      ? "has expired"
      : undefined;
    if (why) {
      warnings.push(
        `WARNING: could not validate bounds for certificate ${c.baseName}: the certificate ${why}: NotBefore: ${
          goTimeString(a.cert.notBefore)
        }, NotAfter: ${goTimeString(a.cert.notAfter)}`,
      );
    }
  }
  const sharedLeaves = new Map<
    string,
    { pair: { certPem: string; keyPem: string }; from: string }
  >();

  for (const t of targets) {
    const p = prefixOf(t.node);
    const where = t.node ? `${t.node.name}: ` : "";
    const alt = altByNode.get(p)!;
    for (const c of CERT_LIST) {
      if (!list.includes(c)) {
        lines.push(
          `[certs] ${where}External etcd mode: Skipping ${c.baseName} ${
            c.caName === undefined ? "certificate authority" : "certificate"
          } generation`,
        );
        continue;
      }
      const crtPath = `${p}pki/${c.baseName}.crt`;
      const keyPath = `${p}pki/${c.baseName}.key`;
      if (c.caName === undefined) {
        const a = authorities.get(c.name)!;
        if (existing.has(crtPath)) {
          lines.push(
            `[certs] ${where}Using existing ${c.baseName}${
              a.key ? "" : " keyless"
            } certificate authority`,
          );
          tree.push({ path: crtPath, status: "existing" });
          if (existing.has(keyPath)) tree.push({ path: keyPath, status: "existing" });
          else if (a.keyPem) {
            files.push({ path: keyPath, data: a.keyPem, mode: 0o600 });
            tree.push({ path: keyPath, status: "copied" });
          }
          continue;
        }
        const status = a.generated && (t === targets[0]) ? "generated" : "copied";
        lines.push(
          status === "generated"
            ? `[certs] ${where}Generating "${c.baseName}" certificate and key`
            : `[certs] ${where}Using the ${c.baseName} certificate authority of ${a.source}`,
        );
        files.push({ path: crtPath, data: a.certPem, mode: 0o644 });
        tree.push({ path: crtPath, status });
        if (a.keyPem) {
          files.push({ path: keyPath, data: a.keyPem, mode: 0o600 });
          tree.push({ path: keyPath, status });
        }
        continue;
      }
      const plan = leafPlans.get(p + c.name)!;
      if ("keep" in plan) {
        lines.push(`[certs] ${where}Using existing ${c.baseName} certificate and key on disk`);
        tree.push({ path: crtPath, status: "existing" }, { path: keyPath, status: "existing" });
        continue;
      }
      const a = authorities.get(c.caName!)!;
      const names = certAltNames(c, alt);
      let pair = plan.shareKey ? sharedLeaves.get(plan.shareKey)?.pair : undefined;
      const status = pair ? "copied" : "generated";
      if (pair) {
        lines.push(
          `[certs] ${where}Using the ${c.baseName} certificate and key made for ${
            sharedLeaves.get(plan.shareKey!)!.from
          }`,
        );
      } else {
        const key = plan.job.key!;
        const ca = { cert: a.cert, key: a.key! };
        pair = pemPair(key, certListCertificate(c, t.spec, key, ca, opts.now, opts.random));
        if (plan.shareKey) sharedLeaves.set(plan.shareKey, { pair, from: crtPath });
        lines.push(`[certs] ${where}Generating "${c.baseName}" certificate and key`);
      }
      if (c.usages.includes("serverAuth") && status === "generated") {
        lines.push(
          `[certs] ${where}${c.baseName} serving cert is signed for DNS names [${
            names.dns.join(" ")
          }] and IPs [${names.ips.join(" ")}]`,
        );
      }
      files.push({ path: crtPath, data: pair.certPem, mode: 0o644 }, {
        path: keyPath,
        data: pair.keyPem,
        mode: 0o600,
      });
      tree.push({ path: crtPath, status }, { path: keyPath, status });
    }
    // sa.key / sa.pub
    const saKeyPath = `${p}pki/${SA_KEY}`;
    const saPubPath = `${p}pki/${SA_PUB}`;
    const sa = saKey ?? saJob!.key!;
    if (existing.has(saKeyPath)) {
      lines.push(`[certs] ${where}Using the existing "sa" key`);
      tree.push({ path: saKeyPath, status: "existing" });
    } else {
      lines.push(
        saKey || t !== targets[0]
          ? `[certs] ${where}Using the "sa" key of ${
            saSource || `${prefixOf(targets[0]!.node)}pki/${SA_KEY}`
          }`
          : `[certs] ${where}Generating "sa" key and public key`,
      );
      files.push({ path: saKeyPath, data: keyObjectPem(sa), mode: 0o600 });
      tree.push({ path: saKeyPath, status: saKey || t !== targets[0] ? "copied" : "generated" });
    }
    if (existing.has(saPubPath)) tree.push({ path: saPubPath, status: "existing" });
    else {
      files.push({
        path: saPubPath,
        data: encodePem("PUBLIC KEY", keyObjectSpki(sa)),
        mode: 0o600,
      });
      tree.push({ path: saPubPath, status: saKey || t !== targets[0] ? "copied" : "generated" });
    }
  }

  // Kubeconfigs (after every certificate, as `init` runs the phases).
  const clientPairs = new Map<string, { certPem: string; keyPem: string }>();
  for (const t of targets) {
    const p = prefixOf(t.node);
    const where = t.node ? `${t.node.name}: ` : "";
    for (const k of KUBECONFIG_LIST) {
      const path = p + k.file;
      const plan = kcPlans.get(path)!;
      if ("keep" in plan) {
        lines.push(`[kubeconfig] ${where}Using existing kubeconfig file: ${JSON.stringify(path)}`);
        tree.push({ path, status: "existing" });
        continue;
      }
      const a = authorities.get("ca")!;
      let pair = clientPairs.get(plan.user);
      if (!pair) {
        const key = plan.job.key!;
        const ca = { cert: a.cert, key: a.key! };
        pair = pemPair(key, kubeconfigClientCertificate(k, t.spec, key, ca, opts.now, opts.random));
        clientPairs.set(plan.user, pair);
      }
      lines.push(`[kubeconfig] ${where}Writing ${JSON.stringify(k.file)} kubeconfig file`);
      files.push({
        path,
        data: kubeconfigText(
          k,
          t.spec,
          encodePem("CERTIFICATE", a.certDer),
          pair.certPem,
          pair.keyPem,
        ),
        mode: 0o600,
      });
      tree.push({ path, status: "generated" });
    }
  }
  return { files, tree, lines, warnings };
}
