/**
 * joinkit's entry point: wires the process to `run()` (cli.ts): the
 * arguments, stdout, stderr, the environment, the exit code. The only place
 * that touches the process's streams and sets the exit status.
 *
 * Under `deno run` it asks Deno itself (the arguments, the environment,
 * stdout, the exit code, the error events): `node:process` costs ~13 ms of
 * Deno's start-up, half again what a command like `ca hash` adds to a
 * hello-world, and is loaded only if something uses the `process` global
 * (none of joinkit's own code does). On Node (the single binary) everything
 * goes through `process`.
 *
 * @module
 */

import { type Io, reportInternalError, run } from "./cli.ts";
import { ExitCode } from "./lib/base/errors.ts";
import { writeAllText } from "./lib/base/write_all.ts";
import {
  kernelRandomFill,
  type KernelRandomFs,
  preferKernelRandom,
} from "./lib/base/kernel_random.ts";
import { setCsprngSource, webCryptoFill } from "./lib/base/random.ts";

/** Deno's own API under `deno run`; undefined on Node. */
function denoApi(): typeof Deno | undefined {
  return (globalThis as { Deno?: typeof Deno }).Deno;
}

/**
 * The only writer to stderr. `run()` hands it lines it rendered with
 * `diagnosticLine` (one call, one line); tests/hardening/one_line_test.ts
 * audits that nothing else here, in cli.ts or in commands/ writes to stderr.
 * Lines are written in batches (a fleet's 10,000 `added signature` lines were
 * 10,000 writes): at 64 KiB, 100 ms after the first line held, before any
 * stdout or progress write (so `2>&1` keeps the order) and before the process ends.
 */
let heldStderr = "";
let heldSince = 0;

function writeStderrLine(line: string): void {
  if (heldStderr === "") heldSince = Date.now();
  heldStderr += line + "\n";
  if (heldStderr.length >= 65536 || Date.now() - heldSince >= 100) flushStderr();
}

function flushStderr(): void {
  if (heldStderr === "") return;
  const text = heldStderr;
  heldStderr = "";
  writeStderr(text);
}

/**
 * The transient status line (progress of long runs), only when stderr is a
 * terminal: redrawn in place (carriage return, erase to end of line), never
 * a diagnostic line.
 */
function writeProgress(status: string): void {
  flushStderr();
  writeStderr(`\r${status}\x1b[K`);
}

/**
 * Writes to stderr: under `deno run` with Deno's own synchronous write (as
 * stdout: loading `node:process` for it cost a refusal ~13 ms), on Node with
 * {@link writeNodeFd}. A failed write is dropped: nothing is left to tell.
 */
function writeStderr(text: string): void {
  const deno = denoApi();
  if (!deno) {
    try {
      writeNodeFd(2, text);
    } catch {
      // stderr closed or full: the exit code still says what happened.
    }
    return;
  }
  const data = new TextEncoder().encode(text);
  try {
    for (let off = 0; off < data.length;) off += deno.stderr.writeSync(data.subarray(off));
  } catch {
    // stderr closed or full: the exit code still says what happened.
  }
}

/**
 * Whether stdin (0), stdout (1) or stderr (2) is a terminal, asked only when a
 * command wants to know. Not process.stdin.isTTY: making process.stdin would
 * turn fd 0 non-blocking under the synchronous reads of commands/_io.ts. Under
 * Deno, its own isTerminal(); on Node (the binary) node:tty, loaded only then:
 * it pulls node:net, a start-up's worth of modules on either runtime.
 */
function isTerminal(fd: 0 | 1 | 2): boolean {
  const deno = denoApi();
  if (deno) return [deno.stdin, deno.stdout, deno.stderr][fd]!.isTerminal();
  return process.getBuiltinModule("node:tty").isatty(fd);
}

/**
 * Writes data to stdout. Under `deno run`, with Deno's own synchronous write:
 * making node's process.stdout costs ~6 ms of start-up (node's stream
 * machinery), a quarter of what `ca hash` costs over a hello-world. (A full
 * non-blocking pipe fails the write, as Deno's process.stdout does: Deno does
 * not say how much of it was written.) On Node (the binary and the npm bin),
 * with {@link writeNodeFd}.
 */
function writeStdout(text: string): void {
  const deno = denoApi();
  if (!deno) {
    try {
      writeNodeFd(1, text);
    } catch (e) {
      if ((e as { code?: string }).code === "EPIPE") endOnClosedPipe();
      throw e;
    }
    return;
  }
  const data = new TextEncoder().encode(text);
  for (let off = 0; off < data.length;) {
    try {
      off += deno.stdout.writeSync(data.subarray(off));
    } catch (e) {
      if ((e as { code?: string }).code === "EPIPE") endOnClosedPipe();
      throw e;
    }
  }
}

/**
 * Writes all of `text` to file descriptor 1 or 2 on Node, with blocking
 * writes (`fs.writeSync`), not through process.stdout/stderr: making those
 * streams loads node's stream modules, 1.5 ms of every start-up into a file
 * and ~3 ms into a pipe (Node 24, the binary's start-up target), and into a
 * pipe the stream turns asynchronous when the reader is slow, holding the
 * rest of a large output in memory. A blocking write waits for the reader
 * instead ({@link writeAllText}: short writes, EAGAIN on a descriptor somebody
 * else made non-blocking, a slice at a time). Node ignores SIGPIPE, so a
 * closed reader is an EPIPE error, thrown.
 */
function writeNodeFd(fd: 1 | 2, text: string): void {
  const fs = process.getBuiltinModule("node:fs");
  writeAllText(text, (data, offset, length) => fs.writeSync(fd, data, offset, length));
}

/** A closed pipe (`joinkit … | head -1`) ends the run quietly, as in other Unix tools. */
function endOnClosedPipe(): never {
  flushStderr();
  exit(ExitCode.ok);
}

/** Ends the process now with `code` (what is held for stderr is written first by the callers). */
function exit(code: number): never {
  const deno = denoApi();
  if (deno) deno.exit(code);
  process.exit(code);
}

/**
 * The environment run() reads (`JOINKIT_DEBUG`), asked one variable at a time
 * under Deno, as process.env does.
 */
function environment(): Readonly<Record<string, string | undefined>> {
  const deno = denoApi();
  if (!deno) return process.env;
  return new Proxy({}, {
    get: (_, name) => typeof name === "string" ? deno.env.get(name) : undefined,
  });
}

const io: Io = {
  stdout: (text) => {
    flushStderr();
    writeStdout(text);
  },
  stderr: writeStderrLine,
  progress: writeProgress,
  env: environment(),
  isTTY: {
    get stdin() {
      return isTerminal(0);
    },
    get stdout() {
      return isTerminal(1);
    },
    get stderr() {
      return isTerminal(2);
    },
  },
};

// Anything that escapes a command (a stream error, a stray rejected promise) is still one
// line and exit 1, never a stack trace that might quote input.
const fatal = (e: unknown) => {
  reportInternalError(e, io);
  flushStderr();
  exit(ExitCode.input);
};
const deno = denoApi();
if (deno) {
  globalThis.addEventListener("error", (e) => {
    e.preventDefault();
    fatal(e.error);
  });
  globalThis.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    fatal(e.reason);
  });
  // Whatever ends the process writes what is held first.
  globalThis.addEventListener("unload", flushStderr);
} else {
  // The kernel's CSPRNG where it is getrandom(2)'s (lib/base/kernel_random.ts), looked at on the
  // first draw; anywhere else, or from a failed read on, WebCrypto's.
  setCsprngSource(preferKernelRandom(
    () => kernelRandomFill(process.getBuiltinModule("node:fs") as KernelRandomFs),
    webCryptoFill,
  ));
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
  // Whatever ends the process (process.exit included) writes what is held first.
  process.on("exit", flushStderr);
}

run(deno ? deno.args : process.argv.slice(2), io).then((code) => {
  flushStderr();
  if (deno) deno.exitCode = code;
  else process.exitCode = code;
});
