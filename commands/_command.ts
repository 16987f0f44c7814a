/**
 * The shape of a joinkit command and the context `cli.ts`'s `run()` hands it.
 *
 * @module
 */

import type { ParseArgsConfig } from "node:util";

/** Option definitions, as `node:util` `parseArgs` takes them. */
export type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flag values. */
export type Flags = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command sees of the world: its arguments, the clock and the two streams. */
export interface Context {
  /** Positional arguments after the command words. */
  args: string[];
  /** Parsed flags, including the global ones (`now`). */
  flags: Flags;
  /** The clock: `--now` when given, else the system time. */
  now: Date;
  /** Writes data to stdout, as is. */
  stdout(text: string): void;
  /** Writes one diagnostic line to stderr (a newline is added). */
  stderr(line: string): void;
  /**
   * Whether stdin and stdout are terminals (false in tests and pipes). Stdin
   * itself is file descriptor 0, read through `readInput("-")` (commands/_io.ts).
   */
  tty?: { stdin: boolean; stdout: boolean; stderr?: boolean };
  /**
   * Redraws a transient status line on stderr (e.g. `csr sign: 12000 objects,
   * 4100/s`; empty text erases it). Present only when stderr is a terminal;
   * use it through commands/_progress.ts.
   */
  progress?(status: string): void;
}

/** One joinkit command; each lives in its own file under `commands/`. */
export interface Command {
  /** The words that select it, e.g. `token generate`. */
  name: string;
  /** Full help text: usage, arguments, flags, exit codes, examples. */
  help: string;
  /** Its flags (the global `--now`, `--help` and `--version` are added by `cli.ts`). */
  options: Options;
  /** The fixed words its arguments are chosen from, for shell completion (absent: file names). */
  argChoices?: readonly string[];
  /** Runs it; the returned number (default 0) is the exit code. */
  run(ctx: Context): Promise<number | void> | number | void;
}

/**
 * Probe runs in progress (cli.ts runs a command again when it stopped at a
 * missing argument, to report a malformed flag value first, as cobra
 * does): while one runs, commands/_io.ts writes nothing.
 */
export const probes = { running: 0 };

/** The exit-code section every command's help ends with. */
export const EXIT_CODES = `Exit codes:
  0  success
  1  bad input or I/O failure
  2  usage error (unknown flag, missing argument)
  3  a check ran and said no (invalid, expired, untrusted)`;
