/**
 * PEM decoding and encoding (RFC 7468), tolerant of CRLF line endings, a
 * byte-order mark and text around the blocks, strict about the base64 inside.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { InputError } from "./errors.ts";

/** One decoded PEM block. */
export interface PemBlock {
  /** The label, e.g. `CERTIFICATE` or `EC PRIVATE KEY`. */
  type: string;
  /** Headers such as `Proc-Type` (legacy encrypted keys); empty when none. */
  headers: Record<string, string>;
  /** The DER bytes. */
  der: Uint8Array;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END ([A-Z0-9 ]+)-----/g;

/** Whether the text holds at least one PEM `BEGIN` line. */
export function looksLikePem(text: string): boolean {
  return text.includes("-----BEGIN ");
}

/**
 * Decodes every PEM block in `text`. `source` names the input in errors.
 * Throws on a truncated block or bad base64.
 *
 * @example
 * ```ts
 * decodePem(pemText, "ca.crt").map((b) => b.type); // ["CERTIFICATE"]
 * ```
 */
export function decodePem(text: string, source = "input"): PemBlock[] {
  const clean = text.replace(/^\uFEFF/, "");
  const blocks: PemBlock[] = [];
  let m: RegExpExecArray | null;
  BLOCK.lastIndex = 0;
  while ((m = BLOCK.exec(clean)) !== null) {
    const [, type = "", body = "", endType] = m;
    if (type !== endType) {
      throw new InputError(`${source}: PEM block "${type}" ends with "END ${endType}"`);
    }
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
      throw new InputError(`${source}: PEM block "${type}" has invalid base64`);
    }
    const der = new Uint8Array(Buffer.from(compact, "base64"));
    if (der.length === 0) throw new InputError(`${source}: PEM block "${type}" is empty`);
    blocks.push({ type, headers, der });
  }
  const begins = clean.match(/-----BEGIN [A-Z0-9 ]+-----/g)?.length ?? 0;
  if (begins > blocks.length) {
    throw new InputError(`${source}: truncated PEM block (BEGIN without matching END)`);
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
