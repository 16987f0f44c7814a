/**
 * During a manual CA rotation ("Manual Rotation of CA Certificates"), which
 * of joinkit's (and kubeadm's) artefacts still trust, pin or were issued by
 * the old CA only. Each artefact is classified against the new CA:
 *
 * - trust anchors (a kubeconfig's `certificate-authority-data`, the
 *   cluster-info ConfigMap, a CA bundle file, `ca.crt` of a ConfigMap such
 *   as `kube-root-ca.crt` or of a Secret): `new-only`, `old+new` (the new
 *   CA and others: a trust bundle mid-rotation) or `old-only`;
 * - pins (a `kubeadm join` command's `--discovery-token-ca-cert-hash`, a
 *   JoinConfiguration's `caCertHashes`): the same three, by SPKI pin
 *   (kubeadm's `CheckAny`: any pin matching any CA passes);
 * - issued certificates (a certificate file, a kubeconfig's client
 *   certificate, a CSR's `status.certificate`): `new-ca` when the new CA's
 *   key signed it, else `other-ca`.
 *
 * A CA counts as the new one when its public key is (the pin compares
 * SubjectPublicKeyInfo, as kubeadm's does). `old-only` and `other-ca` are
 * what still has to be redone.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { isObject } from "../base/object.ts";
import { type KubeObject, parseManifests } from "../k8s/manifest.ts";
import { type ParsedKubeconfig, parseKubeconfig } from "../k8s/kubeconfig_read.ts";
import { type Cert, isCa, parseCertificate } from "../pki/cert_info.ts";
import { parseCertsPem } from "../pki/certsource.ts";
import { decodePem } from "../pki/pem.ts";
import { PinSet, spkiHash } from "../pki/pin.ts";
import { InputError } from "../base/errors.ts";
import { checkSignatureFrom } from "../pki/x509_verify.ts";

/** How one artefact stands. */
export type RotationStatus =
  | "new-only"
  | "old+new"
  | "old-only"
  | "new-ca"
  | "other-ca"
  | "unpinned"
  | "file-ref";

/** The statuses that mean the artefact still depends on the old CA only. */
export const OLD_ONLY: ReadonlySet<RotationStatus> = new Set(["old-only", "other-ca"]);

/** One finding: an artefact (or a part of one) and how it stands. */
export interface RotationFinding {
  /** The file, with the object or part inside it (`file: cluster "kubernetes"`). */
  artefact: string;
  /** What it is: `kubeconfig CA`, `client certificate`, `join command pins`, … */
  kind: string;
  status: RotationStatus;
  /** Counts and names, never secrets. */
  detail: string;
}

/** The new CA: its certificates and their pins. */
export interface NewCa {
  certs: Cert[];
  pins: Set<string>;
}

/** The new CA from its PEM (every certificate in it counts as new). */
export function newCaFrom(certs: Cert[]): NewCa {
  return { certs, pins: new Set(certs.map((c) => spkiHash(c.key.spki))) };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** Classifies a set of trusted CA certificates. */
export function trustStatus(
  cas: readonly Cert[],
  ca: NewCa,
): { status: RotationStatus; detail: string } {
  const isNew = cas.filter((c) => ca.pins.has(spkiHash(c.key.spki))).length;
  const others = cas.length - isNew;
  const status = isNew === 0 ? "old-only" : others === 0 ? "new-only" : "old+new";
  return {
    status,
    detail: `${plural(cas.length, "CA certificate")}, ${isNew} of them the new CA`,
  };
}

/** Classifies a set of `sha256:` pins (kubeadm's `CheckAny`: one match is enough). */
export function pinStatus(
  pins: readonly string[],
  ca: NewCa,
): { status: RotationStatus; detail: string } {
  if (pins.length === 0) return { status: "unpinned", detail: "no CA pins" };
  const isNew = pins.filter((p) => ca.pins.has(p.toLowerCase())).length;
  const others = pins.length - isNew;
  const status = isNew === 0 ? "old-only" : others === 0 ? "new-only" : "old+new";
  return { status, detail: `${plural(pins.length, "pin")}, ${isNew} of them the new CA's` };
}

/** Whether the new CA signed `leaf` (Go's `CheckSignatureFrom`, issuer name matching). */
export function issuedStatus(leaf: Cert, ca: NewCa): { status: RotationStatus; detail: string } {
  const by = ca.certs.some((c) =>
    Buffer.from(leaf.issuerDer).equals(Buffer.from(c.subjectDer)) &&
    checkSignatureFrom(leaf, c) === undefined
  );
  const cn = leaf.subject.commonName || "(no CN)";
  const issuer = leaf.issuer.commonName || "(no CN)";
  return {
    status: by ? "new-ca" : "other-ca",
    detail: `CN=${cn}, issued by CN=${issuer}, ${
      by ? "signed by the new CA" : "not signed by the new CA"
    }`,
  };
}

function certsOf(data: Uint8Array | string): Cert[] {
  return parseCertsPem(data, parseCertificate);
}

function fromKubeconfig(
  cfg: ParsedKubeconfig,
  where: string,
  ca: NewCa,
  caKind: string,
): RotationFinding[] {
  const out: RotationFinding[] = [];
  for (const c of cfg.clusters) {
    const artefact = `${where}: cluster ${JSON.stringify(c.name)}`;
    if (c.caData.length) {
      out.push({ artefact, kind: caKind, ...trustStatus(certsOf(c.caData), ca) });
    } else if (c.caFile) {
      out.push({
        artefact,
        kind: caKind,
        status: "file-ref",
        detail: `certificate-authority: ${c.caFile} (check that file)`,
      });
    }
  }
  for (const u of cfg.users) {
    if (!u.clientCertData.length) continue;
    const leaf = certsOf(u.clientCertData)[0]!;
    out.push({
      artefact: `${where}: user ${JSON.stringify(u.name)}`,
      kind: "client certificate",
      ...issuedStatus(leaf, ca),
    });
  }
  return out;
}

function dataString(obj: KubeObject, key: string, base64: boolean): string | undefined {
  const data = isObject(obj.data) ? obj.data : undefined;
  const v = data?.[key];
  if (typeof v !== "string") return undefined;
  return base64 ? Buffer.from(v, "base64").toString("utf8") : v;
}

function objectName(obj: KubeObject): string {
  const md = isObject(obj.metadata) ? obj.metadata : {};
  const ns = typeof md.namespace === "string" && md.namespace ? `${md.namespace}/` : "";
  return `${obj.kind} ${ns}${typeof md.name === "string" ? md.name : "(unnamed)"}`;
}

function fromObject(obj: KubeObject, where: string, ca: NewCa): RotationFinding[] {
  const label = `${where}: ${objectName(obj)}`;
  if (obj.kind === "ConfigMap") {
    const kc = dataString(obj, "kubeconfig", false);
    const md = isObject(obj.metadata) ? obj.metadata : {};
    if (kc !== undefined && md.name === "cluster-info") {
      return fromKubeconfig(parseKubeconfig(kc, label), label, ca, "cluster-info CA");
    }
    const bundle = dataString(obj, "ca.crt", false);
    if (bundle !== undefined) {
      return [{ artefact: label, kind: "ca.crt bundle", ...trustStatus(certsOf(bundle), ca) }];
    }
    return [];
  }
  if (obj.kind === "Secret") {
    const bundle = dataString(obj, "ca.crt", true);
    if (bundle === undefined) return [];
    return [{ artefact: label, kind: "ca.crt bundle", ...trustStatus(certsOf(bundle), ca) }];
  }
  if (obj.kind === "JoinConfiguration") {
    const d = isObject(obj.discovery) ? obj.discovery : {};
    const bt = isObject(d.bootstrapToken) ? d.bootstrapToken : undefined;
    if (!bt) return [];
    const pins = Array.isArray(bt.caCertHashes)
      ? bt.caCertHashes.filter((p): p is string => typeof p === "string")
      : [];
    allowPins(pins, label);
    return [{ artefact: label, kind: "JoinConfiguration pins", ...pinStatus(pins, ca) }];
  }
  if (obj.kind === "CertificateSigningRequest") {
    const status = isObject(obj.status) ? obj.status : {};
    if (typeof status.certificate !== "string" || !status.certificate) return [];
    const pem = Buffer.from(status.certificate, "base64").toString("utf8");
    const leaf = certsOf(pem)[0]!;
    return [{ artefact: label, kind: "issued certificate", ...issuedStatus(leaf, ca) }];
  }
  return [];
}

/** kubeadm join's rule for pins (`pubkeypin.Set.Allow`): a malformed one is bad input. */
function allowPins(pins: readonly string[], where: string): void {
  try {
    new PinSet().allow(...pins);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(`${where}: invalid discovery token CA certificate hash: ${e.message}`);
  }
}

/** A value as the shell hands it over: one pair of surrounding quotes removed. */
function unquoted(v: string): string {
  return /^'[^']*'$|^"[^"]*"$/.test(v) ? v.slice(1, -1) : v;
}

/** The `--discovery-token-ca-cert-hash` values of a `kubeadm join` command line. */
export function joinCommandPins(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/--discovery-token-ca-cert-hash(?:=|\s+)(\S+)/g)) {
    out.push(...unquoted(m[1]!).split(",").filter(Boolean));
  }
  return out;
}

/** One `kubeadm join` command of a file: its first line (1-based) and its text. */
export interface JoinCommand {
  line: number;
  text: string;
}

const JOIN_COMMAND = /^\s*(?:sudo\s+)?kubeadm\s+join\b/;

/**
 * The `kubeadm join` commands of a script or a file of commands, each on its
 * own logical line (backslash-newline continues it). Commented-out lines
 * (`# kubeadm join …`) are not commands: a pin there is one no node uses.
 */
export function joinCommands(text: string): JoinCommand[] {
  const lines = text.split("\n");
  const out: JoinCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let logical = lines[i]!.replace(/\r$/, "");
    while (logical.endsWith("\\") && i + 1 < lines.length) {
      logical = logical.slice(0, -1) + " " + lines[++i]!.replace(/\r$/, "");
    }
    if (JOIN_COMMAND.test(logical)) out.push({ line: start + 1, text: logical });
  }
  return out;
}

/**
 * Classifies one file's content. Returns no finding for a file with nothing
 * CA-related (a private key, an unrelated manifest). Throws `InputError` when
 * a part that looked relevant does not parse. A file of several `kubeadm
 * join` commands gives a row per command (`FILE (line N)`): one command
 * still pinning only the old CA must not hide behind another's new pin.
 */
export function checkArtefact(text: string, source: string, ca: NewCa): RotationFinding[] {
  const commands = joinCommands(text);
  if (commands.length > 0) {
    const rows: RotationFinding[] = [];
    for (const c of commands) {
      const label = commands.length > 1 ? `${source} (line ${c.line})` : source;
      const pins = joinCommandPins(c.text);
      // `kubeadm join --config F` takes its pins from F (checked as that file): no row here.
      if (pins.length === 0 && /\s--config(?:=|\s)/.test(c.text)) continue;
      allowPins(pins, label);
      rows.push({ artefact: label, kind: "join command pins", ...pinStatus(pins, ca) });
    }
    return rows;
  }
  // A PEM block starts a line; in a manifest it sits inside a string or an indented scalar.
  if (/^-----BEGIN /m.test(text)) {
    const blocks = decodePem(text);
    if (!blocks.some((b) => b.type === "CERTIFICATE")) return []; // keys, CSRs
    const certs = certsOf(text);
    if (certs.every(isCa)) {
      return [{ artefact: source, kind: "CA bundle", ...trustStatus(certs, ca) }];
    }
    return [{ artefact: source, kind: "certificate", ...issuedStatus(certs[0]!, ca) }];
  }
  const objects = parseManifests(text, source);
  if (objects.length === 1 && objects[0]!.kind === "Config") {
    return fromKubeconfig(parseKubeconfig(text, source), source, ca, "kubeconfig CA");
  }
  return objects.flatMap((o) => fromObject(o, source, ca));
}
