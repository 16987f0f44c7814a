/**
 * kubeadm's external-CA mode, offline, in three steps, so that no CA key
 * ever touches the machine that renders the tree:
 *
 * 1. {@link generateKeysAndCsrs}: what `kubeadm certs generate-csr` writes
 *    (`CreateDefaultKeysAndCSRFiles`, `CreateDefaultKubeConfigsAndCSRFiles`):
 *    for every leaf of the cert list `pki/<base>.key` + `pki/<base>.csr`
 *    (subject O/CN, SANs in an extensionRequest, nothing else), and the five
 *    kubeconfigs with only their client key embedded + `<file>.csr`; plus
 *    the service-account pair kubeadm leaves to the user in this mode.
 * 2. {@link signKubeadmCsrs} (on the CA's machine): each CSR signed as
 *    kubeadm signs that certificate (`NewSignedCert`: its usages, its CA,
 *    kubeadm's template), after checking that it asks for kubeadm's subject.
 *    Any other CA (openssl, Vault, …) may sign them instead.
 * 3. {@link assembleExternalCa}: the signed certificates put into the tree
 *    and the kubeconfigs (`certificate-authority-data`,
 *    `client-certificate-data`), checked as kubeadm's external-CA detection
 *    checks them (`UsingExternalCA`, `UsingExternalFrontProxyCA`,
 *    `UsingExternalEtcdCA`, `ValidateKubeconfigsForExternalCA`): every file
 *    present, no CA key, each certificate chaining to its CA and matching
 *    its key — and more: kubeadm's subject and usages, the CSR's SANs.
 *
 * @module
 */

import { type KeyObject, sign as nodeSign } from "node:crypto";
import { Buffer } from "node:buffer";
import { CheckError, InputError, messageOf } from "../base/errors.ts";
import { aggregateErrors } from "../go/aggregate.ts";
import type { RandomBytes } from "../base/random.ts";
import { kubeconfigYaml } from "../k8s/kubeconfig_yaml.ts";
import { basicKubeconfig } from "../discovery/bootstrap_kubeconfig.ts";
import { randomSerialHex, signing } from "../pki/ca.ts";
import type { Cert } from "../pki/cert_info.ts";
import { derOid, derTlv } from "../pki/der_encode.ts";
import { generateKeyObject, keyObjectPem, keyObjectSpki } from "../pki/keys.ts";
import { decodePem, encodePem, type PemBlock } from "../pki/pem.ts";
import { createCertificateDer, kubeadmNameDer, sanValueDer } from "../pki/signed_cert.ts";
import { type Csr, parseCsrPem } from "../kubelet/csr.ts";
import { csrSignatureProblem } from "../kubelet/csr_judge.ts";
import {
  CERT_BACKDATE_MS,
  CERT_LIST,
  certAltNames,
  type CertSpec,
  certSubject,
  checkControlPlaneNodes,
  type ControlPlanePkiSpec,
  type EncryptionAlgorithm,
  keyTypeOf,
  nodeAltNames,
  SA_KEY,
  SA_PUB,
  specForNode,
  validateControlPlanePkiSpec,
} from "./certlist.ts";
import { DEFAULT_CERT_VALIDITY_MS } from "../kubeadm/cluster_config.ts";
import { type CaName, type ControlPlaneNode, loadPrivateKey, type PkiFile } from "./certs.ts";
import {
  KUBECONFIG_LIST,
  kubeconfigServer,
  type KubeconfigSpec,
  kubeconfigUser,
} from "./kubeconfigs.ts";
import {
  caSpec,
  chainError,
  dataField,
  EKU_OID,
  identityProblems,
  keyMatches,
  kubeconfigIdentity,
  kubeconfigParts,
  missingSans,
  pemCerts,
  UX_NAMES,
} from "./pki_check.ts";

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/**
 * A kubeconfig's server in external-CA mode. kubeadm v1.32.5's `certs generate-csr` and its
 * external-CA check at `init` (`ValidateKubeconfigsForExternalCA`) both put kubelet.conf on the
 * control-plane endpoint even with the `ControlPlaneKubeletLocalMode` gate (only `init phase
 * kubeconfig` honours the gate), so joinkit writes and expects what kubeadm does there
 * (tests/fixtures/kubeadm_pki/external_ca/kubelet_local_mode.json).
 */
function externalCaKubeconfigServer(k: KubeconfigSpec, spec: ControlPlanePkiSpec): string {
  return kubeconfigServer(k, { ...spec, kubeletLocalMode: false });
}

/** The leaves of kubeadm's cert list (what `generate-csr` makes a key and CSR for, etcd included). */
export function csrLeaves(): CertSpec[] {
  return CERT_LIST.filter((c) => c.caName !== undefined);
}

/** `pki/<base>.csr` and `<kubeconfig>.csr`: every CSR path, in kubeadm's order. */
export function csrPaths(): string[] {
  return [
    ...csrLeaves().map((c) => `pki/${c.baseName}.csr`),
    ...KUBECONFIG_LIST.map((k) => `${k.file}.csr`),
  ];
}

/**
 * A PKCS#10 request as `pkiutil.NewCSR` (Go's `x509.CreateCertificateRequest`)
 * writes it: version 0, subject O then CN, the key, an extensionRequest with
 * the subjectAltName (DNS then IP) only when there are SANs, else an empty
 * attribute set; signed SHA-256 with the key (RSA PKCS#1 v1.5 or ECDSA).
 */
export function kubeadmCsrDer(
  key: KeyObject,
  subject: { commonName: string; organization: readonly string[] },
  alt: { dns: readonly string[]; ips: readonly string[] },
): Uint8Array {
  const attributes = alt.dns.length || alt.ips.length
    ? [
      derTlv(
        0x30,
        derOid("1.2.840.113549.1.9.14"),
        derTlv(
          0x31,
          derTlv(
            0x30,
            derTlv(0x30, derOid("2.5.29.17"), derTlv(0x04, sanValueDer(alt.dns, alt.ips))),
          ),
        ),
      ),
    ]
    : [];
  const info = derTlv(
    0x30,
    new Uint8Array([0x02, 0x01, 0x00]),
    kubeadmNameDer(subject.commonName, subject.organization),
    keyObjectSpki(key),
    derTlv(0xa0, ...attributes),
  );
  const { hash, ecdsa, algorithmId } = signing(key);
  const sig = new Uint8Array(nodeSign(hash, info, ecdsa ? { key, dsaEncoding: "der" } : key));
  return derTlv(0x30, info, algorithmId, derTlv(0x03, new Uint8Array([0]), sig));
}

/** Inputs of {@link generateKeysAndCsrs}. */
export interface GenerateCsrOptions {
  spec: ControlPlanePkiSpec;
  /** What is in the output directory already, by relative path. */
  existing: ReadonlyMap<string, Uint8Array>;
  /** Replace existing keys, CSRs and kubeconfigs (kubeadm refuses them). */
  force?: boolean;
}

/** What {@link generateKeysAndCsrs} makes. */
export interface GeneratedCsrs {
  files: PkiFile[];
  /** kubeadm's progress lines (`generating keys and CSRs in pki`, `  apiserver`, …). */
  lines: string[];
  warnings: string[];
}

/**
 * The keys and CSRs of `kubeadm certs generate-csr` for `spec`'s node
 * (paths relative to the output directory: `pki/` and the kubeconfigs
 * beside it), plus `pki/sa.key`/`sa.pub` when absent (kubeadm makes no
 * service-account key in external-CA mode and does not check it); a kept
 * `sa.key` must be a private key and `sa.pub` its public key (written from
 * it when absent). Refuses
 * an existing key, CSR or kubeconfig with kubeadm's texts unless `force`.
 */
export async function generateKeysAndCsrs(opts: GenerateCsrOptions): Promise<GeneratedCsrs> {
  const spec = opts.spec;
  const errs = validateControlPlanePkiSpec(spec);
  if (errs.length) throw new InputError(aggregateErrors(errs));
  const existing = opts.existing;
  const force = opts.force ?? false;
  const warnings: string[] = [];
  for (const ca of ["ca", "front-proxy-ca", "etcd/ca"]) {
    if (existing.has(`pki/${ca}.key`)) {
      warnings.push(
        `warning: pki/${ca}.key exists: kubeadm will sign with it, this is not external-CA mode for ${ca}`,
      );
    }
  }
  if (!force) {
    for (const c of csrLeaves()) {
      if (existing.has(`pki/${c.baseName}.key`) || existing.has(`pki/${c.baseName}.csr`)) {
        throw new InputError(`file already exists: key or CSR pki/${c.baseName}`);
      }
    }
    for (const k of KUBECONFIG_LIST) {
      if (existing.has(k.file)) throw new InputError(`file already exists: kube config: ${k.file}`);
      if (existing.has(`${k.file}.csr`)) {
        throw new InputError(`file already exists: csr: ${k.file}.csr`);
      }
    }
  }
  const alt = nodeAltNames(spec);
  warnings.push(...alt.warnings);
  const keyType = keyTypeOf(spec.encryptionAlgorithm as EncryptionAlgorithm);
  const leaves = csrLeaves();
  const needSa = !existing.has(`pki/${SA_KEY}`);
  const keys = await Promise.all(
    [...leaves, ...KUBECONFIG_LIST, ...(needSa ? [SA_KEY] : [])].map(() =>
      generateKeyObject(keyType)
    ),
  );
  const files: PkiFile[] = [];
  const lines = ["generating keys and CSRs in pki"];
  leaves.forEach((c, i) => {
    const key = keys[i]!;
    const der = kubeadmCsrDer(key, certSubject(c, spec), certAltNames(c, alt));
    files.push(
      { path: `pki/${c.baseName}.key`, data: keyObjectPem(key), mode: 0o600 },
      { path: `pki/${c.baseName}.csr`, data: encodePem("CERTIFICATE REQUEST", der), mode: 0o600 },
    );
    lines.push(`  ${c.baseName}`);
  });
  lines.push("generating keys and CSRs in .");
  KUBECONFIG_LIST.forEach((k, i) => {
    const key = keys[leaves.length + i]!;
    const user = kubeconfigUser(k, spec);
    const der = kubeadmCsrDer(key, { commonName: user, organization: k.organization }, {
      dns: [],
      ips: [],
    });
    const kc = basicKubeconfig(
      externalCaKubeconfigServer(k, spec),
      new Uint8Array(),
      spec.clusterName,
      user,
      {
        "client-key-data": b64(keyObjectPem(key)),
      },
    );
    files.push(
      { path: k.file, data: kubeconfigYaml(kc), mode: 0o600 },
      { path: `${k.file}.csr`, data: encodePem("CERTIFICATE REQUEST", der), mode: 0o600 },
    );
    lines.push(`  ${k.file}`);
  });
  if (needSa) {
    const sa = keys[keys.length - 1]!;
    files.push(
      { path: `pki/${SA_KEY}`, data: keyObjectPem(sa), mode: 0o600 },
      { path: `pki/${SA_PUB}`, data: encodePem("PUBLIC KEY", keyObjectSpki(sa)), mode: 0o600 },
    );
    lines.push(`[certs] Generating "sa" key and public key`);
  } else {
    // A kept sa.key must be a key, and sa.pub its public key (written when absent): assemble
    // and the API server need the pair.
    const spki = keyObjectSpki(
      loadPrivateKey(text(existing.get(`pki/${SA_KEY}`)!), `pki/${SA_KEY}`),
    );
    const pub = existing.get(`pki/${SA_PUB}`);
    if (pub === undefined) {
      files.push({ path: `pki/${SA_PUB}`, data: encodePem("PUBLIC KEY", spki), mode: 0o600 });
    } else {
      let blocks: PemBlock[] = [];
      try {
        blocks = decodePem(text(pub), `pki/${SA_PUB}`);
      } catch { /* refused below */ }
      const block = blocks.find((b) => b.type === "PUBLIC KEY");
      if (!block || !Buffer.from(block.der).equals(Buffer.from(spki))) {
        throw new InputError(`pki/${SA_PUB}: is not the public key of pki/${SA_KEY}`);
      }
    }
    lines.push(`[certs] Using the existing "sa" key`);
  }
  return { files, lines, warnings };
}

/** Inputs of {@link generateKeysAndCsrsForNodes}. */
export interface GenerateCsrNodesOptions {
  /** The configuration: everything but each node's name and address. */
  spec: ControlPlanePkiSpec;
  /** The control-plane nodes, each in `<name>/`. */
  nodes: readonly ControlPlaneNode[];
  /** What each node directory holds already, by node name, then by path relative to it. */
  existing: ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>;
  force?: boolean;
}

/**
 * {@link generateKeysAndCsrs} for several control-plane nodes, as kubeadm's
 * external-CA HA flow runs `kubeadm certs generate-csr` on each node: each
 * node (`<name>/pki`, `<name>/*.conf`, paths relative to the output
 * directory) gets its own keys and CSRs (its name and address in the API
 * server's and etcd's SANs, its `kubelet.conf`, its own client keys), and
 * all share one service-account pair (the API servers must verify each
 * other's tokens): the one already in a node directory, or a new one.
 * Refuses (`InputError`) duplicate names or addresses (the texts of
 * `certs generate`), an invalid node, node directories holding different
 * `sa.key` files.
 */
export async function generateKeysAndCsrsForNodes(
  opts: GenerateCsrNodesOptions,
): Promise<GeneratedCsrs> {
  const specs = opts.nodes.map((n) => specForNode(opts.spec, n.name, n.advertiseAddress));
  checkControlPlaneNodes(specs, true);
  const saPath = `pki/${SA_KEY}`;
  const have = specs.flatMap((s) => {
    const b = opts.existing.get(s.nodeName)?.get(saPath);
    return b === undefined ? [] : [{ node: s.nodeName, pem: text(b) }];
  });
  const differ = have.find((h) => h.pem !== have[0]!.pem);
  if (differ) {
    throw new InputError(
      `${
        have[0]!.node
      }/${saPath} and ${differ.node}/${saPath} differ: the API servers of one cluster share one service-account key`,
    );
  }
  const keyType = keyTypeOf(opts.spec.encryptionAlgorithm as EncryptionAlgorithm);
  const saPem = have[0]?.pem ?? keyObjectPem(await generateKeyObject(keyType));
  const made = await Promise.all(specs.map((spec) => {
    const existing = new Map(opts.existing.get(spec.nodeName) ?? []);
    existing.set(saPath, new Uint8Array(Buffer.from(saPem, "utf8")));
    return generateKeysAndCsrs({ spec, existing, ...(opts.force ? { force: true } : {}) });
  }));
  const files: PkiFile[] = [];
  const lines: string[] = [];
  const warnings: string[] = [];
  made.forEach((m, i) => {
    const node = specs[i]!.nodeName;
    for (const f of m.files) files.push({ ...f, path: `${node}/${f.path}` });
    if (!opts.existing.get(node)?.has(saPath)) {
      files.push({ path: `${node}/${saPath}`, data: saPem, mode: 0o600 });
    }
    for (const l of m.lines) {
      if (l.startsWith("[certs] ")) continue; // the sa line: one for the run, below
      lines.push(
        l === "generating keys and CSRs in pki"
          ? `generating keys and CSRs in ${node}/pki`
          : l === "generating keys and CSRs in ."
          ? `generating keys and CSRs in ${node}`
          : l,
      );
    }
    warnings.push(...m.warnings.map((w) => w.replace(/^warning: /, `warning: ${node}: `)));
  });
  lines.push(
    have.length
      ? `[certs] Using the existing "sa" key of ${have[0]!.node}/${saPath} for every node`
      : `[certs] Generating "sa" key and public key (one for every node)`,
  );
  return { files, lines, warnings };
}

// ---------------------------------------------------------------------------
// Signing on the CA's machine.

/** A CA pair that signs (its certificate and key PEM). */
export interface SigningCa {
  certPem: string;
  keyPem: string;
  certSource: string;
  keySource: string;
}

/** What a CSR path of the generate-csr layout is: a cert-list leaf or a kubeconfig. */
export function csrTarget(
  path: string,
): { leaf: CertSpec } | { kubeconfig: KubeconfigSpec } | undefined {
  const m = /(?:^|\/)pki\/(.+)\.csr$/.exec(path);
  if (m) {
    const leaf = csrLeaves().find((c) => c.baseName === m[1]);
    return leaf ? { leaf } : undefined;
  }
  const k = KUBECONFIG_LIST.find((x) =>
    path === `${x.file}.csr` || path.endsWith(`/${x.file}.csr`)
  );
  return k ? { kubeconfig: k } : undefined;
}

/** Inputs of {@link signKubeadmCsrs}. */
export interface SignCsrsOptions {
  /** The CSRs by their path in the generate-csr layout (`pki/apiserver.csr`, `admin.conf.csr`). */
  csrs: ReadonlyMap<string, Uint8Array>;
  /** The CA pairs available here; a CSR whose CA is not given is refused. */
  cas: Partial<Record<CaName, SigningCa>>;
  now: Date;
  /** `certificateValidityPeriod` (8760h). */
  validityMs?: number;
  random?: RandomBytes;
}

/**
 * Signs each CSR as kubeadm signs the certificate it stands for: the CA of
 * the cert list (`front-proxy-client` → front-proxy-ca, etcd → etcd-ca,
 * the rest and every kubeconfig → ca), kubeadm's usages, the CSR's subject
 * and SANs, NotBefore = now − 5 min, NotAfter = now + validity. A CSR whose
 * signature does not verify, whose subject is not kubeadm's for that file,
 * or that asks for extensions beyond SANs is refused (`InputError`, naming
 * the file); so is a CA key that is not its certificate's. Returns the
 * certificate paths (`.csr` → `.crt`; `admin.conf.csr` → `admin.conf.crt`).
 */
export function signKubeadmCsrs(opts: SignCsrsOptions): PkiFile[] {
  const loaded = new Map<string, { cert: Cert; key: KeyObject }>();
  for (const [name, ca] of Object.entries(opts.cas) as [CaName, SigningCa][]) {
    const cert = pemCerts(ca.certPem, ca.certSource)[0]!;
    if (!cert.isCA) {
      throw new InputError(
        `${ca.certSource}: ${caSpec(name).baseName} certificate is not a certificate authority`,
      );
    }
    const key = loadPrivateKey(ca.keyPem, ca.keySource);
    if (!Buffer.from(keyObjectSpki(key)).equals(Buffer.from(cert.key.spki))) {
      throw new InputError(`${ca.keySource}: private key does not match ${ca.certSource}`);
    }
    if (opts.now > cert.notAfter) {
      throw new InputError(`${ca.certSource}: the CA has expired`);
    }
    loaded.set(name, { cert, key });
  }
  const now = opts.now.getTime();
  const notBefore = new Date(Math.floor((now - CERT_BACKDATE_MS) / 1000) * 1000);
  const notAfter = new Date(
    Math.floor((now + (opts.validityMs ?? DEFAULT_CERT_VALIDITY_MS)) / 1000) * 1000,
  );
  const out: PkiFile[] = [];
  for (const [path, bytes] of [...opts.csrs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const target = csrTarget(path);
    if (!target) {
      throw new InputError(
        `${path}: not a CSR of kubeadm certs generate-csr (pki/<name>.csr or <kubeconfig>.csr)`,
      );
    }
    let csr: Csr;
    try {
      csr = parseCsrPem(bytes, path);
    } catch (e) {
      throw new InputError(
        messageOf(e).startsWith(path) ? messageOf(e) : `${path}: ${messageOf(e)}`,
      );
    }
    const bad = csrSignatureProblem(csr);
    if (bad) throw new InputError(`${path}: the CSR's signature does not verify: ${bad}`);
    const others = csr.extensions.filter((e) => e.oid !== "2.5.29.17");
    if (others.length) {
      throw new InputError(
        `${path}: requests extensions kubeadm's CSRs do not carry (${
          others.map((e) => e.oid).join(", ")
        })`,
      );
    }
    const caName = "leaf" in target ? target.leaf.caName! : "ca";
    const usages = "leaf" in target ? target.leaf.usages : (["clientAuth"] as const);
    const want = "leaf" in target
      ? {
        commonName: target.leaf.commonName ??
          (csr.sans.dns.includes(csr.subject.commonName) ? csr.subject.commonName : /^$/),
        organization: target.leaf.organization,
      }
      : kubeconfigIdentity(target.kubeconfig, undefined);
    for (const p of identityProblems({ subject: csr.subject } as Cert, want)) {
      throw new InputError(`${path}: ${p.message.replace("subject is", "requests subject")}`);
    }
    if ("kubeconfig" in target || target.leaf.altNames === "none") {
      if (
        csr.sans.dns.length || csr.sans.ips.length || csr.sans.uris.length || csr.sans.emails.length
      ) {
        throw new InputError(
          `${path}: requests SANs; kubeadm's ${
            "leaf" in target ? target.leaf.baseName : target.kubeconfig.file
          } has none`,
        );
      }
    }
    if (csr.sans.uris.length || csr.sans.emails.length) {
      throw new InputError(
        `${path}: requests URI or email SANs; kubeadm's certificates carry DNS and IP SANs only`,
      );
    }
    const ca = loaded.get(caName as CaName);
    if (!ca) {
      throw new InputError(
        `${path}: is signed by ${caName}: give its certificate and key (--${caName} and --${caName}-key)`,
      );
    }
    const der = createCertificateDer({
      serialHex: randomSerialHex(opts.random),
      commonName: csr.subject.commonName,
      organization: csr.subject.organization,
      notBefore,
      notAfter,
      spki: csr.key.spki,
      isCA: false,
      extKeyUsages: usages,
      dns: csr.sans.dns,
      ips: csr.sans.ips,
    }, {
      subjectDer: ca.cert.subjectDer,
      subjectKeyId: ca.cert.subjectKeyId?.length ? ca.cert.subjectKeyId : undefined,
      privateKey: ca.key,
    });
    out.push({
      path: path.replace(/\.csr$/, ".crt"),
      data: encodePem("CERTIFICATE", der),
      mode: 0o644,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Assembling on the node's machine.

/** A PEM text that may hold signed certificates. */
export interface SignedInput {
  source: string;
  text: string;
}

/** Inputs of {@link assembleExternalCa}. */
export interface AssembleOptions {
  /** The generate-csr directory's files, by relative path (keys, CSRs, kubeconfigs, CA certificates). */
  existing: ReadonlyMap<string, Uint8Array>;
  /** Files holding the signed certificates (any names: each is matched to its key). */
  signed: readonly SignedInput[];
  /** CA certificates given apart (else `pki/ca.crt`, `pki/front-proxy-ca.crt`, `pki/etcd/ca.crt`). */
  cas?: Partial<Record<CaName, SignedInput>>;
  now: Date;
  /** The configuration: the kubeconfigs' servers and external etcd come from it. */
  spec?: ControlPlanePkiSpec;
  /** Replace a different certificate already in the tree. */
  force?: boolean;
}

/** What {@link assembleExternalCa} writes and says. */
export interface AssembledTree {
  files: PkiFile[];
  lines: string[];
  warnings: string[];
}

/** kubeadm's prefix for a problem of each external CA (`newInitData`). */
const EXTERNAL_PREFIX: Record<CaName, string> = {
  ca: "invalid or incomplete external CA",
  "front-proxy-ca": "invalid or incomplete external front-proxy CA",
  "etcd-ca": "invalid or incomplete external etcd CA",
};

/**
 * Puts the signed certificates into the tree and the kubeconfigs and checks
 * the result as kubeadm's external-CA detection would, more strictly, one
 * line naming the file. What a check says no to is a `CheckError`: a CA key
 * on this machine, a CA certificate that is not a CA, a certificate that
 * does not chain to its CA or is outside its lifetime (kubeadm's text:
 * `certificate API server is not signed by corresponding CA: x509: …`), one
 * with another subject, usages or fewer SANs than its CSR, a key that is not
 * its certificate's, `sa.pub` that is not `sa.key`'s. What is missing or
 * unreadable is an `InputError`: a CA certificate, a leaf or kubeconfig with
 * no signed certificate for its key, a signed certificate that matches no
 * key, a missing service-account pair. Nothing is written by this function.
 */
export function assembleExternalCa(opts: AssembleOptions): AssembledTree {
  const existing = opts.existing;
  const lines: string[] = [];
  const warnings: string[] = [];
  const files: PkiFile[] = [];
  const externalEtcd = opts.spec?.externalEtcd ??
    !(existing.has("pki/etcd/ca.crt") || opts.cas?.["etcd-ca"] !== undefined ||
      csrLeaves().some((c) => c.etcd && existing.has(`pki/${c.baseName}.key`)));

  // 1. The CAs: certificates only.
  const cas = new Map<CaName, { cert: Cert; pem: string; source: string }>();
  for (const name of ["ca", "front-proxy-ca", "etcd-ca"] as CaName[]) {
    const spec = caSpec(name);
    if (spec.etcd && externalEtcd) continue;
    const crt = `pki/${spec.baseName}.crt`;
    const key = `pki/${spec.baseName}.key`;
    if (existing.has(key)) {
      throw new CheckError(
        `${
          EXTERNAL_PREFIX[name]
        }: ${key} exists: in external-CA mode the CA key must not be on this machine (move it away; kubeadm would sign with it)`,
      );
    }
    const given = opts.cas?.[name];
    const onDisk = existing.get(crt);
    const source = given?.source ?? crt;
    const pem = given?.text ?? (onDisk !== undefined ? text(onDisk) : undefined);
    if (pem === undefined) {
      throw new InputError(
        `${EXTERNAL_PREFIX[name]}: failure loading certificate for ${
          UX_NAMES[name]
        }: ${crt}: missing (copy the CA certificate there or give --${name})`,
      );
    }
    let cert: Cert;
    try {
      cert = pemCerts(pem, source)[0]!;
    } catch (e) {
      throw new InputError(
        `${EXTERNAL_PREFIX[name]}: failure loading certificate for ${UX_NAMES[name]}: ${
          messageOf(e)
        }`,
      );
    }
    if (!cert.isCA) {
      throw new CheckError(
        `${EXTERNAL_PREFIX[name]}: ${source}: certificate ${UX_NAMES[name]} is not a CA`,
      );
    }
    if (
      onDisk !== undefined && given &&
      !Buffer.from(pemCerts(text(onDisk), crt)[0]!.der).equals(Buffer.from(cert.der))
    ) {
      throw new InputError(`${crt}: is not ${source}; refusing to replace a CA certificate`);
    }
    if (onDisk === undefined) {
      files.push({ path: crt, data: encodePem("CERTIFICATE", cert.der), mode: 0o644 });
      lines.push(`[certs] Using ${source} as the ${spec.baseName} certificate authority (keyless)`);
    } else lines.push(`[certs] Using existing ${spec.baseName} keyless certificate authority`);
    cas.set(name, { cert, pem: encodePem("CERTIFICATE", cert.der), source });
  }

  // 2. The signed certificates, by public key.
  const pool = new Map<string, { certs: Cert[]; pem: string; source: string; used: boolean }>();
  for (const s of opts.signed) {
    let blocks: PemBlock[];
    try {
      blocks = decodePem(s.text, s.source);
    } catch {
      blocks = [];
    }
    if (!blocks.some((b) => b.type === "CERTIFICATE")) continue;
    const certs = pemCerts(s.text, s.source);
    const leaf = certs[0]!;
    if (leaf.isCA) continue; // CA certificates come from --ca or pki/.
    const k = Buffer.from(leaf.key.spki).toString("hex");
    const prev = pool.get(k);
    if (prev && !Buffer.from(prev.certs[0]!.der).equals(Buffer.from(leaf.der))) {
      throw new InputError(
        `${s.source}: another certificate for the key of ${prev.source}; give only one`,
      );
    }
    pool.set(k, {
      certs,
      pem: certs.map((c) => encodePem("CERTIFICATE", c.der)).join(""),
      source: s.source,
      used: false,
    });
  }
  const take = (key: KeyObject) => {
    const e = pool.get(Buffer.from(keyObjectSpki(key)).toString("hex"));
    if (e) e.used = true;
    return e;
  };
  const csrOf = (path: string): Csr | undefined => {
    const b = existing.get(path);
    if (b === undefined) return undefined;
    try {
      return parseCsrPem(b, path);
    } catch {
      return undefined;
    }
  };
  const checkAgainst = (
    path: string,
    cert: Cert,
    want: Parameters<typeof identityProblems>[1],
    usages: readonly ("serverAuth" | "clientAuth")[],
    csr: Csr | undefined,
  ) => {
    for (const p of identityProblems(cert, want)) throw new CheckError(`${path}: ${p.message}`);
    // Without the extension a certificate is good for any usage (Go); with it, kubeadm's must be there.
    const have = cert.extKeyUsage;
    const missingUsages = have ? usages.filter((u) => !have.includes(EKU_OID[u])) : [];
    if (missingUsages.length) {
      throw new CheckError(
        `${path}: extended key usages lack ${missingUsages.join(", ")} (kubeadm's: ${
          usages.join(", ")
        })`,
      );
    }
    if (csr) {
      const missing = missingSans(cert, { dns: csr.sans.dns, ips: csr.sans.ips });
      if (missing.length) {
        throw new CheckError(`${path}: lacks ${missing.join(", ")} that its CSR asks for`);
      }
    }
  };

  // 3. Leaves.
  for (const c of csrLeaves()) {
    if (c.etcd && externalEtcd) continue;
    const crt = `pki/${c.baseName}.crt`;
    const keyPath = `pki/${c.baseName}.key`;
    const caName = c.caName as CaName;
    const ca = cas.get(caName)!;
    const prefix = EXTERNAL_PREFIX[caName];
    const keyBytes = existing.get(keyPath);
    if (keyBytes === undefined) {
      throw new InputError(
        `${prefix}: failure loading key for ${c.baseName}: ${keyPath}: missing (run certs generate-csr first)`,
      );
    }
    const key = loadPrivateKey(text(keyBytes), keyPath);
    const found = take(key);
    const onDisk = existing.get(crt);
    let certs: Cert[];
    let pem: string;
    let source: string;
    if (found) {
      ({ certs, pem, source } = found);
    } else if (onDisk !== undefined) {
      certs = pemCerts(text(onDisk), crt);
      pem = text(onDisk);
      source = crt;
      const m = keyMatches(text(keyBytes), keyPath, certs[0]!);
      if (!m.ok) {
        throw new CheckError(`${prefix}: ${keyPath}: private key ${m.reason} ${crt}`);
      }
    } else {
      throw new InputError(
        `${prefix}: failure loading certificate for ${
          UX_NAMES[c.name]
        }: ${crt}: missing: no signed certificate for ${keyPath} among the inputs`,
      );
    }
    const err = chainError(certs, ca.cert, opts.now);
    if (err) {
      throw new CheckError(
        `${prefix}: ${source}: certificate ${
          UX_NAMES[c.name]
        } is not signed by corresponding CA: ${err}`,
      );
    }
    const cert = certs[0]!;
    if (opts.now < cert.notBefore || opts.now > cert.notAfter) {
      throw new CheckError(
        `${prefix}: ${source}: certificate ${
          UX_NAMES[c.name]
        } is not signed by corresponding CA: x509: certificate has expired or is not yet valid`,
      );
    }
    const csr = csrOf(`pki/${c.baseName}.csr`);
    const wantCn = c.commonName ?? csr?.subject.commonName ?? opts.spec?.nodeName ??
      cert.subject.commonName;
    checkAgainst(source, cert, { commonName: wantCn, organization: c.organization }, c.usages, csr);
    if (source === crt || (onDisk !== undefined && text(onDisk) === pem)) {
      lines.push(`[certs] Using existing ${c.baseName} certificate and key on disk`);
      continue;
    }
    if (onDisk !== undefined && text(onDisk) !== pem && !opts.force) {
      throw new InputError(
        `${crt}: already exists and differs from ${source} (use --force to replace it)`,
      );
    }
    files.push({ path: crt, data: pem, mode: 0o644 });
    lines.push(`[certs] ${crt}: ${source}`);
  }

  // 4. The service-account pair (kubeadm does not make it in external-CA mode).
  const saKey = existing.get(`pki/${SA_KEY}`);
  const saPub = existing.get(`pki/${SA_PUB}`);
  if (saKey === undefined || saPub === undefined) {
    throw new InputError(
      `pki/${
        saKey === undefined ? SA_KEY : SA_PUB
      }: missing: kube-apiserver and kube-controller-manager need the service-account pair, and kubeadm does not make it in external-CA mode`,
    );
  }
  const sa = keyObjectSpki(loadPrivateKey(text(saKey), `pki/${SA_KEY}`));
  const pubBlock = decodePem(text(saPub), `pki/${SA_PUB}`).find((b) => b.type === "PUBLIC KEY");
  if (!pubBlock || !Buffer.from(pubBlock.der).equals(Buffer.from(sa))) {
    throw new CheckError(`pki/${SA_PUB}: is not the public key of pki/${SA_KEY}`);
  }

  // 5. Kubeconfigs: all five, super-admin.conf included (ValidateKubeconfigsForExternalCA).
  const ca = cas.get("ca")!;
  for (const k of KUBECONFIG_LIST) {
    const path = k.file;
    const data = existing.get(path);
    if (data === undefined) {
      throw new InputError(
        `the ${path} file does not exists or it is not valid: ${path}: missing (run certs generate-csr first)`,
      );
    }
    const parts = kubeconfigParts(text(data), path);
    const keyPem = dataField(parts.user, "client-key-data");
    if (!keyPem) throw new InputError(`${path}: user ${parts.userName} has no client-key-data`);
    const key = loadPrivateKey(text(keyPem), `${path} client-key-data`);
    const found = take(key);
    const embedded = dataField(parts.user, "client-certificate-data");
    let certs: Cert[];
    let pem: string;
    let source: string;
    if (found) ({ certs, pem, source } = found);
    else if (embedded) {
      certs = pemCerts(text(embedded), path);
      pem = text(embedded);
      source = `${path} client-certificate-data`;
      const m = keyMatches(text(keyPem), `${path} client-key-data`, certs[0]!);
      if (!m.ok) {
        throw new CheckError(`${path}: client-key-data ${m.reason} client-certificate-data`);
      }
    } else {
      throw new InputError(
        `the ${path} file does not exists or it is not valid: no signed certificate for its client key among the inputs`,
      );
    }
    const err = chainError(certs, ca.cert, opts.now);
    if (err) {
      throw new CheckError(
        `${source}: the client certificate of ${path} is not signed by ${ca.source}: ${err}`,
      );
    }
    const want = kubeconfigIdentity(k, opts.spec?.nodeName);
    checkAgainst(source, certs[0]!, want, ["clientAuth"], undefined);
    if (parts.userName !== certs[0]!.subject.commonName) {
      throw new CheckError(
        `${source}: CN ${certs[0]!.subject.commonName} is not ${path}'s user ${parts.userName}`,
      );
    }
    if (opts.spec) {
      const server = externalCaKubeconfigServer(k, opts.spec);
      if (parts.cluster.server !== server) {
        warnings.push(
          `a kubeconfig file ${
            JSON.stringify(path)
          } exists already but has an unexpected API Server URL: expected: ${server}, got: ${
            String(parts.cluster.server)
          }`,
        );
      }
    }
    const caB64 = b64(ca.pem);
    const certB64 = b64(pem);
    if (
      parts.cluster["certificate-authority-data"] === caB64 &&
      parts.user["client-certificate-data"] === certB64
    ) {
      lines.push(`[kubeconfig] Using existing kubeconfig file: ${JSON.stringify(path)}`);
      continue;
    }
    parts.cluster["certificate-authority-data"] = caB64;
    parts.user["client-certificate-data"] = certB64;
    files.push({ path, data: kubeconfigYaml(parts.object), mode: 0o600 });
    lines.push(`[kubeconfig] ${path}: ${source}`);
  }
  const unused = [...pool.values()].filter((e) => !e.used);
  if (unused.length) {
    throw new InputError(
      `${unused[0]!.source}: matches no key of the tree (signed for another CSR?)`,
    );
  }
  return { files, lines, warnings };
}
