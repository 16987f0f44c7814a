/**
 * `joinkit cert inspect`: show certificates; over a directory such as a
 * kubeadm `pki/`, an expiry table in the spirit of `kubeadm certs
 * check-expiration`.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { type Cert, summarize } from "../lib/pki/cert_info.ts";
import { extractCerts } from "../lib/pki/certsource.ts";
import { InputError } from "../lib/base/errors.ts";
import { formatName } from "../lib/pki/pkix_name.ts";
import { shortHumanDuration } from "../lib/go/human_duration.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagSet, outputFormat, renderData } from "./_flags.ts";
import { eachInput } from "./_io.ts";
import { progress } from "./_progress.ts";

const FLAGS = flagSet("cert inspect", [["output", "text (default), json or yaml"]]);

export const command: Command = {
  name: "cert inspect",
  options: FLAGS.options,
  help: `Show certificates and their expiry.

For each certificate in each FILE (PEM bundles, DER, combined cert+key files,
kubeconfigs with embedded CA and client certificates, cluster-info
ConfigMaps): subject, issuer, serial, validity and time left, SANs, key
usages, EKUs, key type and size, CA flag and the sha256: SPKI pin that
'kubeadm join --discovery-token-ca-cert-hash' takes.

A DIR (e.g. /etc/kubernetes/pki, or /etc/kubernetes for the kubeconfigs too) is
read recursively, files without certificates (keys) are skipped, and the text
output is an expiry table in the spirit of 'kubeadm certs check-expiration':
leaf certificates first, then certificate authorities.

Usage:
  joinkit cert inspect FILE|DIR... [-o text|json|yaml]

${FLAGS.help}
Output (-o json): an array with one object per certificate: file, index
(position in the file, from 0), subject, issuer, serial, serialHex,
notBefore, notAfter, timeLeft, expired, dnsNames, ipAddresses,
emailAddresses, uris, keyUsage, extKeyUsage, key, keyType, keyBits, isCA,
signatureAlgorithm, subjectKeyId, authorityKeyId and spkiPin. Keys sorted;
-o yaml is the same array.

Times are judged at the global --now (default: the system time).

${EXIT_CODES}

Examples:
  joinkit cert inspect /etc/kubernetes/pki/apiserver.crt
  joinkit cert inspect /etc/kubernetes/pki /etc/kubernetes/admin.conf
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "FILE|DIR");
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    const entries: { file: string; label: string; index: number; cert: Cert }[] = [];
    let table = false;
    const shown = progress(ctx, "cert inspect");
    for (const arg of ctx.args) {
      const isDir = arg !== "-" && isDirectory(arg);
      table ||= isDir;
      for (const input of eachInput([arg])) {
        // Parsed once, by the extraction itself.
        let certs: Cert[];
        try {
          certs = await extractCerts(input, { includeClient: true });
        } catch (e) {
          if (isDir && e instanceof InputError) continue; // keys and other files
          throw e;
        }
        const rel = isDir ? path.relative(arg, input.name) : input.name;
        shown.tick(certs.length);
        certs.forEach((cert, i) => {
          const where = certs.length > 1 ? `${input.name}[${i}]` : input.name;
          entries.push({
            file: input.name,
            label: isDir ? labelFor(rel, certs.length, i) : where,
            index: i,
            cert,
          });
        });
      }
    }
    shown.done();
    if (entries.length === 0) {
      throw new InputError(`no certificate found in ${ctx.args.join(", ")}`);
    }
    if (format !== "text") {
      const rows = entries.map((e) => ({
        file: e.file,
        index: e.index,
        ...summarize(e.cert, ctx.now),
      }));
      ctx.stdout(await renderData(rows, format));
      return;
    }
    if (table) {
      ctx.stdout(expiryTable(entries, ctx.now));
      return;
    }
    ctx.stdout(entries.map((e) => details(e.label, e.cert, ctx.now)).join("\n"));
  },
};

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function labelFor(rel: string, count: number, i: number): string {
  const base = rel.replace(/\.(crt|pem|cert|der)$/, "");
  return count > 1 ? `${base}[${i}]` : base;
}

/** The detail rows' headings, indented and padded (`  subject:       `). */
const [
  H_SUBJECT,
  H_ISSUER,
  H_SERIAL,
  H_NOT_BEFORE,
  H_NOT_AFTER,
  H_SANS,
  H_KEY_USAGE,
  H_EXT_KEY_USAGE,
  H_KEY,
  H_CA,
  H_SIGNATURE,
  H_SPKI_PIN,
] = [
  "subject",
  "issuer",
  "serial",
  "not before",
  "not after",
  "SANs",
  "key usage",
  "ext key usage",
  "key",
  "CA",
  "signature",
  "SPKI pin",
].map((k) => `  ${(k + ":").padEnd(15)}`);

function details(label: string, c: Cert, now: Date): string {
  const s = summarize(c, now) as Record<string, string | string[] | boolean | number>;
  const list = (v: unknown) => (Array.isArray(v) && v.length ? v.join(", ") : "(none)");
  let sans = "";
  const addSans = (prefix: string, values: string[]) => {
    for (const v of values) sans += (sans === "" ? prefix : ", " + prefix) + v;
  };
  addSans("DNS:", c.sans.dns);
  addSans("IP:", c.sans.ips);
  addSans("email:", c.sans.emails);
  addSans("URI:", c.sans.uris);
  return label + "\n" +
    H_SUBJECT + (String(s.subject) || "(empty)") + "\n" +
    H_ISSUER + String(s.issuer) + "\n" +
    H_SERIAL + s.serialHex + " (" + s.serial + ")\n" +
    H_NOT_BEFORE + String(s.notBefore) + "\n" +
    H_NOT_AFTER + s.notAfter + " (" + (s.expired ? "EXPIRED" : s.timeLeft + " left") + ")\n" +
    H_SANS + (sans === "" ? "(none)" : sans) + "\n" +
    H_KEY_USAGE + list(s.keyUsage) + "\n" +
    H_EXT_KEY_USAGE + list(s.extKeyUsage) + "\n" +
    H_KEY + String(s.key) + "\n" +
    H_CA + String(s.isCA) + "\n" +
    H_SIGNATURE + String(s.signatureAlgorithm) + "\n" +
    H_SPKI_PIN + String(s.spkiPin) + "\n";
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** kubeadm's expiry time format: `Jan 02, 2006 15:04 UTC`. */
function kubeadmTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[d.getUTCMonth()]} ${p(d.getUTCDate())}, ${d.getUTCFullYear()} ${
    p(d.getUTCHours())
  }:${p(d.getUTCMinutes())} UTC`;
}

function expiryTable(
  entries: { label: string; cert: Cert }[],
  now: Date,
): string {
  // The first CA entry with each subject text (what a search in entry order finds).
  const caLabels = new Map<string, string>();
  for (const e of entries) {
    if (!e.cert.basicConstraints?.isCA) continue;
    const s = formatName(e.cert.subject);
    if (!caLabels.has(s)) caLabels.set(s, e.label);
  }
  const caName = (c: Cert) => {
    const issuer = formatName(c.issuer);
    if (issuer === formatName(c.subject)) return "";
    return caLabels.get(issuer) ?? issuer;
  };
  const left = (c: Cert) => {
    const ms = c.notAfter.getTime() - now.getTime();
    if (ms <= 0) return "<invalid>";
    return shortHumanDuration(ms);
  };
  const pad = (rows: string[][]) => {
    const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    return rows.map((r) =>
      r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]! + 3))).join("")
        .trimEnd()
    ).join("\n") + "\n";
  };
  const leaves = entries.filter((e) => !e.cert.basicConstraints?.isCA);
  const cas = entries.filter((e) => e.cert.basicConstraints?.isCA);
  let out = "";
  if (leaves.length) {
    out += pad([
      ["CERTIFICATE", "EXPIRES", "RESIDUAL TIME", "CERTIFICATE AUTHORITY"],
      ...leaves.map((e) => [e.label, kubeadmTime(e.cert.notAfter), left(e.cert), caName(e.cert)]),
    ]);
  }
  if (cas.length) {
    if (out) out += "\n";
    out += pad([
      ["CERTIFICATE AUTHORITY", "EXPIRES", "RESIDUAL TIME"],
      ...cas.map((e) => [e.label, kubeadmTime(e.cert.notAfter), left(e.cert)]),
    ]);
  }
  return out;
}
