/**
 * PEM decoding and encoding (RFC 7468), tolerant of CRLF line endings, a
 * byte-order mark and text around the blocks, strict about the base64 inside.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { InputError, quote } from "./errors.ts";

/** One decoded PEM block. */
export interface PemBlock {
  /** The label, e.g. `CERTIFICATE` or `EC PRIVATE KEY`. */
  type: string;
  /** Headers such as `Proc-Type` (legacy encrypted keys); empty when none. */
  headers: Record<string, string>;
  /** The DER bytes. */
  der: Uint8Array;
}

const LABEL = /^[A-Z0-9 ]+$/;
const BEGIN = "-----BEGIN ";
const END = "-----END ";
const DASHES = "-----";

/** Whether the text holds at least one PEM `BEGIN` line. */
export function looksLikePem(text: string): boolean {
  return text.includes(BEGIN);
}

/**
 * The label of a `-----BEGIN X-----` / `-----END X-----` line whose marker
 * starts at `at` (`marker` is `BEGIN ` or `END `), and where the line ends;
 * `undefined` when the characters there do not form one.
 */
function readLabel(
  text: string,
  at: number,
  marker: string,
): { label: string; end: number } | undefined {
  const from = at + marker.length;
  const close = text.indexOf(DASHES, from);
  if (close < 0) return undefined;
  const label = text.slice(from, close);
  if (!LABEL.test(label)) return undefined;
  return { label, end: close + DASHES.length };
}

/**
 * Decodes every PEM block in `text`. `source` names the input in errors.
 * Throws on a truncated block or bad base64. Runs in linear time whatever
 * the input (no backtracking regular expression over the whole text).
 *
 * @example
 * ```ts
 * decodePem(pemText, "ca.crt").map((b) => b.type); // ["CERTIFICATE"]
 * ```
 */
export function decodePem(text: string, source = "input"): PemBlock[] {
  const clean = text.replace(/^\uFEFF/, "");
  const blocks: PemBlock[] = [];
  let pos = 0;
  for (;;) {
    const at = clean.indexOf(BEGIN, pos);
    if (at < 0) break;
    const begin = readLabel(clean, at, BEGIN);
    if (begin === undefined) {
      // Not a BEGIN line (e.g. lower-case label): ignored, as text around blocks is.
      pos = at + BEGIN.length;
      continue;
    }
    const type = begin.label;
    let bodyStart = begin.end;
    if (clean[bodyStart] === "\r") bodyStart++;
    if (clean[bodyStart] !== "\n") {
      throw new InputError(`${source}: truncated PEM block (BEGIN without matching END)`);
    }
    bodyStart++;
    // The first well-formed END line after the BEGIN closes the block.
    let search = bodyStart;
    let end: { label: string; end: number } | undefined;
    let endAt = -1;
    while (end === undefined) {
      endAt = clean.indexOf(END, search);
      if (endAt < 0) {
        throw new InputError(`${source}: truncated PEM block (BEGIN without matching END)`);
      }
      end = readLabel(clean, endAt, END);
      search = endAt + END.length;
    }
    if (type !== end.label) {
      throw new InputError(
        `${source}: PEM block ${quote(type)} ends with ${quote(`END ${end.label}`)}`,
      );
    }
    const body = clean.slice(bodyStart, endAt);
    pos = end.end;
    const headers: Record<string, string> = {};
    let b64 = body;
    const split = body.split(/\r?\n\r?\n/);
    if (split.length > 1 && /^[A-Za-z-]+:/.test(body)) {
      for (const line of (split[0] ?? "").split(/\r?\n/)) {
        const i = line.indexOf(":");
        if (i > 0) headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
      }
      b64 = split.slice(1).join("\n");
    }
    const compact = b64.replace(/[\r\n\t ]/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      throw new InputError(`${source}: PEM block ${quote(type)} has invalid base64`);
    }
    const der = new Uint8Array(Buffer.from(compact, "base64"));
    if (der.length === 0) throw new InputError(`${source}: PEM block ${quote(type)} is empty`);
    blocks.push({ type, headers, der });
  }
  return blocks;
}

/**
 * Encodes DER bytes as a PEM block with 64-character lines, as Go's `pem.Encode` does.
 *
 * @example
 * ```ts
 * encodePem("CERTIFICATE", der);
 * ```
 */
export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join("\n")}\n-----END ${type}-----\n`;
}
