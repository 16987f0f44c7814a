/**
 * kubeadm's configuration values given as flags, read as kubeadm's cobra
 * flags read them and judged by the one exit-code rule: a malformed value on
 * the command line is a usage error (2) naming the flag, with kubeadm's text
 * after it (the same value in a --config file is bad input, 1).
 *
 * - string slices (`--apiserver-cert-extra-sans`): pflag reads each value
 *   as one record of Go's `encoding/csv` (an empty value adds nothing,
 *   `"a,b"` is one value, a stray quote is its parse error);
 * - `--apiserver-bind-port`: pflag's int32, Go's `strconv.ParseInt(v, 0, 32)`
 *   (`06443` is octal, `0x1923` hex; 0 leaves kubeadm's default 6443);
 * - the values kubeadm's validation refuses (`validateControlPlanePkiSpec`)
 *   and the advertise addresses it would not serve on (`advertiseAddressError`).
 *
 * @module
 */

import { UsageError } from "../../lib/base/errors.ts";
import { parseDuration } from "../../lib/go/duration.ts";
import { goQuote } from "../../lib/go/quote.ts";
import {
  advertiseAddressError,
  type ControlPlanePkiSpec,
  validateControlPlanePkiSpec,
} from "../../lib/phases/certlist.ts";
import type { Context } from "../_command.ts";
import { flagList, flagString } from "../_flags.ts";

/**
 * A string-slice flag as pflag reads it: each occurrence one CSV record, the
 * occurrences added up; a malformed record is pflag's error (exit 2).
 */
export function csvFlag(ctx: Context, name: string): string[] {
  return flagList(ctx.flags, name).flatMap((raw) => {
    const r = csvRecord(raw);
    if (typeof r === "string") {
      throw new UsageError(
        `invalid argument ${goQuote(raw)} for ${JSON.stringify(`--${name}`)} flag: ${r}`,
      );
    }
    return r;
  });
}

/** The first record of `text` as Go's `csv.Reader.Read` reads it (comma ","), or its error text. */
function csvRecord(text: string): string[] | string {
  if (text === "") return [];
  const fields: string[] = [];
  let line = text;
  let col = 1; // Go's 1-based byte column
  const err = (c: number, why: string) => `parse error on line 1, column ${c}: ${why}`;
  for (;;) {
    if (!line.startsWith('"')) {
      const i = line.indexOf(",");
      const field = i >= 0 ? line.slice(0, i) : line;
      const j = field.indexOf('"');
      if (j >= 0) return err(col + byteLength(field.slice(0, j)), 'bare " in non-quoted-field');
      fields.push(field);
      if (i < 0) return fields;
      col += byteLength(field) + 1;
      line = line.slice(i + 1);
      continue;
    }
    line = line.slice(1);
    col += 1;
    let field = "";
    for (;;) {
      const i = line.indexOf('"');
      if (i < 0) return err(col + byteLength(line), 'extraneous or missing " in quoted-field');
      field += line.slice(0, i);
      col += byteLength(line.slice(0, i)) + 1;
      line = line.slice(i + 1);
      if (line.startsWith('"')) {
        field += '"';
        line = line.slice(1);
        col += 1;
      } else if (line.startsWith(",")) {
        fields.push(field);
        line = line.slice(1);
        col += 1;
        break;
      } else if (line === "") {
        fields.push(field);
        return fields;
      } else return err(col - 1, 'extraneous or missing " in quoted-field');
    }
  }
}

function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * `--apiserver-bind-port` as kubeadm's int32 flag reads it, or undefined
 * when absent; 0 is kubeadm's default (6443). A value that is not plain
 * decimal is read as Go reads it, with a warning on stderr.
 */
export function bindPortFlag(ctx: Context): number | undefined {
  const port = flagString(ctx.flags, "apiserver-bind-port");
  if (port === undefined) return undefined;
  const n = goParseInt32(port);
  if (typeof n === "string") {
    throw new UsageError(
      `invalid argument ${
        goQuote(port)
      } for "--apiserver-bind-port" flag: strconv.ParseInt: parsing ${goQuote(port)}: ${n}`,
    );
  }
  if (!/^\+?[1-9]\d*$/.test(port) && n !== 0) {
    ctx.stderr(`WARNING: --apiserver-bind-port ${port} is read as kubeadm reads it: ${n}`);
  }
  return n === 0 ? 6443 : n;
}

/** Go's `strconv.ParseInt(s, 0, 32)`: the value, or the error's reason. */
function goParseInt32(s0: string): number | string {
  let s = s0;
  const neg = s.startsWith("-");
  if (neg || s.startsWith("+")) s = s.slice(1);
  if (s === "") return "invalid syntax";
  let base = 10;
  if (s[0] === "0") {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && (p === "b" || p === "o" || p === "x")) {
      base = p === "b" ? 2 : p === "o" ? 8 : 16;
      s = s.slice(2);
    } else {
      base = 8;
      s = s.slice(1);
    }
  }
  let n = 0;
  let underscores = false;
  for (const ch of s) {
    if (ch === "_") {
      underscores = true;
      continue;
    }
    const c = ch.toLowerCase();
    const d = c >= "0" && c <= "9"
      ? c.charCodeAt(0) - 48
      : c >= "a" && c <= "z"
      ? c.charCodeAt(0) - 87
      : 99;
    if (d >= base) return "invalid syntax";
    n = n * base + d;
    if (n > 0xffffffff) return "value out of range";
  }
  if (underscores && !goUnderscoreOk(s0)) return "invalid syntax";
  if (neg ? n > 2 ** 31 : n >= 2 ** 31) return "value out of range";
  return neg ? -n : n;
}

/** Go's `strconv.underscoreOK`: underscores only between digits (or after a base prefix). */
function goUnderscoreOk(text: string): boolean {
  let s = text;
  if (s.startsWith("-") || s.startsWith("+")) s = s.slice(1);
  let saw = "^";
  let i = 0;
  let hex = false;
  const p = s[1]?.toLowerCase();
  if (s.length >= 2 && s[0] === "0" && (p === "b" || p === "o" || p === "x")) {
    i = 2;
    saw = "0";
    hex = p === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i]!.toLowerCase();
    if ((c >= "0" && c <= "9") || (hex && c >= "a" && c <= "f")) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** A duration flag (`--certificate-validity-period`) as Go's `time.ParseDuration` reads it, or undefined when absent. */
export function durationFlag(ctx: Context, name: string): number | undefined {
  const v = flagString(ctx.flags, name);
  if (v === undefined) return undefined;
  try {
    return parseDuration(v);
  } catch {
    throw new UsageError(`--${name}: time: invalid duration ${JSON.stringify(v)}`);
  }
}

/** kubeadm's field paths (its validation texts start with them) and the flags that give them. */
const FIELD_FLAGS: readonly (readonly [string, string])[] = [
  ["nodeRegistration", "node-name"],
  ["networking.dnsDomain", "service-dns-domain"],
  ["networking.serviceSubnet", "service-cidr"],
  ["apiServer.certSANs", "apiserver-cert-extra-sans"],
  ["controlPlaneEndpoint", "control-plane-endpoint"],
  ["etcd.local.serverCertSANs", "etcd-server-cert-extra-sans"],
  ["etcd.local.peerCertSANs", "etcd-peer-cert-extra-sans"],
  ["encryptionAlgorithm", "encryption-algorithm"],
  ["localAPIEndpoint.advertiseAddress", "apiserver-advertise-address"],
  ["localAPIEndpoint.bindPort", "apiserver-bind-port"],
];

/**
 * Refuses, as a usage error naming the flag, the first of `flags` (given on
 * the command line) whose value kubeadm's validation of `spec` refuses (its
 * text after the flag), or an advertise address kubeadm would not serve on.
 */
export function checkFlagValues(spec: ControlPlanePkiSpec, flags: readonly string[]): void {
  if (flags.length === 0) return;
  const errs = validateControlPlanePkiSpec(spec);
  for (const flag of flags) {
    const fields = FIELD_FLAGS.filter(([, f]) => f === flag).map(([field]) => field);
    const e = errs.find((x) => fields.some((f) => x.startsWith(f)));
    if (e !== undefined) throw new UsageError(`--${flag}: ${e}`);
    if (flag === "apiserver-advertise-address") {
      const why = advertiseAddressError(spec.advertiseAddress);
      if (why) throw new UsageError(`--${flag}: ${why}`);
    }
  }
}
