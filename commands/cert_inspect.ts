/**
 * `joinkit cert inspect`: show certificates; over a directory such as a
 * kubeadm `pki/`, an expiry table in the spirit of `kubeadm certs
 * check-expiration`.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  type Cert,
  isCa,
  issuerText,
  notAfterMs,
  notBeforeMs,
  rfc3339,
  serialDecimal,
  subjectText,
  summarize,
} from "../lib/pki/cert_info.ts";
import { colonHex } from "../lib/pki/pkix.ts";
import { formatKey, type KeyInfo } from "../lib/pki/pkix_key.ts";
import { spkiHash } from "../lib/pki/pin.ts";
import { type SigAlg, sigAlgName } from "../lib/pki/sigalg.ts";
import { ekuName, keyUsageNames } from "../lib/pki/usages.ts";
import { eachCert } from "../lib/pki/certsource.ts";
import { InputError } from "../lib/base/errors.ts";
import { formatName } from "../lib/pki/pkix_name.ts";
import { shortHumanDuration } from "../lib/go/human_duration.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagSet, outputFormat } from "./_flags.ts";
import { eachInput } from "./_io.ts";
import { dataListWriter, HeldOutput } from "./_list_output.ts";
import { progress } from "./_progress.ts";
import { fleetCompilerFlags } from "./_fleet.ts";

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
    // JSON is written by jsonElement (the bytes the general writer gives, without its copy and
    // sort of every summary); YAML by the general writer.
    const data = format === "yaml" ? await dataListWriter(format, out, false) : undefined;
    const json = format === "json";
    const rows: TableRow[] = [];
    // Text reports are gathered as parts and written joined every few dozen certificates:
    // flat strings, where a concatenation per report would hold a tree of pieces until printed.
    const parts: string[] = [];
    let count = 0;
    const shown = progress(ctx, "cert inspect");
    // Last, once what the run loads is loaded (the parser, which eachCert imports on first use;
    // node:tty, which progress() asked): see fleetCompilerFlags.
    await import("../lib/pki/cert_info.ts");
    fleetCompilerFlags();
    for (const arg of ctx.args) {
      const isDir = arg !== "-" && isDirectory(arg);
      // A PEM file over 1 MiB comes in pieces of whole blocks: its certificates are numbered
      // across them (fileCount), and any length is read in bounded memory.
      let fileCount = 0;
      for (const input of eachInput([arg], { pemPieces: true })) {
        if (input.part?.index === 0) fileCount = 0;
        const first = input.part ? fileCount : 0;
        // Whether the file holds more than one certificate: known before the first is shown
        // for a piece; for a whole file, from the second one (the first waits for it).
        let many = input.part !== undefined;
        let held: Cert | undefined;
        let j = 0;
        const show = (cert: Cert, i: number) => {
          // Only the text reports show a label (a directory's relative to it).
          const label = () =>
            isDir
              ? labelFor(path.relative(arg, input.name), many ? 2 : 1, i)
              : many
              ? `${input.name}[${i}]`
              : input.name;
          if (json) {
            parts.push(count === 0 ? "[\n" : ",\n", jsonElement(input.name, i, cert, ctx.now));
            if (parts.length >= JSON_PARTS_PER_WRITE) {
              out.write(parts.join(""));
              parts.length = 0;
            }
          } else if (data) data.add({ file: input.name, index: i, ...summarize(cert, ctx.now) });
          else if (table) rows.push(tableRow(label(), cert));
          else {
            if (count > 0) parts.push("\n");
            details(label(), cert, ctx.now, parts);
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
          // A piece's bytes are searched (its text is decoded only if read): the marker is
          // ASCII, found in the bytes exactly where it is in the decoded text.
          if (!input.part || hasPemBegin(input.bytes)) {
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
      if (json) out.write("\n]\n");
      if (table) out.write(expiryTable(rows, ctx.now));
      out.end();
    }
  },
};

/**
 * JSON parts gathered before a write (two a certificate): each write is one
 * flat text of ~128 certificates, held in few objects until printed.
 */
const JSON_PARTS_PER_WRITE = 256;

/** The keys of {@link summarize}'s object and the report's `file` and `index`, sorted. */
const JSON_KEYS = [
  "authorityKeyId",
  "dnsNames",
  "emailAddresses",
  "expired",
  "extKeyUsage",
  "file",
  "index",
  "ipAddresses",
  "isCA",
  "issuer",
  "key",
  "keyBits",
  "keyType",
  "keyUsage",
  "notAfter",
  "notBefore",
  "serial",
  "serialHex",
  "signatureAlgorithm",
  "spkiPin",
  "subject",
  "subjectKeyId",
  "timeLeft",
  "uris",
].join();

/**
 * Whether {@link summarize}'s objects have exactly the keys {@link jsonElement}
 * writes (looked at once: every summary is the same object literal).
 */
let summaryKnown: boolean | undefined;

/** What JSON.stringify escapes in a string (quote, backslash, controls, lone surrogates). */
// deno-lint-ignore no-control-regex
const JSON_ESCAPED = /["\\\x00-\x1f\ud800-\udfff]/;

/** JSON.stringify of a string; most need no escape and are quoted as they are. */
function jsonText(s: string): string {
  return JSON_ESCAPED.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/** A list of texts as an element's value (`toJson`'s indentation at depth 2). */
function jsonList(v: readonly string[]): string {
  if (v.length === 0) return "[]";
  let t = "[\n";
  for (let i = 0; i < v.length; i++) {
    t += (i ? ",\n            " : "            ") + jsonText(v[i]!);
  }
  return t + "\n        ]";
}

/**
 * One certificate of `cert inspect -o json`: the text the general writer
 * gives for `{file, index, ...summarize(c, now)}` as an element of the
 * array (`toJson`: keys sorted, four spaces, then indented four more),
 * written in that order straight from the summary instead of copying and
 * sorting it first. If {@link summarize} ever gives other keys than these,
 * every element goes through the general path, so nothing is left out.
 */
export function jsonElement(file: string, index: number, c: Cert, now: Date): string {
  const s = summarize(c, now);
  summaryKnown ??= Object.keys({ ...s, file, index }).sort().join() === JSON_KEYS;
  if (!summaryKnown) return jsonElementSorted({ ...s, file, index });
  return `    {
        "authorityKeyId": ${jsonText(s.authorityKeyId)},
        "dnsNames": ${jsonList(s.dnsNames)},
        "emailAddresses": ${jsonList(s.emailAddresses)},
        "expired": ${s.expired},
        "extKeyUsage": ${jsonList(s.extKeyUsage)},
        "file": ${jsonText(file)},
        "index": ${JSON.stringify(index)},
        "ipAddresses": ${jsonList(s.ipAddresses)},
        "isCA": ${s.isCA},
        "issuer": ${jsonText(s.issuer)},
        "key": ${jsonText(s.key)},
        "keyBits": ${JSON.stringify(s.keyBits)},
        "keyType": ${jsonText(s.keyType)},
        "keyUsage": ${jsonList(s.keyUsage)},
        "notAfter": ${jsonText(s.notAfter)},
        "notBefore": ${jsonText(s.notBefore)},
        "serial": ${jsonText(s.serial)},
        "serialHex": ${jsonText(s.serialHex)},
        "signatureAlgorithm": ${jsonText(s.signatureAlgorithm)},
        "spkiPin": ${jsonText(s.spkiPin)},
        "subject": ${jsonText(s.subject)},
        "subjectKeyId": ${jsonText(s.subjectKeyId)},
        "timeLeft": ${jsonText(s.timeLeft)},
        "uris": ${jsonList(s.uris)}
    }`;
}

/**
 * `toJson`'s element for a flat summary (values: texts, numbers, booleans
 * and lists of texts): keys sorted through JSON.stringify's key list,
 * undefined values left out as `sortKeys` leaves them out.
 */
export function jsonElementSorted(s: object): string {
  // Indented after each line feed only (a `^` of /m would also match after a raw U+2028).
  return "    " + JSON.stringify(s, Object.keys(s).sort(), 4).replaceAll("\n", "\n    ");
}

/** Whether `bytes` hold `-----BEGIN` (node:buffer's search, no copy). */
function hasPemBegin(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes("-----BEGIN");
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

/** Text reports' parts gathered before a write (about 13 a certificate). */
const PARTS_PER_WRITE = 2048;

// The report's fixed texts between its fields, each ending with the next field's heading.
const S_SUBJECT = "\n" + H_SUBJECT;
const S_ISSUER = "\n" + H_ISSUER;
const S_SERIAL = "\n" + H_SERIAL;

/**
 * The text report of one certificate, pushed onto `p` in parts: the fields
 * of {@link summarize} that it shows, each computed as there (and nothing
 * else: no summary object, no key-id texts). What a fleet's certificates
 * share (validity, SANs when there are none, usages, key type, CA flag,
 * signature algorithm, with the headings between them) is one part, made
 * again only when one of its texts differs from the last report's.
 */
function details(label: string, c: Cert, now: Date, p: string[]): void {
  const serial = c.serial;
  p.push(
    label,
    S_SUBJECT,
    subjectText(c) || "(empty)",
    S_ISSUER,
    issuerText(c),
    S_SERIAL,
    colonHex(serial),
    " (",
    serialDecimal(serial),
    middle(c, now.getTime()),
    spkiHash(c.key.spki),
    "\n",
  );
}

/** The texts the last {@link middle} was made of (compared by identity: most are kept texts). */
const lastMiddle = {
  notBefore: "",
  notAfter: "",
  left: "",
  sans: "",
  keyUsage: "",
  extKeyUsage: "",
  key: "",
  ca: "",
  sig: "",
  text: "",
};

/** The report from the serial's closing `)` to the SPKI pin's heading. */
function middle(c: Cert, nowMs: number): string {
  const notAfter = notAfterMs(c);
  const notBefore = rfc3339(notBeforeMs(c));
  const notAfterText = rfc3339(notAfter);
  // Expired: no time left is shown (the text stands in its place).
  const left = notAfter < nowMs ? EXPIRED : timeLeftText(notAfter - nowMs);
  const sans = sansText(c);
  const ku = keyUsageText(c.keyUsage);
  const eku = extKeyUsageText(c.extKeyUsage);
  const key = keyText(c.key);
  const ca = isCa(c) ? "true" : "false";
  const sig = sigAlgText(c.sigAlg);
  const m = lastMiddle;
  if (
    notBefore !== m.notBefore || notAfterText !== m.notAfter || left !== m.left ||
    sans !== m.sans || ku !== m.keyUsage || eku !== m.extKeyUsage || key !== m.key ||
    ca !== m.ca || sig !== m.sig
  ) {
    m.text = ")\n" + H_NOT_BEFORE + notBefore + "\n" + H_NOT_AFTER + notAfterText +
      (left === EXPIRED ? " (EXPIRED)\n" : " (" + left + " left)\n") +
      H_SANS + sans + "\n" + H_KEY_USAGE + ku + "\n" + H_EXT_KEY_USAGE + eku + "\n" +
      H_KEY + key + "\n" + H_CA + ca + "\n" + H_SIGNATURE + sig + "\n" + H_SPKI_PIN;
    m.notBefore = notBefore;
    m.notAfter = notAfterText;
    m.left = left;
    m.sans = sans;
    m.keyUsage = ku;
    m.extKeyUsage = eku;
    m.key = key;
    m.ca = ca;
    m.sig = sig;
  }
  return m.text;
}

/** Stands for "expired" where {@link middle} keeps the time left (no time text is empty). */
const EXPIRED = "";

/** The SANs as the report lists them (`DNS:a, IP:b`), or `(none)`. */
function sansText(c: Cert): string {
  const sans = c.sans;
  if (
    sans.dns.length === 0 && sans.ips.length === 0 && sans.emails.length === 0 &&
    sans.uris.length === 0
  ) return "(none)";
  let t = "";
  t = addSans(t, "DNS:", sans.dns);
  t = addSans(t, "IP:", sans.ips);
  t = addSans(t, "email:", sans.emails);
  return addSans(t, "URI:", sans.uris);
}

/** `t` and the SANs of one kind, each after `prefix` (and a comma after the first of all). */
function addSans(t: string, prefix: string, values: string[]): string {
  for (let i = 0; i < values.length; i++) t += (t === "" ? prefix : ", " + prefix) + values[i]!;
  return t;
}

// A fleet repeats its usages, key type, signature algorithm and expiry: each text is kept
// for the value it was made for (the last one).
let lastTimeLeftMs = NaN;
let lastTimeLeft = "";
let lastKeyUsage: number | undefined = -1;
let lastKeyUsageText = "";
let lastEku: readonly string[] | undefined;
let lastEkuText = "";
let lastKeyType = "";
let lastKeyBits = -1;
let lastKeyCurve: string | undefined;
let lastKeyText = "";
let lastSigAlg: SigAlg | undefined;
let lastSigAlgText = "";

/** `shortHumanDuration(ms)` (summarize's `timeLeft`). */
function timeLeftText(ms: number): string {
  if (ms !== lastTimeLeftMs) {
    lastTimeLeft = shortHumanDuration(ms);
    lastTimeLeftMs = ms;
  }
  return lastTimeLeft;
}

/** A list as the report shows it: joined with commas, or `(none)`. */
function listText(v: readonly string[]): string {
  return v.length ? v.join(", ") : "(none)";
}

/** summarize's `keyUsage` as the report shows it. */
function keyUsageText(ku: number | undefined): string {
  if (ku !== lastKeyUsage) {
    lastKeyUsageText = listText(ku === undefined ? [] : keyUsageNames(ku));
    lastKeyUsage = ku;
  }
  return lastKeyUsageText;
}

/** summarize's `extKeyUsage` as the report shows it (a frozen list is the same list again). */
function extKeyUsageText(eku: readonly string[] | undefined): string {
  if (eku === undefined) return "(none)";
  if (eku !== lastEku || !Object.isFrozen(eku)) {
    lastEkuText = listText(eku.map(ekuName));
    lastEku = eku;
  }
  return lastEkuText;
}

/** `formatKey(k)` (summarize's `key`). */
function keyText(k: KeyInfo): string {
  if (k.type !== lastKeyType || k.bits !== lastKeyBits || k.curve !== lastKeyCurve) {
    lastKeyText = formatKey(k);
    lastKeyType = k.type;
    lastKeyBits = k.bits;
    lastKeyCurve = k.curve;
  }
  return lastKeyText;
}

/** `sigAlgName(alg)` (summarize's `signatureAlgorithm`); a fleet's certificates share one. */
function sigAlgText(alg: SigAlg): string {
  if (alg !== lastSigAlg) {
    lastSigAlgText = sigAlgName(alg);
    lastSigAlg = alg;
  }
  return lastSigAlgText;
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
