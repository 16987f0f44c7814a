/**
 * joinkit's entry point: wires the process to `run()` (cli.ts): the
 * arguments, stdout, stderr, the environment, the exit code. The only place
 * that touches the process's streams and sets the exit status.
 *
 * @module
 */

import process from "node:process";
import { type Io, reportInternalError, run } from "./cli.ts";
import { ExitCode } from "./lib/base/errors.ts";

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
  process.stderr.write(text);
}

/**
 * The transient status line (progress of long runs), only when stderr is a
 * terminal: redrawn in place (carriage return, erase to end of line), never
 * a diagnostic line.
 */
function writeProgress(status: string): void {
  flushStderr();
  process.stderr.write(`\r${status}\x1b[K`);
}

/**
 * Whether stdin (0), stdout (1) or stderr (2) is a terminal, asked only when a
 * command wants to know. Not process.stdin.isTTY: making process.stdin would
 * turn fd 0 non-blocking under the synchronous reads of commands/_io.ts. Under
 * Deno, its own isTerminal(); on Node (the binary) node:tty, loaded only then:
 * it pulls node:net, a start-up's worth of modules on either runtime.
 */
function isTerminal(fd: 0 | 1 | 2): boolean {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (deno) return [deno.stdin, deno.stdout, deno.stderr][fd]!.isTerminal();
  return process.getBuiltinModule("node:tty").isatty(fd);
}

const io: Io = {
  stdout: (text) => {
    flushStderr();
    process.stdout.write(text);
  },
  stderr: writeStderrLine,
  progress: writeProgress,
  env: process.env,
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

// A closed pipe (`joinkit … | head -1`) ends the run quietly, as in other Unix tools.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") {
    flushStderr();
    process.exit(ExitCode.ok);
  }
  throw e;
});

// Anything that escapes a command (a stream error, a stray rejected promise) is still one
// line and exit 1, never a stack trace that might quote input.
const fatal = (e: unknown) => {
  reportInternalError(e, io);
  flushStderr();
  process.exit(ExitCode.input);
};
process.on("uncaughtException", fatal);
process.on("unhandledRejection", fatal);

run(process.argv.slice(2), io).then((code) => {
  flushStderr();
  process.exitCode = code;
});
// Whatever ends the process (process.exit included) writes what is held first.
process.on("exit", flushStderr);
