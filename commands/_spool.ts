/**
 * Output that must not appear before a run succeeds, yet may be far larger
 * than memory should hold (`seal` and `encrypt` of 100,000 Secrets write
 * ~200-500 MB): a private temporary file written in pieces, patched in place
 * where a value is known only at the end (a SOPS stream's MAC), then copied
 * to stdout or to the output file.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openAtomicOutput } from "./_io.ts";

/** Bytes of text gathered before they go to the temporary file. */
const SPOOL_PIECE = 1 << 20;

/**
 * A private temporary file (0600, in a 0700 directory of the system's
 * temporary directory) that output is written to in pieces, patched at byte
 * offsets, and copied out in pieces of text. It holds only what is printed
 * (encrypted values).
 */
export class Spool {
  #dir = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-spool-"));
  #fd = fs.openSync(path.join(this.#dir, "stream.yaml"), "wx+", 0o600);
  #held: string[] = [];
  #heldBytes = 0;
  /** Bytes written so far (held ones included). */
  size = 0;

  write(text: string): void {
    const n = Buffer.byteLength(text);
    this.#held.push(text);
    this.#heldBytes += n;
    this.size += n;
    if (this.#heldBytes >= SPOOL_PIECE) this.#flush();
  }

  /** Writes ASCII `text` over the bytes at `at`. */
  patch(at: number, text: string): void {
    this.#flush();
    const data = Buffer.from(text, "latin1");
    for (let off = 0; off < data.length;) {
      off += fs.writeSync(this.#fd, data, off, data.length - off, at + off);
    }
  }

  /** Hands the whole file to `sink` in pieces of whole characters. */
  copyTo(sink: (text: string) => void): void {
    this.#flush();
    const buf = Buffer.alloc(SPOOL_PIECE);
    const decoder = new TextDecoder();
    for (let pos = 0; pos < this.size;) {
      const n = fs.readSync(this.#fd, buf, 0, buf.length, pos);
      if (n === 0) throw new Error("temporary file shorter than written");
      pos += n;
      const text = decoder.decode(buf.subarray(0, n), { stream: pos < this.size });
      if (text !== "") sink(text);
    }
  }

  remove(): void {
    try {
      fs.closeSync(this.#fd);
    } catch { /* closed */ }
    fs.rmSync(this.#dir, { recursive: true, force: true });
  }

  #flush(): void {
    if (this.#held.length === 0) return;
    const data = Buffer.from(this.#held.join(""), "utf8");
    this.#held = [];
    this.#heldBytes = 0;
    for (let off = 0; off < data.length;) {
      off += fs.writeSync(this.#fd, data, off, data.length - off);
    }
  }
}

/**
 * Hands `spool`'s text to stdout (`stdout`) or, with `out`, to a temporary
 * file beside it moved into place at the end (no clobber without `force`).
 */
export function emitSpool(
  spool: Spool,
  out: string | undefined,
  force: boolean,
  stdout: (text: string) => void,
): void {
  if (out === undefined) {
    spool.copyTo(stdout);
    return;
  }
  const target = openAtomicOutput(out, 0o644, force);
  try {
    spool.copyTo((t) => target.write(t));
    target.commit();
  } catch (e) {
    target.abort();
    throw e;
  }
}
