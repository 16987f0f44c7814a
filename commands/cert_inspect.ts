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
import { expectArgs, flagSet, outputFormat } from "./_flags.ts";
import { eachInput } from "./_io.ts";
import { dataListWriter, HeldOutput } from "./_list_output.ts";
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
    // Printed as it is made (held up to 16 MiB, so a refusal midway still prints nothing),
    // except the directory table, whose columns need every row: it keeps five short fields a row.
    const out = new HeldOutput(ctx.stdout);
    const table = format === "text" && ctx.args.some((a) => a !== "-" && isDirectory(a));
    const data = format === "text" ? undefined : await dataListWriter(format, out, false);
    const rows: TableRow[] = [];
    let count = 0;
    const shown = progress(ctx, "cert inspect");
    for (const arg of ctx.args) {
      const isDir = arg !== "-" && isDirectory(arg);
      // A PEM file over 1 MiB comes in pieces of whole blocks: its certificates are numbered
      // across them (fileCount), and any length is read in bounded memory.
      let fileCount = 0;
      for (const input of eachInput([arg], { pemPieces: true })) {
        if (input.part?.index === 0) fileCount = 0;
        // Parsed once, by the extraction itself.
        let certs: Cert[] = [];
        try {
          if (!input.part || input.text.includes("-----BEGIN")) {
            certs = await extractCerts(input, { includeClient: true });
          }
        } catch (e) {
          if (isDir && e instanceof InputError) continue; // keys and other files
          // A piece of keys only: the whole file is refused only if no piece has a certificate.
          if (
            !input.part || !(e instanceof InputError) || !/: no certificate found/.test(e.message)
          ) {
            throw e;
          }
        }
        if (input.part?.last && fileCount + certs.length === 0 && !isDir) {
          throw new InputError(`${input.name}: no certificate found`);
        }
        const rel = isDir ? path.relative(arg, input.name) : input.name;
        const many = input.part !== undefined || certs.length > 1;
        const first = input.part ? fileCount : 0;
        fileCount += certs.length;
        shown.tick(certs.length);
        certs.forEach((cert, j) => {
          const i = first + j;
          const where = many ? `${input.name}[${i}]` : input.name;
          const label = isDir ? labelFor(rel, many ? 2 : 1, i) : where;
          if (data) data.add({ file: input.name, index: i, ...summarize(cert, ctx.now) });
          else if (table) rows.push(tableRow(label, cert));
          else out.write((count > 0 ? "\n" : "") + details(label, cert, ctx.now));
          count++;
        });
      }
    }
    shown.done();
    if (count === 0) {
      throw new InputError(`no certificate found in ${ctx.args.join(", ")}`);
    }
    if (data) data.end();
    else {
      if (table) out.write(expiryTable(rows, ctx.now));
      out.end();
    }
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

/** What the expiry table shows of a certificate. */
interface TableRow {
  label: string;
  notAfter: Date;
  isCA: boolean;
  subject: string;
  issuer: string;
}

function tableRow(label: string, c: Cert): TableRow {
  return {
    label,
    notAfter: c.notAfter,
    isCA: Boolean(c.basicConstraints?.isCA),
    subject: formatName(c.subject),
    issuer: formatName(c.issuer),
  };
}

function expiryTable(entries: TableRow[], now: Date): string {
  // The first CA entry with each subject text (what a search in entry order finds).
  const caLabels = new Map<string, string>();
  for (const e of entries) {
    if (!e.isCA) continue;
    if (!caLabels.has(e.subject)) caLabels.set(e.subject, e.label);
  }
  const caName = (e: TableRow) => {
    if (e.issuer === e.subject) return "";
    return caLabels.get(e.issuer) ?? e.issuer;
  };
  const left = (e: TableRow) => {
    const ms = e.notAfter.getTime() - now.getTime();
    if (ms <= 0) return "<invalid>";
    return shortHumanDuration(ms);
  };
  const pad = (rows: string[][]) => {
    // A loop, not Math.max(...): a spread of 100,000 rows overflows the stack.
    const w = rows[0]!.map((_, i) => {
      let m = 0;
      for (const r of rows) m = Math.max(m, r[i]!.length);
      return m;
    });
    return rows.map((r) =>
      r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]! + 3))).join("")
        .trimEnd()
    ).join("\n") + "\n";
  };
  const leaves = entries.filter((e) => !e.isCA);
  const cas = entries.filter((e) => e.isCA);
  let out = "";
  if (leaves.length) {
    out += pad([
      ["CERTIFICATE", "EXPIRES", "RESIDUAL TIME", "CERTIFICATE AUTHORITY"],
      ...leaves.map((e) => [e.label, kubeadmTime(e.notAfter), left(e), caName(e)]),
    ]);
  }
  if (cas.length) {
    if (out) out += "\n";
    out += pad([
      ["CERTIFICATE AUTHORITY", "EXPIRES", "RESIDUAL TIME"],
      ...cas.map((e) => [e.label, kubeadmTime(e.notAfter), left(e)]),
    ]);
  }
  return out;
}
