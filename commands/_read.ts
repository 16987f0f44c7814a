/**
 * Reading one input, a file or stdin, size-limited: what a command that only
 * reads its inputs (`ca hash`, `join-command`) loads at start-up, apart from
 * the rest of `_io.ts` (streamed and manifest reads, atomic writes), which
 * costs such a command several milliseconds of start-up under `deno run`.
 *
 * `node:fs` is loaded on first use ({@link nodeFs}): under `deno run` its
 * module tree (Deno's web streams among them) costs ~14 ms of start-up, so
 * {@link readInput} reads with Deno's own file API there and such a command
 * never loads it. On Node (the single binary) everything goes through
 * `node:fs`.
 *
 * @module
 */

import type * as NodeFs from "node:fs";
import { Buffer } from "node:buffer";
import { InputError } from "../lib/base/errors.ts";
import { MAX_INPUT_BYTES } from "../lib/base/limits.ts";
import { probes } from "./_command.ts";

let fsModule: typeof NodeFs | undefined;

/**
 * node:fs, loaded on first use, through the `process` global (an import of
 * node:process alone costs ~13 ms of a start-up under Deno).
 */
export function nodeFs(): typeof NodeFs {
  return fsModule ??= process.getBuiltinModule("node:fs");
}

/** Deno's own API under `deno run`; undefined on Node (the single binary). */
function denoApi(): typeof Deno | undefined {
  return (globalThis as { Deno?: typeof Deno }).Deno;
}

/** One input that was read. */
export interface Input {
  /** The name to show in messages: the path, or `stdin`. */
  name: string;
  /** The raw bytes. */
  bytes: Uint8Array;
  /** The bytes as UTF-8 text. */
  text: string;
}

/** An I/O error as one line naming `name`: `ca.crt: no such file or directory`. */
export function describeIoError(err: unknown, name: string): InputError {
  const code = (err as { code?: string }).code;
  const why = code === "ENOENT"
    ? "no such file or directory"
    : code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "EISDIR"
    ? "is a directory, expected a file"
    : code === "ENOTDIR"
    ? "not a directory"
    : code === "EEXIST"
    ? "already exists"
    : code === "ENOSPC"
    ? "no space left on device"
    : code === "EROFS"
    ? "read-only file system"
    : code === "EDQUOT"
    ? "disk quota exceeded"
    : (err instanceof Error ? err.message.split("\n")[0] : String(err));
  return new InputError(`${name}: ${why}`);
}

/**
 * Reads a file, or stdin for `-`, refusing anything over the size limit.
 * The limit holds for every kind of file: reads are bounded, so a device
 * (`/dev/zero`), FIFO or `/proc` file that `stat` reports as empty cannot
 * exhaust memory.
 */
export function readInput(file: string): Input {
  // A probe run (cli.ts, flags only) never waits on stdin: it may be a terminal.
  if (file === "-" && probes.running > 0) throw new Error("probe run: stdin is not read");
  const name = file === "-" ? "stdin" : file;
  const deno = denoApi();
  let bytes = deno ? readWithDeno(deno, file, name) : undefined;
  if (bytes === undefined) {
    const fs = nodeFs();
    try {
      if (file === "-") {
        bytes = readBounded((buf) => fs.readSync(0, buf, 0, buf.length, null), name);
      } else {
        const fd = fs.openSync(file, "r");
        try {
          const st = fs.fstatSync(fd);
          if (st.isDirectory()) throw Object.assign(new Error("dir"), { code: "EISDIR" });
          if (st.size > MAX_INPUT_BYTES) {
            throw new InputError(`${name}: file larger than ${MAX_INPUT_BYTES} bytes`);
          }
          bytes = readBounded((buf) => fs.readSync(fd, buf, 0, buf.length, null), name);
        } finally {
          fs.closeSync(fd);
        }
      }
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw describeIoError(err, name);
    }
  }
  return { name, bytes, text: Buffer.from(bytes).toString("utf8") };
}

/**
 * {@link readInput}'s read under `deno run`, with Deno's file API (the same
 * checks and bounds); undefined when Deno failed where node:fs should say
 * why (a missing file, a closed stdin): the caller then reads with node:fs,
 * so every refusal keeps node's wording on both runtimes. Reading again is
 * safe: a file is read from its start, stdin only when nothing was taken
 * from it.
 */
function readWithDeno(deno: typeof Deno, file: string, name: string): Uint8Array | undefined {
  if (file === "-") {
    let taken = false;
    try {
      return readBounded((buf) => {
        const n = deno.stdin.readSync(buf) ?? 0;
        if (n > 0) taken = true;
        return n;
      }, name);
    } catch (err) {
      if (err instanceof InputError) throw err;
      if (taken) throw describeIoError(err, name);
      return undefined;
    }
  }
  let f: Deno.FsFile;
  try {
    f = deno.openSync(file, { read: true });
  } catch {
    return undefined;
  }
  try {
    const st = f.statSync();
    if (st.isDirectory) throw describeIoError({ code: "EISDIR" }, name);
    if (st.size > MAX_INPUT_BYTES) {
      throw new InputError(`${name}: file larger than ${MAX_INPUT_BYTES} bytes`);
    }
    return readBounded((buf) => f.readSync(buf) ?? 0, name);
  } catch (err) {
    if (err instanceof InputError) throw err;
    return undefined;
  } finally {
    f.close();
  }
}

/**
 * Reads with `read` (bytes read into the buffer, 0 at the end) to the end,
 * refusing more than {@link MAX_INPUT_BYTES}; a read that would block
 * (`EAGAIN`, a non-blocking stdin) is tried again.
 */
function readBounded(read: (buf: Buffer) => number, name: string): Uint8Array {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = read(buf);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "EAGAIN") continue;
      if (code === "EOF") break;
      throw err;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_INPUT_BYTES) {
      throw new InputError(`${name}: input larger than ${MAX_INPUT_BYTES} bytes`);
    }
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return new Uint8Array(Buffer.concat(chunks));
}
