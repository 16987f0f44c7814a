/**
 * Writing a whole text through a synchronous write call that may write less
 * than it is given (main.ts's stdout and stderr on Node: `fs.writeSync`).
 *
 * @module
 */

/**
 * One synchronous write of `data[offset, offset + length)`: the number of
 * bytes written, or a throw (an error with a `code` such as `EAGAIN`).
 */
export type WriteSync = (data: Uint8Array, offset: number, length: number) => number;

/** UTF-16 code units {@link writeAllText} encodes and writes at a time. */
export const WRITE_SLICE = 1 << 20;

const encoder = new TextEncoder();
let scratch: Uint8Array | undefined;

/** Waits `ms` milliseconds, blocking (a full non-blocking pipe's retry). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Writes all of `text` as UTF-8 with `write`, a slice of {@link WRITE_SLICE}
 * code units at a time (a command's whole output, ~80 MB of PEM for 100,000
 * certificates, is not copied a second time as bytes; a slice never ends
 * between the two halves of a surrogate pair). A short write goes on from
 * where it stopped; `EAGAIN` (a descriptor somebody made non-blocking, full)
 * waits 1 ms and retries, `EINTR` retries; any other error is thrown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const out: number[] = [];
 * // A writer that takes at most 3 bytes a call.
 * writeAllText("héllo 😀", (d, off, len) => {
 *   const n = Math.min(3, len);
 *   out.push(...d.subarray(off, off + n));
 *   return n;
 * });
 * assert.equal(new TextDecoder().decode(new Uint8Array(out)), "héllo 😀");
 * ```
 */
export function writeAllText(
  text: string,
  write: WriteSync,
  wait: (ms: number) => void = sleepSync,
  slice = WRITE_SLICE,
): void {
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + slice);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    // Into a buffer kept from call to call: a fleet's output is ~10 MB written in pieces, and a
    // new array for each was garbage to collect. Three bytes a code unit always fit.
    const need = 3 * (end - at);
    if (!scratch || scratch.length < need) scratch = new Uint8Array(Math.max(need, 1 << 16));
    const { written } = encoder.encodeInto(text.slice(at, end), scratch);
    const data = scratch.subarray(0, written);
    at = end;
    for (let off = 0; off < data.length;) {
      try {
        off += write(data, off, data.length - off);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === "EAGAIN") wait(1);
        else if (code !== "EINTR") throw e;
      }
    }
  }
}
