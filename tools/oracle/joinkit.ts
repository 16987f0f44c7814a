/**
 * joinkit's side of the differential oracle: every call into lib/ goes
 * through this one module, so when a library function is renamed or changes
 * shape only this file changes. Each judgement returns a verdict of the same
 * shape as the Go program's answer (tools/oracle/main.go), normalised.
 *
 * Modules still being written are loaded by computed specifier and probed for
 * the function; a judgement whose function is missing answers
 * `{ unavailable: "<why>" }` and the driver counts it as skipped.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { stringify as yamlStringify } from "yaml";

// deno-lint-ignore no-explicit-any
type Mod = Record<string, any>;

const modules = new Map<string, Promise<Mod | undefined>>();

/** A lib/ module by name, or undefined when it does not exist (yet). */
function lib(name: string): Promise<Mod | undefined> {
  let p = modules.get(name);
  if (!p) {
    const url = new URL(`../../lib/${name}`, import.meta.url).href;
    p = import(url).then((m) => m as Mod, (e) => {
      if (String(e).includes("Module not found")) return undefined;
      throw e;
    });
    modules.set(name, p);
  }
  return p;
}

/** The first of `names` that `mod` exports as a function. */
// deno-lint-ignore no-explicit-any
function fn(mod: Mod | undefined, ...names: string[]): ((...a: any[]) => any) | undefined {
  for (const n of names) if (typeof mod?.[n] === "function") return mod[n];
  return undefined;
}

const msg = (e: unknown) => e instanceof Error ? e.message : String(e);

/** First 12 hex digits of SHA-256, as main.go's certID. */
export function certId(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("hex").slice(0, 12);
}

export interface Unavailable {
  unavailable: string;
}

// ---- cert ----

const EKU_GO: Record<string, string> = {
  "2.5.29.37.0": "Any",
  "1.3.6.1.5.5.7.3.1": "ServerAuth",
  "1.3.6.1.5.5.7.3.2": "ClientAuth",
  "1.3.6.1.5.5.7.3.3": "CodeSigning",
  "1.3.6.1.5.5.7.3.4": "EmailProtection",
  "1.3.6.1.5.5.7.3.5": "IPSECEndSystem",
  "1.3.6.1.5.5.7.3.6": "IPSECTunnel",
  "1.3.6.1.5.5.7.3.7": "IPSECUser",
  "1.3.6.1.5.5.7.3.8": "TimeStamping",
  "1.3.6.1.5.5.7.3.9": "OCSPSigning",
  "1.3.6.1.4.1.311.10.3.3": "MicrosoftServerGatedCrypto",
  "2.16.840.1.113730.4.1": "NetscapeServerGatedCrypto",
  "1.3.6.1.4.1.311.2.1.22": "MicrosoftCommercialCodeSigning",
  "1.3.6.1.4.1.311.61.1.1": "MicrosoftKernelCodeSigning",
};

function ipText(b: Uint8Array, formatIp: (b: Uint8Array) => string): string {
  return formatIp(b);
}

function prefixLen(mask: Uint8Array): number {
  let n = 0;
  for (const b of mask) n += b.toString(2).replace(/0/g, "").length;
  return n;
}

/** The fields main.go's judgeCert reports, read from joinkit's Cert. */
// deno-lint-ignore no-explicit-any
async function certFields(c: any): Promise<Record<string, unknown>> {
  const info = await lib("pki/cert_info.ts");
  const pkix = await lib("pki/pkix.ts");
  const time = await lib("go/time.ts");
  const formatIp = fn(pkix, "formatIp")!;
  const fmt = fn(time, "formatRfc3339")!;
  const ekus: string[] = c.extKeyUsage ?? [];
  const f: Record<string, unknown> = {
    version: c.version,
    serial: fn(info, "serialDecimal")!(c.serial),
    subjectCN: c.subject.commonName,
    subjectO: c.subject.organization,
    issuerCN: c.issuer.commonName,
    notBefore: fmt(c.notBefore),
    notAfter: fmt(c.notAfter),
    dns: c.sans.dns,
    emails: c.sans.emails,
    ips: c.sanIpBytes ? c.sanIpBytes.map((b: Uint8Array) => ipText(b, formatIp)) : c.sans.ips,
    uris: c.sans.uris,
    bcValid: c.basicConstraintsValid ?? c.basicConstraints !== undefined,
    isCA: c.isCA ?? c.basicConstraints?.isCA === true,
    maxPathLen: c.maxPathLen ?? c.basicConstraints?.maxPathLen ?? -1,
    keyUsage: c.keyUsage ?? 0,
    // Go's String() of an unknown algorithm is its number, 0.
    sigAlg: c.signatureAlgorithm === undefined ? undefined : c.signatureAlgorithm || "0",
    pubKeyAlg: c.publicKeyAlgorithm === undefined ? undefined : c.publicKeyAlgorithm || "0",
    unhandled: c.unhandledCriticalExtensions?.length,
    eku: ekus.filter((o) => EKU_GO[o]).map((o) => EKU_GO[o]),
    unknownEku: ekus.filter((o) => !EKU_GO[o]),
    subjectKeyId: c.subjectKeyId ? Buffer.from(c.subjectKeyId).toString("hex") : "",
  };
  if (f.bcValid === false) delete f.maxPathLen; // as main.go: meaningless without the extension
  const nc = c.nameConstraints;
  if (nc) {
    const cidr = (r: { ip: Uint8Array; mask: Uint8Array }) =>
      `${formatIp(r.ip)}/${prefixLen(r.mask)}`;
    f.nameConstraints = {
      critical: nc.critical,
      permittedDNS: nc.permittedDns,
      excludedDNS: nc.excludedDns,
      permittedIP: nc.permittedIp.map(cidr),
      excludedIP: nc.excludedIp.map(cidr),
      permittedEmail: nc.permittedEmail,
      excludedEmail: nc.excludedEmail,
      permittedURI: nc.permittedUri,
      excludedURI: nc.excludedUri,
    };
  }
  for (const k of Object.keys(f)) if (f[k] === undefined) delete f[k];
  return f;
}

export type CertVerdict =
  | { ok: true; fields: Record<string, unknown> }
  | { ok: false; err: string }
  | Unavailable;

/** `x509.ParseCertificate`: joinkit's `parseCertificate` (lib/cert_info.ts). */
export async function judgeCert(der: Uint8Array): Promise<CertVerdict> {
  const parse = fn(await lib("pki/cert_info.ts"), "parseCertificate");
  if (!parse) return { unavailable: "lib/cert_info.ts parseCertificate" };
  let c;
  try {
    c = parse(der);
  } catch (e) {
    return { ok: false, err: msg(e) };
  }
  return { ok: true, fields: await certFields(c) };
}

// ---- csr ----

export type CsrVerdict =
  | { ok: true; fields: Record<string, unknown>; check: string }
  | { ok: false; err: string }
  | Unavailable;

/** `x509.ParseCertificateRequest` + `CheckSignature`: lib/csr.ts and lib/x509_signature.ts. */
export async function judgeCsr(der: Uint8Array): Promise<CsrVerdict> {
  const csrMod = await lib("kubelet/csr.ts");
  const parse = fn(csrMod, "parseCsrDer");
  if (!parse) return { unavailable: "lib/csr.ts parseCsrDer" };
  // deno-lint-ignore no-explicit-any
  let c: any;
  try {
    c = parse(der);
  } catch (e) {
    return { ok: false, err: msg(e) };
  }
  let check: string | undefined;
  const goCheck = fn(await lib("pki/x509_signature.ts"), "checkSignature");
  const csrCheck = fn(csrMod, "checkCsrSignatureGo", "checkCsrSignature");
  if (goCheck && typeof c.signatureAlgorithm === "string") {
    check = goCheck(
      c.signatureAlgorithm,
      c.tbs,
      c.signature,
      c.publicKeyAlgorithm ?? c.key?.type ?? "",
      c.key?.spki ?? c.spki,
      true,
    );
  } else if (csrCheck) {
    check = await csrCheck(c);
  }
  const ips: string[] = c.sans.ips;
  const formatIp = fn(await lib("pki/pkix.ts"), "formatIp")!;
  const fields: Record<string, unknown> = {
    subjectCN: c.subject.commonName,
    subjectO: c.subject.organization,
    dns: c.sans.dns,
    emails: c.sans.emails,
    ips: c.sanIpBytes ? c.sanIpBytes.map((b: Uint8Array) => formatIp(b)) : ips,
    uris: c.sans.uris,
  };
  if (typeof c.signatureAlgorithm === "string") fields.sigAlg = c.signatureAlgorithm || "0";
  if (typeof c.publicKeyAlgorithm === "string") fields.pubKeyAlg = c.publicKeyAlgorithm || "0";
  return { ok: true, fields, check: check ?? "" };
}

// ---- pem ----

export interface PemVerdict {
  ok: boolean;
  err: string;
  certs: string[];
  blocks: { type: string; headers: number; len: number; sha: string }[];
}

/**
 * `pem.Decode` loop (lib/pem.ts `decodePem`) and client-go `ParseCertsPEM`
 * (lib/certsource.ts `parseCertsPem`, or `certificatesFromPem` until it lands).
 */
export async function judgePem(data: Uint8Array): Promise<PemVerdict | Unavailable> {
  const pem = await lib("pki/pem.ts");
  const certsource = await lib("pki/certsource.ts");
  const decode = fn(pem, "decodePemBlocks", "decodePem");
  const parseCerts = fn(certsource, "parseCertsPem", "parseCertsPEM");
  if (!decode) return { unavailable: "lib/pem.ts decodePem" };
  // Bytes as one character each (what lib/certsource.ts does with bytes); block
  // types go back to UTF-8 for comparison with Go's JSON.
  const text = Buffer.from(data).toString("latin1");
  const utf8Type = (t: string) => new TextDecoder().decode(Buffer.from(t, "latin1"));
  const v: PemVerdict = { ok: false, err: "", certs: [], blocks: [] };
  try {
    // deno-lint-ignore no-explicit-any
    const blocks: any[] = decode(text, "input");
    v.blocks = blocks.map((b) => {
      const bytes: Uint8Array = b.der ?? b.bytes;
      return {
        type: utf8Type(b.type),
        headers: b.headers instanceof Map ? b.headers.size : Object.keys(b.headers ?? {}).length,
        len: bytes.length,
        sha: certId(bytes),
      };
    });
  } catch (e) {
    v.blocks = [{ type: `<threw: ${msg(e)}>`, headers: 0, len: -1, sha: "" }];
  }
  try {
    if (parseCerts) {
      const parse = fn(await lib("pki/cert_info.ts"), "parseCertificate")!;
      // deno-lint-ignore no-explicit-any
      const certs: any[] = await parseCerts(data, parse);
      v.certs = certs.map((c) => certId(c instanceof Uint8Array ? c : c.der));
    } else {
      const legacy = fn(certsource, "certificatesFromPem")!;
      v.certs = (legacy(text, "input") as Uint8Array[]).map(certId);
    }
    v.ok = true;
  } catch (e) {
    v.err = msg(e);
  }
  return v;
}

// ---- rfc3339 ----

export type TimeVerdict =
  | { ok: true; sec: number; nsec: number }
  | { ok: false; err: string }
  | Unavailable;

/** `time.Parse(time.RFC3339, s)`: lib/time.ts `parseGoTime` (or `tryParseRfc3339`). */
export async function judgeRfc3339(s: string): Promise<TimeVerdict> {
  const time = await lib("go/time.ts");
  const goParse = fn(time, "parseGoTime");
  if (goParse) {
    const r = goParse(s);
    if (r.ok) return { ok: true, sec: r.time.unix, nsec: r.time.nanos };
    return { ok: false, err: r.error };
  }
  const tryParse = fn(time, "tryParseRfc3339");
  if (!tryParse) return { unavailable: "lib/time.ts parseGoTime" };
  const d: Date | undefined = tryParse(s);
  if (!d) return { ok: false, err: "" };
  const ms = d.getTime();
  return { ok: true, sec: Math.floor(ms / 1000), nsec: (ms % 1000) * 1e6 };
}

// ---- kubeconfig ----

export type KubeconfigVerdict =
  | { ok: true; cluster: string; server: string; pinned?: number }
  | { ok: false; stage: string; err: string }
  | Unavailable;

/**
 * Cluster choice and pin check over a cluster-info kubeconfig, given as the
 * YAML joinkit reads (the driver sends the same object to Go as JSON).
 */
export async function judgeKubeconfig(
  kubeconfig: Record<string, unknown>,
  pins: string[],
): Promise<KubeconfigVerdict> {
  const yaml = yamlStringify(kubeconfig);
  const disc = await lib("discovery/discovery.ts");
  const read = await lib("k8s/kubeconfig_read.ts");
  const kc = await lib("discovery/bootstrap_kubeconfig.ts");
  const choose = fn(disc, "chooseCluster", "clusterInfoCluster", "selectCluster") ??
    fn(read, "chooseCluster", "getClusterFromKubeConfig", "clusterFromKubeconfig");
  const parse = fn(read, "parseKubeconfig") ?? fn(kc, "parseKubeconfig");
  if (!parse) return { unavailable: "parseKubeconfig" };
  // deno-lint-ignore no-explicit-any
  let parsed: any;
  try {
    parsed = parse(yaml, "kubeconfig");
  } catch (e) {
    return { ok: false, stage: "load", err: msg(e) };
  }
  // deno-lint-ignore no-explicit-any
  let cluster: any;
  try {
    cluster = choose ? choose(parsed) : fn(read, "clusterOf")!(parsed);
  } catch (e) {
    return { ok: false, stage: "choose", err: msg(e) };
  }
  if (!cluster) return { ok: false, stage: "choose", err: "no cluster" };
  // getClusterFromKubeConfig answers { name, cluster }; clusterOf the cluster itself.
  const chosenName: string = cluster.cluster ? cluster.name : cluster.name;
  if (cluster.cluster) cluster = cluster.cluster;
  const out: KubeconfigVerdict = { ok: true, cluster: chosenName, server: cluster.server };
  if (pins.length > 0) {
    const certsource = await lib("pki/certsource.ts");
    const parseCerts = fn(certsource, "parseCertsPem", "parseCertsPEM");
    const text = new TextDecoder().decode(cluster.caData);
    const parseCert = fn(await lib("pki/cert_info.ts"), "parseCertificate")!;
    let ders: Uint8Array[];
    try {
      // deno-lint-ignore no-explicit-any
      const certs: any[] = parseCerts
        ? await parseCerts(cluster.caData, parseCert)
        : fn(certsource, "certificatesFromPem")!(text, "certificate-authority-data");
      ders = certs.map((c) => c instanceof Uint8Array ? c : c.der);
    } catch (e) {
      return {
        ok: false,
        stage: "parseCA",
        err: `failed to parse cluster CA from the cluster-info ConfigMap: ${msg(e)}`,
      };
    }
    const { PinSet } = (await lib("pki/pin.ts"))!;
    const set = new PinSet();
    set.allow(...pins);
    try {
      out.pinned = set.checkAny(ders);
    } catch (e) {
      return { ok: false, stage: "pin", err: msg(e) };
    }
  }
  return out;
}

// ---- chain ----

export type ChainVerdict =
  | { ok: true; chains: string[] }
  | { ok: false; err: string }
  | Unavailable;

export interface ChainInput {
  leaf: Uint8Array;
  intermediates: Uint8Array[];
  roots: Uint8Array[];
  time: string;
  keyUsages: string[];
  dnsName: string;
}

/** `(*Certificate).Verify`: lib/x509_verify.ts `verify`, certificates parsed by lib/cert_info.ts. */
export async function judgeChain(input: ChainInput): Promise<ChainVerdict> {
  const verify = fn(await lib("pki/x509_verify.ts"), "verify");
  const parse = fn(await lib("pki/cert_info.ts"), "parseCertificate");
  if (!verify || !parse) return { unavailable: "lib/x509_verify.ts verify" };
  // deno-lint-ignore no-explicit-any
  let leaf: any, intermediates: any[], roots: any[];
  try {
    leaf = parse(input.leaf);
    intermediates = input.intermediates.map((d) => parse(d));
    roots = input.roots.map((d) => parse(d));
  } catch (e) {
    return { ok: false, err: `parse: ${msg(e)}` };
  }
  const parseTime = fn(await lib("go/time.ts"), "parseRfc3339")!;
  // deno-lint-ignore no-explicit-any
  let r: any;
  try {
    r = await verify(leaf, {
      roots,
      intermediates,
      currentTime: parseTime(input.time),
      keyUsages: input.keyUsages,
      dnsName: input.dnsName,
    });
  } catch (e) {
    return { ok: false, err: `threw: ${msg(e)}` };
  }
  if (!r.ok) return { ok: false, err: String(r.error) };
  // deno-lint-ignore no-explicit-any
  const ids = (r.chains as any[][]).map((ch) => ch.map((c) => certId(c.der ?? c)).join(">"));
  ids.sort();
  return { ok: true, chains: ids };
}

// ---- regexp ----

export type RegexpVerdict =
  | { ok: true; match: boolean }
  | { ok: false; err: string }
  | Unavailable;

/**
 * `regexp.Compile(p)` then `MatchString(s)`, or `Match(bytes)` when `b`
 * (base64) is given: lib/go/regexp.ts `compileGoRegexp`.
 */
export async function judgeRegexp(c: { p: string; s: string; b?: string }): Promise<RegexpVerdict> {
  const compile = fn(await lib("go/regexp.ts"), "compileGoRegexp");
  if (!compile) return { unavailable: "lib/go/regexp.ts compileGoRegexp" };
  let re;
  try {
    re = compile(c.p);
  } catch (e) {
    return { ok: false, err: (e as Error).message };
  }
  if (c.b === undefined) return { ok: true, match: re.matchString(c.s) };
  return { ok: true, match: re.match(new Uint8Array(Buffer.from(c.b, "base64"))) };
}
