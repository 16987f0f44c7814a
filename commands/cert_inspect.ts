/**
 * `joinkit cert inspect`: show certificates; over a directory such as a
 * kubeadm `pki/`, an expiry table in the spirit of `kubeadm certs
 * check-expiration`.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { type Cert, summarize } from "../lib/pki/cert_info.ts";
import { eachCert } from "../lib/pki/certsource.ts";
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
    smallerInlining();
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    // Printed as it is made (held up to 16 MiB, so a refusal midway still prints nothing),
    // except the directory table, whose columns need every row: it keeps five short fields a row.
    const out = new HeldOutput(ctx.stdout);
    const table = format === "text" && ctx.args.some((a) => a !== "-" && isDirectory(a));
    const data = format === "text" ? undefined : await dataListWriter(format, out, false);
    const rows: TableRow[] = [];
    // Text reports are gathered as parts and written joined every few dozen certificates:
    // flat strings, where a concatenation per report would hold a tree of pieces until printed.
    const parts: string[] = [];
    let count = 0;
    const shown = progress(ctx, "cert inspect");
    for (const arg of ctx.args) {
      const isDir = arg !== "-" && isDirectory(arg);
      // A PEM file over 1 MiB comes in pieces of whole blocks: its certificates are numbered
      // across them (fileCount), and any length is read in bounded memory.
      let fileCount = 0;
      for (const input of eachInput([arg], { pemPieces: true })) {
        if (input.part?.index === 0) fileCount = 0;
        const rel = isDir ? path.relative(arg, input.name) : input.name;
        const first = input.part ? fileCount : 0;
        // Whether the file holds more than one certificate: known before the first is shown
        // for a piece; for a whole file, from the second one (the first waits for it).
        let many = input.part !== undefined;
        let held: Cert | undefined;
        let j = 0;
        const show = (cert: Cert, i: number) => {
          const where = many ? `${input.name}[${i}]` : input.name;
          const label = isDir ? labelFor(rel, many ? 2 : 1, i) : where;
          if (data) data.add({ file: input.name, index: i, ...summarize(cert, ctx.now) });
          else if (table) rows.push(tableRow(label, cert));
          else {
            if (count > 0) parts.push("\n");
            details(label, cert, ctx.now, parts);
            if (parts.length >= PARTS_PER_WRITE) {
              out.write(parts.join(""));
              parts.length = 0;
            }
          }
          count++;
        };
        // Each certificate of a file named is shown as it is parsed and then dropped (a refusal
        // fails the run anyway). A directory's file is shown only once all of it parsed: one
        // that does not parse is skipped whole.
        const pending: Cert[] = [];
        const each = isDir ? (cert: Cert) => void pending.push(cert) : (cert: Cert) => {
          if (!many && j === 0) held = cert;
          else {
            if (held) {
              many = true;
              show(held, first);
              held = undefined;
            }
            show(cert, first + j);
          }
          j++;
        };
        let n = 0;
        try {
          if (!input.part || input.text.includes("-----BEGIN")) {
            n = await eachCert(input, { includeClient: true }, each);
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
        if (held) show(held, first);
        if (pending.length > 1) many = true;
        for (let k = 0; k < pending.length; k++) show(pending[k]!, first + k);
        if (input.part?.last && fileCount + n === 0 && !isDir) {
          throw new InputError(`${input.name}: no certificate found`);
        }
        fileCount += n;
        shown.tick(n);
      }
    }
    if (parts.length) out.write(parts.join(""));
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

/**
 * A smaller TurboFan inlining budget for the rest of the run (920 → 200
 * bytes of bytecode a function): a fleet's parse, summary and report
 * functions are all optimised within its first thousand certificates, and
 * compiling them with everything inlined was a third of the CPU time of
 * 10,000 (background compile threads ~300 ms → ~210 ms, the run ~8% less CPU;
 * the optimised code no slower). Only the compiler's heuristics change, never
 * what the code computes; a runtime that refuses the flag runs as before.
 */
function smallerInlining(): void {
  try {
    process.getBuiltinModule("node:v8").setFlagsFromString(
      "--max-inlined-bytecode-size-cumulative=200",
    );
  } catch {
    // Flags frozen or absent: the default budget.
  }
}

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

/** A detail row's heading, indented and padded (`  subject:       `). */
const heading = (k: string) => `  ${(k + ":").padEnd(15)}`;
const H_SUBJECT = heading("subject");
const H_ISSUER = heading("issuer");
const H_SERIAL = heading("serial");
const H_NOT_BEFORE = heading("not before");
const H_NOT_AFTER = heading("not after");
const H_SANS = heading("SANs");
const H_KEY_USAGE = heading("key usage");
const H_EXT_KEY_USAGE = heading("ext key usage");
const H_KEY = heading("key");
const H_CA = heading("CA");
const H_SIGNATURE = heading("signature");
const H_SPKI_PIN = heading("SPKI pin");

/** Text reports' parts gathered before a write (about 40 a certificate). */
const PARTS_PER_WRITE = 2048;

/** The text report of one certificate, pushed onto `p` in parts. */
function details(label: string, c: Cert, now: Date, p: string[]): void {
  const s = summarize(c, now) as Record<string, string | string[] | boolean | number>;
  const list = (v: unknown) => (Array.isArray(v) && v.length ? v.join(", ") : "(none)");
  p.push(label, "\n", H_SUBJECT, String(s.subject) || "(empty)", "\n");
  p.push(H_ISSUER, String(s.issuer), "\n");
  p.push(H_SERIAL, String(s.serialHex), " (", String(s.serial), ")\n");
  p.push(H_NOT_BEFORE, String(s.notBefore), "\n");
  p.push(
    H_NOT_AFTER,
    String(s.notAfter),
    s.expired ? " (EXPIRED)\n" : " (",
  );
  if (!s.expired) p.push(String(s.timeLeft), " left)\n");
  p.push(H_SANS);
  const before = p.length;
  const addSans = (prefix: string, values: string[]) => {
    for (const v of values) p.push(p.length === before ? prefix : ", " + prefix, v);
  };
  addSans("DNS:", c.sans.dns);
  addSans("IP:", c.sans.ips);
  addSans("email:", c.sans.emails);
  addSans("URI:", c.sans.uris);
  if (p.length === before) p.push("(none)");
  p.push("\n", H_KEY_USAGE, list(s.keyUsage), "\n");
  p.push(H_EXT_KEY_USAGE, list(s.extKeyUsage), "\n");
  p.push(H_KEY, String(s.key), "\n");
  p.push(H_CA, String(s.isCA), "\n");
  p.push(H_SIGNATURE, String(s.signatureAlgorithm), "\n");
  p.push(H_SPKI_PIN, String(s.spkiPin), "\n");
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
