/**
 * `kubeadm certs check-expiration`, offline (k/k `cmd/kubeadm/app/cmd/certs.go`
 * `newCmdCertsExpiration`, `certTextPrinter`; `phases/certs/renewal/manager.go`;
 * output API `output.kubeadm.k8s.io/v1alpha3` `CertificateExpirationInfo`):
 * what kubeadm covers, its table and its structured output, extended to the
 * kubelet's own certificates and to any kubeconfig with an embedded client
 * certificate; plus step's `needs-renewal` threshold (`DURATION|PERCENT`).
 *
 * Pure: the caller finds the files and parses the certificates.
 *
 * @module
 */

import type { Cert } from "../pki/cert_info.ts";
import { shortHumanDuration } from "../go/human_duration.ts";
import { tabwrite } from "../go/tabwriter.ts";
import { formatRfc3339 } from "../go/time.ts";
import { parseDuration } from "../go/duration.ts";
import { rotationWindow } from "./rotation.ts";
import { InputError } from "../base/errors.ts";

/** A kubeadm-managed certificate: its name, file under the cert dir and issuing CA. */
export interface KubeadmCertSpec {
  name: string;
  /** Base path under `--cert-dir`, without `.crt`/`.key`. */
  base: string;
  ca: string;
  /** Signed by the etcd CA (left out with external etcd). */
  etcd?: boolean;
}

/** The CAs kubeadm reports: name and base path under the cert dir. */
export const KUBEADM_CAS: readonly KubeadmCertSpec[] = [
  { name: "ca", base: "ca", ca: "" },
  { name: "etcd-ca", base: "etcd/ca", ca: "", etcd: true },
  { name: "front-proxy-ca", base: "front-proxy-ca", ca: "" },
];

/** The name kubeadm's `validateCACert` gives each CA in its messages (`certKeyLocation.uxName`). */
const CA_UX_NAMES: Record<string, string> = {
  ca: "CA",
  "front-proxy-ca": "front-proxy CA",
  "etcd/ca": "etcd CA",
};

/**
 * kubeadm's refusal when a CA file of the tree holds a certificate that is
 * not a CA (`certs check-expiration` → `IsExternallyManaged` →
 * `validateCACert`), by the CA's base path: v1.32.5's exact text.
 *
 * @example
 * ```ts
 * notACaError("ca");
 * // "Error checking external CA condition for ca certificate authority: certificate CA is not a CA"
 * ```
 */
export function notACaError(caBase: string): string {
  return `Error checking external CA condition for ${caBase} certificate authority: certificate ${
    CA_UX_NAMES[caBase] ?? caBase
  } is not a CA`;
}

/** The certificates kubeadm's renewal manager covers (before the kubeconfigs). */
export const KUBEADM_CERTS: readonly KubeadmCertSpec[] = [
  { name: "apiserver", base: "apiserver", ca: "ca" },
  { name: "apiserver-kubelet-client", base: "apiserver-kubelet-client", ca: "ca" },
  { name: "front-proxy-client", base: "front-proxy-client", ca: "front-proxy-ca" },
  { name: "etcd-server", base: "etcd/server", ca: "etcd-ca", etcd: true },
  { name: "etcd-peer", base: "etcd/peer", ca: "etcd-ca", etcd: true },
  { name: "etcd-healthcheck-client", base: "etcd/healthcheck-client", ca: "etcd-ca", etcd: true },
  { name: "apiserver-etcd-client", base: "apiserver-etcd-client", ca: "etcd-ca", etcd: true },
];

/**
 * The kubeconfigs with embedded client certificates kubeadm covers, all
 * issued by `ca`. `kubelet.conf` is left out on purpose upstream (the kubelet
 * rotates its own certificate).
 */
export const KUBEADM_KUBECONFIGS: readonly string[] = [
  "admin.conf",
  "super-admin.conf",
  "controller-manager.conf",
  "scheduler.conf",
];

/** One row of the report, as found on disk. */
export interface ExpiryEntry {
  /** kubeadm's name (`apiserver`, `admin.conf`) or, for other files, the path. */
  name: string;
  /** The certificate; absent when the file is missing. */
  cert?: Cert;
  /** The issuing CA's name ("" when unknown or for CAs). */
  caName: string;
  /** The CA's certificate is present but its key is not. */
  externallyManaged: boolean;
  /** The kubelet's certificate manager rotates it (client and serving `-current.pem`). */
  kubeletRotated?: boolean;
}

/** The API type `output.kubeadm.k8s.io/v1alpha3` `Certificate`, plus joinkit's window. */
export interface ExpirationCertificate {
  name: string;
  expirationDate: string | null;
  residualTime: number;
  externallyManaged: boolean;
  caName?: string;
  missing: boolean;
  /** joinkit's extension: when the kubelet rotates it, `[start, end)` (RFC 3339). */
  rotationWindow?: { start: string; end: string };
}

/** `CertificateExpirationInfo`, fields in Go's struct order. */
export interface CertificateExpirationInfo {
  kind: "CertificateExpirationInfo";
  apiVersion: "output.kubeadm.k8s.io/v1alpha3";
  certificates: ExpirationCertificate[];
  certificateAuthorities: ExpirationCertificate[];
}

/** Go's byte-wise string order. */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** `int64(residual / time.Second)`: whole seconds, truncated toward zero. */
export function residualSeconds(cert: Cert, now: Date): number {
  return Math.trunc((cert.notAfter.getTime() - now.getTime()) / 1000);
}

function toApi(e: ExpiryEntry, now: Date, ca: boolean): ExpirationCertificate {
  const out: ExpirationCertificate = {
    name: e.name,
    expirationDate: e.cert ? formatRfc3339(e.cert.notAfter) : null,
    residualTime: e.cert ? residualSeconds(e.cert, now) : 0,
    externallyManaged: e.externallyManaged,
    ...(!ca && e.caName !== "" ? { caName: e.caName } : {}),
    missing: e.cert === undefined,
  };
  if (e.cert && e.kubeletRotated) {
    const w = rotationWindow(e.cert.notBefore, e.cert.notAfter);
    out.rotationWindow = { start: formatRfc3339(w.start), end: formatRfc3339(w.end) };
  }
  return out;
}

/**
 * The structured report: both lists sorted by name (Go byte order), as
 * kubeadm's `-o json|yaml` prints it.
 */
export function expirationInfo(
  certificates: readonly ExpiryEntry[],
  authorities: readonly ExpiryEntry[],
  now: Date,
): CertificateExpirationInfo {
  return {
    kind: "CertificateExpirationInfo",
    apiVersion: "output.kubeadm.k8s.io/v1alpha3",
    certificates: [...certificates].sort(byName).map((e) => toApi(e, now, false)),
    certificateAuthorities: [...authorities].sort(byName).map((e) => toApi(e, now, true)),
  };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Go's `t.Format("Jan 02, 2006 15:04 MST")` of a UTC time. */
export function kubeadmExpiryTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[d.getUTCMonth()]} ${p(d.getUTCDate())}, ${d.getUTCFullYear()} ${
    p(d.getUTCHours())
  }:${p(d.getUTCMinutes())} UTC`;
}

/** `fmt.Sprintf("%-8v", yes/no)`. */
const yesNo = (b: boolean) => (b ? "yes" : "no").padEnd(8);

/** The residual column: the seconds as kubeadm keeps them, then `ShortHumanDuration`. */
function residualText(seconds: number): string {
  return shortHumanDuration(seconds * 1000);
}

/**
 * kubeadm's text table (`tabwriter.NewWriter(out, 10, 4, 3, ' ', 0)`):
 * certificates, a blank line, certificate authorities; `!MISSING! <name>`
 * rows for absent files. When the kubelet's own certificates are present a
 * third block (joinkit's) gives each one's rotation window.
 */
export function expirationText(info: CertificateExpirationInfo): string {
  const tw = { minwidth: 10, padding: 3 };
  const date = (c: ExpirationCertificate) => kubeadmExpiryTime(new Date(c.expirationDate!));
  let text = "CERTIFICATE\tEXPIRES\tRESIDUAL TIME\tCERTIFICATE AUTHORITY\tEXTERNALLY MANAGED\n";
  for (const c of info.certificates) {
    text += c.missing
      ? `!MISSING! ${c.name}\t\t\t\t\n`
      : `${c.name}\t${date(c)}\t${residualText(c.residualTime)}\t${c.caName ?? ""}\t${
        yesNo(c.externallyManaged)
      }\n`;
  }
  text += "\n";
  text += "CERTIFICATE AUTHORITY\tEXPIRES\tRESIDUAL TIME\tEXTERNALLY MANAGED\n";
  for (const c of info.certificateAuthorities) {
    text += c.missing
      ? `!MISSING! ${c.name}\t\t\t\n`
      : `${c.name}\t${date(c)}\t${residualText(c.residualTime)}\t${yesNo(c.externallyManaged)}\n`;
  }
  const rotated = info.certificates.filter((c) => c.rotationWindow);
  if (rotated.length) {
    text += "\nKUBELET CERTIFICATE\tROTATES FROM\tROTATES BEFORE\n";
    for (const c of rotated) {
      const w = c.rotationWindow!;
      text += `${c.name}\t${kubeadmExpiryTime(new Date(w.start))}\t${
        kubeadmExpiryTime(new Date(w.end))
      }\n`;
    }
  }
  return tabwrite(text, tw);
}

/** An `--expiring-within` threshold: a Go duration or a whole percentage of the lifetime. */
export type RenewalThreshold = { kind: "duration"; ms: number; text: string } | {
  kind: "percent";
  percent: number;
  text: string;
};

/**
 * Parses `DURATION|PERCENT` as step's `--expires-in` does: `N%` with a whole
 * N from 0 to 100, or a Go duration (`720h`, `0s`; no `d` unit). Throws
 * `InputError` with the reason.
 */
export function parseRenewalThreshold(text: string): RenewalThreshold {
  if (text.endsWith("%")) {
    const n = text.slice(0, -1);
    if (!/^\d+$/.test(n)) throw new InputError(`${JSON.stringify(text)} is not a whole percentage`);
    const percent = Number(n);
    if (percent > 100) throw new InputError("value must be in range 0-100%");
    return { kind: "percent", percent, text };
  }
  return { kind: "duration", ms: parseDuration(text), text };
}

/**
 * step `needs-renewal`: for a duration, `d >= NotAfter − now`; for a
 * percentage, `int((1 − remaining/total) × 100) >= threshold` (minutes, as
 * step computes it).
 */
export function needsRenewal(cert: Cert, threshold: RenewalThreshold, now: Date): boolean {
  const remaining = cert.notAfter.getTime() - now.getTime();
  if (threshold.kind === "duration") return threshold.ms >= remaining;
  const total = (cert.notAfter.getTime() - cert.notBefore.getTime()) / 60_000;
  if (total <= 0) return true;
  const used = (1 - remaining / 60_000 / total) * 100;
  return Math.trunc(used) >= threshold.percent;
}
