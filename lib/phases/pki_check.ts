/**
 * A control plane's PKI tree checked as a whole, offline: every certificate
 * of kubeadm's cert list chains to the CA kubeadm signs it with
 * (`front-proxy-client` → `front-proxy-ca`, `etcd/*` and
 * `apiserver-etcd-client` → `etcd/ca`, the rest → `ca`), matches the key
 * beside it and has kubeadm's subject and extended key usages; each CA is a
 * CA whose key (when present) is its own; `sa.pub` is `sa.key`'s public
 * half; each kubeconfig embeds `ca.crt` in its current context's cluster and
 * a client certificate (and key) with kubeadm's subject, signed by `ca`.
 * With a configuration, the SANs kubeadm computes must be in the API server
 * and etcd certificates (what `kubeadm join --control-plane` checks) and the
 * kubeconfigs' servers must be kubeadm's URLs.
 *
 * Also the shared readers of the tree's files that `external_ca.ts` and
 * `renew.ts` use: the kubeconfig's current cluster and user as a plain
 * object, and the expected identity of each certificate.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { InputError, messageOf } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { parseManifests } from "../k8s/manifest.ts";
import { type Cert, parseCertificateFrom } from "../pki/cert_info.ts";
import { certificatesFromPem } from "../pki/certsource.ts";
import { keyObjectSpki } from "../pki/keys.ts";
import { decodePem } from "../pki/pem.ts";
import { verify } from "../pki/x509_verify.ts";
import {
  CERT_LIST,
  type CertSpec,
  type ControlPlanePkiSpec,
  nodeAltNames,
  SA_KEY,
  SA_PUB,
  specForNode,
} from "./certlist.ts";
import { loadPrivateKey } from "./certs.ts";
import { KUBECONFIG_LIST, kubeconfigServer, type KubeconfigSpec } from "./kubeconfigs.ts";

/** The EKU OIDs kubeadm writes, by name. */
export const EKU_OID = {
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

/** kubeadm's `uxName` of each certificate in its external-CA checks (`phases/certs/certs.go`). */
export const UX_NAMES: Readonly<Record<string, string>> = {
  ca: "CA",
  "front-proxy-ca": "front-proxy CA",
  "etcd-ca": "etcd CA",
  apiserver: "API server",
  "apiserver-kubelet-client": "API server kubelet client",
  "front-proxy-client": "front-proxy client",
  "apiserver-etcd-client": "apiserver etcd client",
  "etcd-server": "etcd server",
  "etcd-peer": "etcd peer",
  "etcd-healthcheck-client": "etcd health-check client",
};

/** The cert-list entry of a CA by its name (`ca`, `front-proxy-ca`, `etcd-ca`). */
export function caSpec(name: string): CertSpec {
  return CERT_LIST.find((c) => c.name === name && c.caName === undefined)!;
}

/** One problem with the tree. */
export interface PkiFinding {
  /** The file, relative to the tree's root (`pki/apiserver.crt`, `admin.conf`). */
  file: string;
  /** The rule: missing, ca, chain, key, subject, usage, san, kubeconfig, server, sa. */
  rule: string;
  message: string;
}

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");

/** The certificates of a PEM text, parsed (first = the leaf). */
export function pemCerts(pem: string, source: string): Cert[] {
  return certificatesFromPem(pem, source).map((der) => parseCertificateFrom(der, source));
}

/** The current context's cluster and user of a kubeconfig, as the (mutable) parsed object. */
export interface KubeconfigParts {
  /** The whole kubeconfig object. */
  object: Record<string, unknown>;
  /** `clusters[].cluster` of the current context's cluster. */
  cluster: Record<string, unknown>;
  /** `users[].user` of the current context's user. */
  user: Record<string, unknown>;
  clusterName: string;
  userName: string;
}

/**
 * Reads a kubeconfig and finds its current context's cluster and user
 * (client-go's maps). Throws `InputError` naming `path` with kubeadm's
 * renewal texts (`invalid kubeConfig file <p>: missing context <c>`).
 */
export function kubeconfigParts(kubeconfig: string, path: string): KubeconfigParts {
  let docs;
  try {
    docs = parseManifests(kubeconfig, path);
  } catch (e) {
    throw new InputError(
      `failed to load kubeConfig file ${path}: ${messageOf(e).replace(`${path}: `, "")}`,
    );
  }
  const object = docs[0] as Record<string, unknown> | undefined;
  if (docs.length !== 1 || !isObject(object)) {
    throw new InputError(`failed to load kubeConfig file ${path}: not one kubeconfig`);
  }
  const current = typeof object["current-context"] === "string" ? object["current-context"] : "";
  const named = (list: unknown, name: string, field: string) => {
    const found = (Array.isArray(list) ? list : []).find((e) => isObject(e) && e.name === name);
    return isObject(found) && isObject(found[field])
      ? found[field] as Record<string, unknown>
      : undefined;
  };
  const ctx = named(object.contexts, current, "context");
  if (!ctx) throw new InputError(`invalid kubeConfig file ${path}: missing context ${current}`);
  const clusterName = typeof ctx.cluster === "string" ? ctx.cluster : "";
  const userName = typeof ctx.user === "string" ? ctx.user : "";
  const cluster = named(object.clusters, clusterName, "cluster");
  if (!cluster) {
    throw new InputError(`invalid kubeConfig file ${path}: missing cluster ${clusterName}`);
  }
  const user = named(object.users, userName, "user");
  if (!user) throw new InputError(`invalid kubeConfig file ${path}: missing authInfo ${userName}`);
  return { object, cluster, user, clusterName, userName };
}

/** A `*-data` field decoded (base64 of PEM text), or undefined when absent or empty. */
export function dataField(entry: Record<string, unknown>, field: string): Uint8Array | undefined {
  const v = entry[field];
  if (typeof v !== "string" || v.trim() === "") return undefined;
  const b = Buffer.from(v.replace(/\s+/g, ""), "base64");
  return b.length ? new Uint8Array(b) : undefined;
}

/** The subject kubeadm gives a kubeconfig's client certificate (`system:node:` + any name when `nodeName` is unknown). */
export function kubeconfigIdentity(
  k: KubeconfigSpec,
  nodeName: string | undefined,
): { commonName: string | RegExp; organization: readonly string[] } {
  return {
    commonName: k.user ?? (nodeName !== undefined ? `system:node:${nodeName}` : /^system:node:.+/),
    organization: k.organization,
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** "CN=x, O=[a b]" for messages. */
function subjectText(cn: string, o: readonly string[]): string {
  return `CN=${cn}${o.length ? `, O=${o.join("+")}` : ""}`;
}

/**
 * Whether `cert` has the subject `want` (CN exact or matching, O values in
 * order) and, when `usages` is given, exactly those extended key usages;
 * the finding texts otherwise.
 */
export function identityProblems(
  cert: Cert,
  want: { commonName: string | RegExp; organization: readonly string[] },
  usages?: readonly ("serverAuth" | "clientAuth")[],
): { rule: string; message: string }[] {
  const out: { rule: string; message: string }[] = [];
  const cn = cert.subject.commonName;
  const o = cert.subject.organization;
  const cnOk = typeof want.commonName === "string"
    ? cn === want.commonName
    : want.commonName.test(cn);
  if (!cnOk || !sameList(o, want.organization)) {
    const wantCn = typeof want.commonName === "string" ? want.commonName : "system:node:<node>";
    out.push({
      rule: "subject",
      message: `subject is ${subjectText(cn, o)}, kubeadm's is ${
        subjectText(wantCn, want.organization)
      }`,
    });
  }
  if (usages) {
    const have = cert.extKeyUsage ?? [];
    const wantOids = usages.map((u) => EKU_OID[u]);
    const missing = usages.filter((u) => !have.includes(EKU_OID[u]));
    const extra = have.filter((x) => !(wantOids as string[]).includes(x));
    if (missing.length || extra.length) {
      out.push({
        rule: "usage",
        message: `extended key usages ${
          cert.extKeyUsage === undefined ? "absent" : `[${have.join(" ")}]`
        }: kubeadm's are [${usages.join(" ")}]${
          missing.length ? ` (missing ${missing.join(", ")})` : ""
        }`,
      });
    }
  }
  return out;
}

/** The SANs `want` lists that `cert` lacks (DNS, then IP), as `DNS:x` / `IP:y`. */
export function missingSans(cert: Cert, want: { dns: string[]; ips: string[] }): string[] {
  return [
    ...want.dns.filter((d) => !cert.sans.dns.includes(d)).map((d) => `DNS:${d}`),
    ...want.ips.filter((ip) => !cert.sans.ips.includes(ip)).map((ip) => `IP:${ip}`),
  ];
}

/** Go's `Verify` of `cert` (and its intermediates) to `ca` alone, judged inside `cert`'s lifetime. */
export function chainError(certs: readonly Cert[], ca: Cert, now: Date): string | undefined {
  const c = certs[0]!;
  // Expiry is the expiration check's to report; judge the chain inside the leaf's lifetime.
  const t = new Date(
    Math.min(Math.max(now.getTime(), c.notBefore.getTime()), c.notAfter.getTime()),
  );
  const r = verify(c, {
    roots: [ca],
    intermediates: certs.slice(1),
    currentTime: t,
    keyUsages: ["Any"],
  });
  return r.ok ? undefined : r.error;
}

/** Whether a private key PEM is the key of `cert` (`undefined`: it does not load; the reason). */
export function keyMatches(
  keyPem: string,
  source: string,
  cert: Cert,
): { ok: true } | { ok: false; reason: string } {
  try {
    const k = loadPrivateKey(keyPem, source);
    return Buffer.from(keyObjectSpki(k)).equals(Buffer.from(cert.key.spki))
      ? { ok: true }
      : { ok: false, reason: "does not match" };
  } catch (e) {
    return { ok: false, reason: messageOf(e).replace(`${source}: `, "") };
  }
}

/** Where the kubeadm trees are among `paths`: the prefix of each `…pki/ca.crt` (kubeconfigs beside `pki/`), or a bare cert dir. */
export function findPkiTrees(paths: readonly string[]): { root: string; pki: string }[] {
  const set = new Set(paths);
  const out: { root: string; pki: string }[] = [];
  for (const p of paths) {
    if (p === "pki/ca.crt" || p.endsWith("/pki/ca.crt")) {
      const root = p.slice(0, -"pki/ca.crt".length);
      out.push({ root, pki: `${root}pki/` });
    } else if (p === "ca.crt" || p.endsWith("/ca.crt")) {
      const dir = p.slice(0, -"ca.crt".length);
      if (dir.endsWith("etcd/") || dir.endsWith("pki/")) continue;
      if (set.has(`${dir}apiserver.crt`) || set.has(`${dir}front-proxy-ca.crt`)) {
        out.push({ root: dir, pki: dir });
      }
    }
  }
  return out.sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
}

/** Options of {@link checkPkiTree}. */
export interface PkiCheckOptions {
  /** The clock. */
  now: Date;
  /** The configuration the tree was made from: SANs and server URLs are checked against it. */
  spec?: ControlPlanePkiSpec;
  /** The certificate directory's prefix in `files` (default `pki/`; "" for a bare cert dir, no kubeconfigs). */
  pkiPrefix?: string;
}

/**
 * Checks one tree: `files` maps paths relative to its root (`pki/ca.crt`,
 * `admin.conf`) to their bytes. Returns every finding, in kubeadm's order
 * (CAs, leaves, sa, kubeconfigs); `[]` when the tree is kubeadm's. Missing
 * leaves are findings, except the etcd ones without `etcd/ca.crt` (external
 * etcd) and the kubeconfigs when none is there (a bare cert directory).
 *
 * @example
 * ```ts ignore
 * checkPkiTree(new Map([["pki/ca.crt", bytes], …]), { now: new Date() }); // []
 * ```
 */
export function checkPkiTree(
  files: ReadonlyMap<string, Uint8Array>,
  opts: PkiCheckOptions,
): PkiFinding[] {
  const out: PkiFinding[] = [];
  const pki = opts.pkiPrefix ?? "pki/";
  const add = (file: string, rule: string, message: string) => out.push({ file, rule, message });
  const spec = opts.spec && nodeSpec(files, pki, opts.spec);
  const cas = new Map<string, Cert>();

  // CAs.
  for (const c of CERT_LIST.filter((x) => x.caName === undefined)) {
    const crt = `${pki}${c.baseName}.crt`;
    const key = `${pki}${c.baseName}.key`;
    const data = files.get(crt);
    if (data === undefined) {
      if (c.etcd || files.has(key)) {
        if (files.has(key)) add(crt, "missing", `missing beside ${key}`);
        continue;
      }
      if (leafFiles(files, pki, c.name)) {
        add(crt, "missing", `missing: the ${UX_NAMES[c.name]} signs ${leafNames(c.name)}`);
      }
      continue;
    }
    let certs: Cert[];
    try {
      certs = pemCerts(text(data), crt);
    } catch (e) {
      add(crt, "ca", messageOf(e).replace(`${crt}: `, ""));
      continue;
    }
    const ca = certs[0]!;
    if (!ca.isCA) {
      add(crt, "ca", `certificate ${UX_NAMES[c.name]} is not a CA`);
      continue;
    }
    cas.set(c.name, ca);
    const k = files.get(key);
    if (k !== undefined) {
      const m = keyMatches(text(k), key, ca);
      if (!m.ok) add(key, "key", `private key ${m.reason} ${crt}`);
    }
  }
  const etcdLocal = files.has(`${pki}etcd/ca.crt`) ||
    (spec !== undefined && !spec.externalEtcd);

  // A tree with no leaf at all is a set of CAs (upload-certs' input): missing leaves are no finding.
  const anyLeaf = CERT_LIST.some((c) =>
    c.caName !== undefined && files.has(`${pki}${c.baseName}.crt`)
  );
  // Node name: from the configuration, else the etcd server certificate / kubelet.conf.
  let treeNode: string | undefined;
  // Leaves.
  for (const c of CERT_LIST.filter((x) => x.caName !== undefined)) {
    if (c.etcd && !etcdLocal) continue;
    const crt = `${pki}${c.baseName}.crt`;
    const key = `${pki}${c.baseName}.key`;
    const data = files.get(crt);
    if (data === undefined) {
      if (anyLeaf) add(crt, "missing", `missing: the ${c.longName}`);
      continue;
    }
    let certs: Cert[];
    try {
      certs = pemCerts(text(data), crt);
    } catch (e) {
      add(crt, "chain", messageOf(e).replace(`${crt}: `, ""));
      continue;
    }
    const cert = certs[0]!;
    const ca = cas.get(c.caName!);
    const caFile = `${pki}${caSpec(c.caName!).baseName}.crt`;
    if (ca) {
      const err = chainError(certs, ca, opts.now);
      if (err) {
        add(
          crt,
          "chain",
          `certificate ${UX_NAMES[c.name]} is not signed by corresponding CA (${caFile}): ${err}`,
        );
      }
    }
    const k = files.get(key);
    if (k === undefined) add(key, "key", `missing beside ${crt}`);
    else {
      const m = keyMatches(text(k), key, cert);
      if (!m.ok) add(key, "key", `private key ${m.reason} ${crt}`);
    }
    const perNodeCn = c.commonName === undefined;
    const nodeName = spec?.nodeName;
    let wantCn: string | RegExp = c.commonName ?? nodeName ?? /.*/;
    if (perNodeCn && nodeName === undefined) {
      // Without a configuration: the CN is the node name, which is a DNS SAN too.
      wantCn = cert.sans.dns.includes(cert.subject.commonName) ? /.*/ : /^$/;
      treeNode ??= cert.subject.commonName;
    }
    for (
      const p of identityProblems(
        cert,
        { commonName: wantCn, organization: c.organization },
        c.usages,
      )
    ) {
      add(
        crt,
        p.rule,
        p.rule === "subject" && typeof wantCn !== "string"
          ? `CN ${
            JSON.stringify(cert.subject.commonName)
          } is not one of its DNS SANs (kubeadm: the node name)`
          : p.message,
      );
    }
    if (spec && c.altNames !== "none") {
      const alt = expectedAltNames(spec, c, cert);
      const missing = missingSans(cert, alt);
      if (missing.length) {
        add(
          crt,
          "san",
          `lacks ${
            missing.join(", ")
          } that the configuration gives (kubeadm join --control-plane refuses it)`,
        );
      }
    }
  }

  // The service-account key pair.
  const saKey = files.get(`${pki}${SA_KEY}`);
  const saPub = files.get(`${pki}${SA_PUB}`);
  if (saKey === undefined && anyLeaf) {
    add(`${pki}${SA_KEY}`, "missing", "missing: the service-account signing key");
  }
  if (saPub === undefined && (anyLeaf || saKey !== undefined)) {
    add(`${pki}${SA_PUB}`, "missing", "missing: the service-account public key");
  }
  if (saKey !== undefined && saPub !== undefined) {
    try {
      const k = keyObjectSpki(loadPrivateKey(text(saKey), `${pki}${SA_KEY}`));
      const block = decodePem(text(saPub), `${pki}${SA_PUB}`).find((b) => b.type === "PUBLIC KEY");
      if (!block || !Buffer.from(block.der).equals(Buffer.from(k))) {
        add(`${pki}${SA_PUB}`, "sa", `is not the public key of ${pki}${SA_KEY}`);
      }
    } catch (e) {
      add(`${pki}${SA_KEY}`, "sa", messageOf(e).replace(`${pki}${SA_KEY}: `, ""));
    }
  }

  // Kubeconfigs (beside pki/ only).
  if (pki === "") return out;
  const root = pki.slice(0, -"pki/".length);
  const present = KUBECONFIG_LIST.filter((k) => files.has(root + k.file));
  if (present.length === 0) return out;
  const ca = cas.get("ca");
  for (const k of KUBECONFIG_LIST) {
    const file = root + k.file;
    const data = files.get(file);
    if (data === undefined) {
      add(file, "missing", `missing: kubeadm writes it (kubeadm init phase kubeconfig ${k.name})`);
      continue;
    }
    let parts: KubeconfigParts;
    try {
      parts = kubeconfigParts(text(data), file);
    } catch (e) {
      add(file, "kubeconfig", messageOf(e));
      continue;
    }
    const caData = dataField(parts.cluster, "certificate-authority-data");
    if (ca) {
      let first: Uint8Array | undefined;
      try {
        first = caData ? certificatesFromPem(text(caData), file)[0] : undefined;
      } catch {
        first = undefined;
      }
      if (!first || !Buffer.from(first).equals(Buffer.from(ca.der))) {
        add(
          file,
          "kubeconfig",
          caData
            ? `its current context's cluster does not embed ${pki}ca.crt (certificate-authority-data)`
            : "its current context's cluster has no certificate-authority-data",
        );
      }
    }
    if (spec) {
      const want = kubeconfigServer(k, spec);
      if (parts.cluster.server !== want) {
        add(file, "server", `server is ${String(parts.cluster.server)}, kubeadm's is ${want}`);
      }
    }
    const certData = dataField(parts.user, "client-certificate-data");
    if (!certData) {
      // kubelet.conf after kubelet-finalize points at the kubelet's rotated file.
      if (k.name === "kubelet" && typeof parts.user["client-certificate"] === "string") continue;
      add(file, "kubeconfig", `user ${parts.userName} has no client-certificate-data`);
      continue;
    }
    let certs: Cert[];
    try {
      certs = pemCerts(text(certData), file);
    } catch (e) {
      add(file, "kubeconfig", `client-certificate-data: ${messageOf(e).replace(`${file}: `, "")}`);
      continue;
    }
    const cert = certs[0]!;
    if (ca) {
      const err = chainError(certs, ca, opts.now);
      if (err) {
        add(file, "chain", `client certificate is not signed by ${pki}ca.crt: ${err}`);
      }
    }
    const keyData = dataField(parts.user, "client-key-data");
    if (!keyData) add(file, "key", `user ${parts.userName} has no client-key-data`);
    else {
      const m = keyMatches(text(keyData), `${file} client-key-data`, cert);
      if (!m.ok) add(file, "key", `client-key-data ${m.reason} the client certificate`);
    }
    const want = kubeconfigIdentity(k, spec?.nodeName ?? treeNode);
    for (const p of identityProblems(cert, want, ["clientAuth"])) {
      add(file, p.rule, `client certificate ${p.message}`);
    }
    if (parts.userName !== cert.subject.commonName) {
      add(
        file,
        "kubeconfig",
        `user ${parts.userName} is not the client certificate's CN ${cert.subject.commonName}`,
      );
    }
  }
  return out;
}

/**
 * The configuration as it applies to this tree's node: a tree of several
 * control-plane nodes (certs generate's node directories) belongs to a node
 * the configuration need not name, so when the tree's node (its etcd server
 * certificate's CN, else kubelet.conf's user) is another, its name and
 * address (the etcd server's first IP SAN, else the API server's second)
 * replace the configuration's.
 */
function nodeSpec(
  files: ReadonlyMap<string, Uint8Array>,
  pki: string,
  spec: ControlPlanePkiSpec,
): ControlPlanePkiSpec {
  const first = (file: string): Cert | undefined => {
    const b = files.get(file);
    if (b === undefined) return undefined;
    try {
      return pemCerts(text(b), file)[0];
    } catch {
      return undefined;
    }
  };
  const etcd = first(`${pki}etcd/server.crt`);
  let name = etcd?.subject.commonName;
  if (!name && pki !== "") {
    const kc = files.get(`${pki.slice(0, -"pki/".length)}kubelet.conf`);
    try {
      const user = kc ? kubeconfigParts(text(kc), "kubelet.conf").userName : "";
      if (user.startsWith("system:node:")) name = user.slice("system:node:".length);
    } catch {
      // reported by the kubeconfig checks
    }
  }
  if (!name || name === spec.nodeName) return spec;
  const address = etcd?.sans.ips[0] ?? first(`${pki}apiserver.crt`)?.sans.ips[1];
  return specForNode(spec, name, address ?? spec.advertiseAddress);
}

function leafFiles(files: ReadonlyMap<string, Uint8Array>, pki: string, caName: string): boolean {
  return CERT_LIST.some((c) => c.caName === caName && files.has(`${pki}${c.baseName}.crt`));
}

function leafNames(caName: string): string {
  return CERT_LIST.filter((c) => c.caName === caName).map((c) => c.baseName).join(", ");
}

/**
 * The SANs kubeadm's configuration gives a certificate of this tree. When
 * the tree is another node's (its CN is not the configuration's node name),
 * the node's own name and address are left out and the rest still counts.
 */
function expectedAltNames(
  spec: ControlPlanePkiSpec,
  c: CertSpec,
  cert: Cert,
): { dns: string[]; ips: string[] } {
  let alt;
  try {
    alt = nodeAltNames(spec);
  } catch {
    return { dns: [], ips: [] };
  }
  const set = c.altNames === "apiserver"
    ? alt.apiserver
    : c.altNames === "etcd-server"
    ? alt.etcdServer
    : c.altNames === "etcd-peer"
    ? alt.etcdPeer
    : { dns: [c.commonName!], ips: [] };
  const sameNode = c.altNames === "apiserver"
    ? cert.sans.dns.includes(spec.nodeName)
    : cert.subject.commonName === spec.nodeName;
  if (sameNode || c.altNames === "ca") return set;
  const adv = alt.etcdServer.ips[0];
  return {
    dns: set.dns.filter((d) => d !== spec.nodeName),
    ips: set.ips.filter((ip) => ip !== adv),
  };
}
